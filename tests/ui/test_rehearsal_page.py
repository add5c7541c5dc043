"""The Plan page's rehearsal (AppTest): Rehearse by the run buttons is refused naming the write
without a result, a result pinned in the step's panel stands in, the run and each step say
"rehearsal", and so does the Library; the tools count their calls, and the rehearsal adds none."""

from __future__ import annotations

from pydantic import BaseModel
from streamlit.testing.v1 import AppTest

from core import ADDITIVE, READ_ONLY
from studio import Keys, get_services

from apptest_helpers import APP, LIBRARY, edit_json, make_plan, no_failures, plan_text, texts


class Place(BaseModel):
    name: str
    people: int


def test_a_rehearsal_from_the_plan_page(app: AppTest) -> None:
    calls: list[str] = []

    def look_up_place(name: str) -> Place:
        """Look a place up."""
        calls.append("look_up_place")
        return Place(name=name, people=1)

    def note_place(name: str, note: str) -> dict:
        """Write a note on a place."""
        calls.append("note_place")
        return {"noted": note}

    registry = get_services().registry  # the same services the app uses
    registry.register(look_up_place, effects=READ_ONLY)
    registry.register(note_place, effects=ADDITIVE)
    make_plan(app)
    edit_json(app, plan_text([
        {"id": "find", "tool": "look_up_place", "params": {"name": "Rome"}},
        {"id": "note", "tool": "note_place", "params": {"name": "${steps.find.name}", "note": "seen"},
         "depends_on": ["find"]}]))

    app.button(key="plan.rehearse.start").click().run()
    no_failures(app)
    assert "Not rehearsed: 1 step of tools that may write has no recorded or pinned result: step 1 (note_place)" \
        in texts(app)
    assert app.session_state[Keys.BENCH].worker is None

    app.session_state[Keys.EDITOR_SELECTED] = "note"
    app.run()
    app.text_area(key="plan.pin.note").input('{"noted": "pinned"}').run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].pins == {"note": {"noted": "pinned"}}
    app.button(key="plan.rehearse.start").click().run()
    no_failures(app)
    worker = app.session_state[Keys.BENCH].worker  # None when the page collected it already
    if worker is not None:
        assert worker.join(60)
        app.run()
        no_failures(app)
    page = texts(app)
    run = app.session_state[Keys.BENCH].run
    assert run.rehearsal is not None and run.status == "succeeded" and calls == []
    assert f"Run {run.id} · succeeded · 2 succeeded · saved with the plan · rehearsal: no tool was called" in page
    assert "The rehearsal shown (succeeded): " in page  # by the run buttons too: no tool was called
    assert "rehearsal · made from the output schema" in page and "rehearsal · pinned result" in page
    assert any(b.label == "Download the run (JSON)" for b in app.get("download_button"))

    reloaded = AppTest.from_file(str(APP), default_timeout=60)  # the tab reloaded: its pins kept
    reloaded.query_params["draft"] = app.session_state[Keys.DRAFT_ID]
    reloaded.run()
    no_failures(reloaded)
    assert reloaded.session_state[Keys.BENCH].pins == {"note": {"noted": "pinned"}}
    assert "rehearsal: no tool was called" in texts(reloaded)

    app.switch_page(LIBRARY).run()
    no_failures(app)
    assert f"Run {run.id}" in texts(app) and ":violet-badge[rehearsal]" in texts(app)

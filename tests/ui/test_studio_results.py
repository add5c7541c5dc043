"""How a run's results show on the Plan page, and what keeping them in the tab's draft costs."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core import Settings
from core.storage import PlanStore

from studio import Keys, get_services
from studio.ui._text import md_escape

from apptest_helpers import edit_json, make_plan, no_failures, plan_text, run_plan
from test_studio_drafts import _reload, _url

GREETING = "Hello *world* from [a tool](https://example.com) — {not: json}"


def greet(name: str) -> str:
    """Greet someone in plain words.

    Args:
        name: Who to greet.
    """
    return GREETING.replace("world", name)


def test_a_tool_that_returns_a_plain_string_shows_it_as_text(app: AppTest) -> None:
    """Streamlit's st.json reads a string as JSON text, so a plain string result showed as
    "Json Parse Error" on the page; it must show as the text itself, escaped."""
    get_services().registry.register(greet)
    make_plan(app)
    edit_json(app, plan_text([{"id": "a", "tool": "greet", "params": {"name": "world"}}]))
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    run = app.session_state[Keys.BENCH].run
    assert run.steps["a"].result == GREETING
    assert [j.value for j in app.json if GREETING in str(j.value)] == []  # not handed to st.json
    shown = [m.value for m in app.markdown if m.value.startswith("Hello")]
    assert shown, "the string result is not on the page"
    # Escaped as all untrusted text is: no emphasis, no link.
    assert shown == [md_escape(GREETING)] and r"Hello \*world\*" in shown[0]


RECORDS = 5_000  # about 0.5 MB of result: big next to the rest of a draft, quick to run


def big_report(size: str = "big") -> dict:
    """A report as big as a large query answer.

    Args:
        size: A label.
    """
    return {"size": size, "records": [{"id": n, "name": f"record {n:09d}", "note": "x" * 60} for n in range(RECORDS)]}


def test_a_draft_names_its_run_by_id_and_never_copies_its_result(
        app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tab's draft used to hold its run whole (a 50 MB result: 52 MB per keystroke
    committed), then a copy of it in a part of its own: the finished run was stored twice. The
    run is in the store once; the draft names it by id, and a reload brings the whole run back."""
    get_services().registry.register(big_report)
    make_plan(app)
    edit_json(app, plan_text([{"id": "a", "tool": "big_report", "params": {"size": "big"}}]))
    app.button(key="plan.approve").click().run()
    written: list[tuple[str, int]] = []
    real_save = PlanStore.save_draft

    def counting_save(self: PlanStore, draft_id: str, content: str):
        written.append((draft_id, len(content)))
        return real_save(self, draft_id, content)

    monkeypatch.setattr(PlanStore, "save_draft", counting_save)
    run_plan(app, "all")
    run = app.session_state[Keys.BENCH].run
    result_size = len(json.dumps(run.steps["a"].result, separators=(",", ":")))
    assert result_size > 400_000
    assert written and max(size for _, size in written) < 20_000, written  # the result is in no draft
    draft_id = app.session_state[Keys.DRAFT_ID]
    assert {name for name, _ in written} == {draft_id}, "no part of the draft holds a copy of the run"
    with PlanStore(Settings.from_env().store_path) as store:
        assert json.loads(store.load_draft(draft_id).content)["run"] == {"id": run.id}
        assert store.load_draft(draft_id + ".run") is None
        assert store.load_run(run.id) == run  # the one copy: the store's

    written.clear()
    for n in range(3):
        # The goal box sends its text on Enter or Plan (a form); a goal the planner cannot read
        # keeps the plan and the run shown, and the goal typed.
        app.text_input(key=Keys.GOAL).input(f"edited goal {n}")
        app.button(key="plan.make").click().run()
        no_failures(app)
    assert len(written) >= 3, written  # each change is kept...
    assert max(size for _, size in written) < 20_000, written  # ...without the run's result

    back = _reload(_url(app))
    assert back.session_state[Keys.BENCH].run == app.session_state[Keys.BENCH].run
    assert back.session_state[Keys.GOAL] == "edited goal 2"


def test_a_copied_draft_shows_the_run_as_stored(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tab opened from another's URL copies the draft, with the run as it was; the run is one
    durable record, so when the first tab carries it on, the copy reloaded shows it as stored
    (its own copy of it: nothing one tab does to its objects reaches the other's)."""
    import studio.ui._drafts as drafts
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "next")
    paused = app.session_state[Keys.BENCH].run.model_copy(deep=True)  # the run goes on in place
    monkeypatch.setattr(drafts, "_held_elsewhere", lambda draft_id, session_id: True)
    second = _reload(_url(app))
    assert second.session_state[Keys.DRAFT_ID] != app.session_state[Keys.DRAFT_ID]
    assert second.session_state[Keys.BENCH].run == paused
    run_plan(app, "all")  # the first tab carries the run on, in the store
    ended = app.session_state[Keys.BENCH].run
    assert ended.id == paused.id and ended.status == "succeeded"
    assert second.session_state[Keys.BENCH].run == paused  # a tab not reloaded keeps what it showed
    monkeypatch.setattr(drafts, "_held_elsewhere", lambda draft_id, session_id: False)
    again = _reload(_url(second))
    assert again.session_state[Keys.BENCH].run == ended and again.session_state[Keys.BENCH].run is not ended

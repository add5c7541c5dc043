"""The Plan JSON column through AppTest: references shown by id or by position at a toggle
(the plan itself never changes with the form), and errors that name their line and column and
the step and field there. The editor's drawing is tested in Chromium (test_browser_code_editor)."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from studio import Keys
from apptest_helpers import edit_json, make_plan, no_failures, plan_text, texts


def _text(app: AppTest) -> str:
    return app.text_area(key=Keys.JSON).value


def _plan(app: AppTest):
    return app.session_state[Keys.BENCH].plan


def test_the_toggle_shows_references_by_position_and_back_by_id_and_the_plan_stays(app: AppTest) -> None:
    make_plan(app)
    plan, by_id = _plan(app), _text(app)
    first = plan.steps[0].id
    assert f"${{steps.{first}." in by_id
    app.toggle(key=Keys.JSON_POSITIONS).set_value(True).run()
    no_failures(app)
    assert "${step[0]." in _text(app) and "${steps." not in _text(app)
    assert _plan(app) == plan and app.session_state[Keys.BENCH].json_error is None
    # An edit made elsewhere (Undo here) is shown in the form picked too.
    edit_json(app, _text(app).replace('"Berlin"', '"Munich"'))
    assert "${step[0]." in _text(app)
    app.button(key="editor.undo").click().run()
    assert _plan(app) == plan and "${step[0]." in _text(app)
    app.toggle(key=Keys.JSON_POSITIONS).set_value(False).run()
    assert _text(app) == by_id


def test_a_reference_typed_by_position_is_read_by_position_and_shown_by_id(app: AppTest) -> None:
    make_plan(app)
    first = _plan(app).steps[0].id
    typed = _text(app).replace(f"${{steps.{first}.", "${step[0].").replace('"Berlin"', '"Munich"')
    edit_json(app, typed)
    assert f"${{steps.{first}." in _text(app) and "${step[0]" not in _text(app)
    assert _plan(app).steps[0].params["location"] == "Munich"


def test_a_field_error_names_its_line_column_step_and_field_and_the_text_is_kept(app: AppTest) -> None:
    make_plan(app)
    data = json.loads(_text(app))
    data["steps"][1]["tool"] = 3
    wrong = json.dumps(data, indent=2)
    edit_json(app, wrong)
    line = next(n for n, t in enumerate(wrong.split("\n"), start=1) if '"tool": 3' in t)
    assert f"Not applied: line {line}, column 7: step 1 · tool: Input should be a valid string" in texts(app)
    assert _text(app) == wrong
    # The toggle waits for text that parses, and says so; the text is kept as typed.
    app.toggle(key=Keys.JSON_POSITIONS).set_value(True).run()
    assert "The references switch form once the Plan JSON is applied and parses" in texts(app)
    assert _text(app) == wrong


def test_a_note_that_looks_like_a_reference_stays_as_written_when_the_form_switches(app: AppTest) -> None:
    """Switching the text as text would change the note too: the plan is written afresh instead,
    only its params' references by position."""
    make_plan(app)
    first = _plan(app).steps[0].id
    data = json.loads(_text(app))
    data["steps"][0]["note"] = f"see ${{steps.{first}}}"
    edit_json(app, plan_text(data["steps"], data["goal"]))
    plan = _plan(app)
    app.toggle(key=Keys.JSON_POSITIONS).set_value(True).run()
    shown = json.loads(_text(app))
    assert shown["steps"][0]["note"] == f"see ${{steps.{first}}}"
    assert shown["steps"][1]["params"]["facility_id"].startswith("${step[0].")
    assert _plan(app) == plan

"""The Plan page's gate, through AppTest: nothing acts on a plan the user is not looking at.

While the Plan JSON holds text that is not a plan, the page's plan (the graph's) is the last
valid one; Approve, Run, Save, locks and Re-plan would act on it, so they wait, and the page
says why. Approval belongs to the exact plan approved: any change to what runs withdraws it
(locks and notes do not change what runs).
"""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from core import plan_identity
from studio import Keys
from apptest_helpers import edit_json, import_text, make_plan, no_failures, plan_text, texts

GATED = ("plan.approve", "plan.run_next", "plan.run_all", "plan.save", "plan.replan")


def _broken(app: AppTest) -> str:
    """The panel's JSON with one comma dropped: the error names line 6."""
    text = app.text_area(key=Keys.JSON).value
    broken = text.replace('"tool": "facilities_list",', '"tool": "facilities_list"', 1)
    assert broken != text
    return broken


def test_broken_json_disables_every_action_on_the_plan_and_says_where_to_fix_it(app: AppTest) -> None:
    make_plan(app)
    assert "No problems found" in texts(app)
    edit_json(app, _broken(app))

    assert [key for key in GATED if app.button(key=key).disabled] == list(GATED)
    assert app.multiselect(key=Keys.LOCKS).disabled
    page = texts(app)
    assert "No problems found" not in page
    assert "Problems are checked once the Plan JSON parses" in page
    [caption] = [c.value for c in app.caption if "Approve, Run and Save are disabled" in c.value]
    error = app.session_state[Keys.BENCH].json_error
    assert "line 7" in error and "column" in error
    assert f"Fix the Plan JSON first ({error})" in caption.replace("\\", "")


def test_fixing_the_json_enables_approve_again(app: AppTest) -> None:
    make_plan(app)
    edit_json(app, _broken(app))
    fixed = app.text_area(key=Keys.JSON).value.replace('"tool": "facilities_list"', '"tool": "facilities_list",', 1)
    edit_json(app, fixed.replace("Berlin", "Munich"))

    assert not app.button(key="plan.approve").disabled
    assert not app.button(key="plan.save").disabled
    assert "No problems found" in texts(app)
    app.button(key="plan.approve").click().run()
    assert not app.button(key="plan.run_all").disabled


def test_approved_then_broken_json_disables_run_until_the_approved_plan_is_back(app: AppTest) -> None:
    make_plan(app)
    good = app.text_area(key=Keys.JSON).value
    app.button(key="plan.approve").click().run()
    edit_json(app, _broken(app))
    assert app.button(key="plan.run_all").disabled and app.button(key="plan.run_next").disabled

    edit_json(app, good.replace("\n", "\n "))  # the same plan, laid out differently
    assert not app.button(key="plan.run_all").disabled


def test_a_click_sent_with_broken_json_is_refused_not_run_on_the_last_valid_plan(app: AppTest) -> None:
    # In the browser, typing then clicking sends the new text and the click in one rerun: the
    # button was enabled when clicked, but the text it would act on is no plan.
    make_plan(app)
    app.button(key="plan.approve").click().run()
    app.text_area(key=Keys.JSON).input(_broken(app))
    app.button(key="plan.run_all").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].run is None
    assert "Could not run the plan. Fix the Plan JSON first" in texts(app)


def test_save_sent_with_broken_json_is_refused(app: AppTest) -> None:
    make_plan(app)
    app.text_area(key=Keys.JSON).input(_broken(app))
    app.button(key="plan.save").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].saved is None
    assert "Could not save the plan. Fix the Plan JSON first" in texts(app)


def test_approve_sent_with_broken_json_is_refused(app: AppTest) -> None:
    make_plan(app)
    app.text_area(key=Keys.JSON).input(_broken(app))
    app.button(key="plan.approve").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].approved is None
    assert "Could not approve the plan. Fix the Plan JSON first" in texts(app)


def test_a_lock_change_with_broken_json_keeps_the_text_being_fixed(app: AppTest) -> None:
    plan = make_plan(app)
    broken = _broken(app)
    app.text_area(key=Keys.JSON).input(broken)
    app.multiselect(key=Keys.LOCKS).select(plan.steps[0].id).run()
    no_failures(app)
    assert app.text_area(key=Keys.JSON).value == broken
    assert app.session_state[Keys.BENCH].plan == plan
    assert app.session_state[Keys.LOCKS] == []


def test_a_plan_with_a_problem_cannot_be_approved(app: AppTest) -> None:
    make_plan(app)
    edit_json(app, plan_text([{"id": "a", "tool": "facility_list", "params": {}}]))
    assert app.button(key="plan.approve").disabled
    assert app.button(key="plan.run_all").disabled
    assert "No problems found" not in texts(app)
    assert "Approve is disabled: the plan has 1 problem" in texts(app)


def test_approval_belongs_to_the_plan_approved_and_any_change_to_what_runs_withdraws_it(app: AppTest) -> None:
    plan = make_plan(app)

    def approved() -> bool:
        app.button(key="plan.approve").click().run()
        no_failures(app)
        return not app.button(key="plan.run_all").disabled

    assert approved()
    # Locks and notes are review metadata: they change nothing that runs, so approval stays.
    app.multiselect(key=Keys.LOCKS).select(plan.steps[1].id).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.steps[1].locked
    assert not app.button(key="plan.run_all").disabled
    data = json.loads(app.text_area(key=Keys.JSON).value)
    data["steps"][0]["note"] = "checked"
    edit_json(app, json.dumps(data, indent=2))
    assert app.session_state[Keys.BENCH].plan.steps[0].note == "checked"
    assert not app.button(key="plan.run_all").disabled

    edit_json(app, app.text_area(key=Keys.JSON).value.replace("Berlin", "Munich"))
    assert app.button(key="plan.run_all").disabled and not app.session_state[Keys.BENCH].approved

    assert approved()
    import_text(app, "native", json.dumps({"goal": "other", "steps": [
        {"id": "x", "tool": "facilities_list", "params": {}}]}))
    app.button(key="plan.replace.discard").click().run()  # the edited plan is not saved: it asks first
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.goal == "other"
    assert app.button(key="plan.run_all").disabled

    # A click that reaches the server when the approval held is another plan's does not run.
    assert approved()
    shown = app.session_state[Keys.BENCH].plan
    other = shown.model_copy(update={"steps": [shown.steps[0].model_copy(update={"tool": "shipments_list"})]})
    app.session_state[Keys.BENCH].approved = plan_identity(other).runs
    app.button(key="plan.run_all").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].run is None
    assert "Could not run the plan: approve this version of it first." in texts(app)
    assert app.button(key="plan.run_all").disabled

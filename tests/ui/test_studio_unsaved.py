"""Unsaved edits are never dropped without a word: another plan (a new goal, one from the
Library, an import) first asks, and an edit made while a run goes on waits as pending text
(AppTest; test_browser_unsaved.py does it in Chromium)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core import dump_plan
from studio import Keys, get_services

from apptest_helpers import LIBRARY, PLAN, edit_json, import_text, make_plan, no_failures, texts
from test_studio_drafts import _reload, _url
from test_editor_forms import field_key
from test_studio_runs import Gate, finish, gate, start_gated_run  # noqa: F401  (gate: a fixture)

OTHER_GOAL = "Get facilities in Munich"
REVIEWS = "../pages/reviews.py"


def _edit(app: AppTest) -> str:
    """An unsaved edit of the plan in the editor; the Plan JSON as edited."""
    edited = app.session_state[Keys.JSON].replace('"Berlin"', '"Hamburg"')
    edit_json(app, edited)
    assert app.session_state[Keys.BENCH].plan.steps[0].params["location"] == "Hamburg"
    return edited


def _asked(app: AppTest) -> str:
    [question] = [w.value for w in app.warning if "not saved" in w.value]
    assert app.button(key="plan.replace.save") and app.button(key="plan.replace.keep")
    return question.replace("\\", "")


def test_a_new_goal_over_unsaved_edits_asks_and_keep_editing_keeps_them(app: AppTest) -> None:
    make_plan(app)
    edited = _edit(app)
    make_plan(app, OTHER_GOAL)
    assert "plan the goal “Get facilities in Munich”" in _asked(app)
    assert app.session_state[Keys.JSON] == edited  # nothing replaced while it asks

    app.button(key="plan.replace.keep").click().run()
    no_failures(app)
    assert not [w for w in app.warning if "not saved" in w.value]
    assert app.session_state[Keys.JSON] == edited
    assert app.session_state[Keys.BENCH].plan.steps[0].params["location"] == "Hamburg"


def test_discard_my_edits_plans_the_new_goal(app: AppTest) -> None:
    make_plan(app)
    _edit(app)
    make_plan(app, OTHER_GOAL)
    app.button(key="plan.replace.discard").click().run()
    no_failures(app)
    plan = app.session_state[Keys.BENCH].plan
    assert plan.goal == OTHER_GOAL and plan.steps[0].params["location"] == "Munich"
    assert app.session_state[Keys.BENCH].question is None


def test_save_first_stores_the_edits_then_plans_the_new_goal(app: AppTest) -> None:
    make_plan(app)
    _edit(app)
    make_plan(app, OTHER_GOAL)
    app.button(key="plan.replace.save").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.goal == OTHER_GOAL
    assert "Your edits were saved first, as version 1" in texts(app)
    [summary] = get_services().store.list_plans("")
    kept = get_services().store.load_plan(summary.id, 1)
    assert kept.steps[0].params["location"] == "Hamburg"


def test_a_plan_that_was_not_edited_is_replaced_without_asking(app: AppTest) -> None:
    make_plan(app)
    make_plan(app, OTHER_GOAL)
    assert app.session_state[Keys.BENCH].plan.goal == OTHER_GOAL
    assert app.session_state[Keys.BENCH].question is None


def test_broken_json_counts_as_unsaved_and_save_first_waits_for_it(app: AppTest) -> None:
    make_plan(app)
    broken = app.session_state[Keys.JSON] + "\n}"
    edit_json(app, broken)
    import_text(app, "native", dump_plan(app.session_state[Keys.BENCH].plan, "native"))
    assert "does not parse" in _asked(app)
    assert app.button(key="plan.replace.save").disabled
    assert app.session_state[Keys.JSON] == broken


def test_opening_a_library_plan_over_unsaved_edits_asks_on_the_plan_page(app: AppTest) -> None:
    make_plan(app)
    app.button(key="plan.save").click().run()
    saved = app.session_state[Keys.BENCH].saved
    edited = _edit(app)  # edited since version 1
    app.switch_page(LIBRARY).run()
    app.button(key=f"library.open.{saved.plan_id}").click().run()
    no_failures(app)
    app.switch_page(PLAN).run()  # where the Library's Open leads
    assert "edited since version 1" in _asked(app)
    assert app.session_state[Keys.JSON] == edited
    app.button(key="plan.replace.discard").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.steps[0].params["location"] == "Berlin"
    assert "Opened version 1 of this plan." in texts(app)


def test_unsaved_edits_still_count_after_a_reload(app: AppTest) -> None:
    make_plan(app)
    edited = _edit(app)
    back = _reload(_url(app))
    make_plan(back, OTHER_GOAL)
    _asked(back)
    assert back.session_state[Keys.JSON] == edited


def test_an_edit_typed_during_a_run_waits_as_pending_text_and_applies_after(
        app: AppTest, gate: Gate) -> None:  # noqa: F811
    plan = start_gated_run(app, gate)
    edited = app.text_area(key=Keys.JSON).value.replace('"Munich"', '"Leipzig"')
    edit_json(app, edited)
    assert app.session_state[Keys.BENCH].plan == plan  # the run goes on with the plan it started
    assert app.text_area(key=Keys.JSON).value == edited  # the edit is kept as typed
    assert "kept in the Plan JSON" in texts(app)
    assert app.button(key="plan.pending.apply").disabled  # not while the run goes on

    back = _reload(_url(app))  # a reload mid-run keeps the pending edit too
    assert back.session_state[Keys.JSON] == edited and back.session_state[Keys.BENCH].json_pending

    run = finish(app, gate)
    assert run.status == "succeeded" and run.plan == plan
    assert app.text_area(key=Keys.JSON).value == edited
    assert app.button(key="plan.approve").disabled  # it would approve the plan without the edit
    app.button(key="plan.pending.apply").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.steps[3].params["location"] == "Leipzig"
    assert not app.session_state[Keys.BENCH].json_pending


def test_an_inspector_edit_during_a_run_waits_as_pending_text_too(app: AppTest, gate: Gate) -> None:  # noqa: F811
    plan = start_gated_run(app, gate)
    last = plan.steps[3].id
    app.session_state[Keys.EDITOR_SELECTED] = last
    app.run()
    app.text_input(key=field_key(app, last, "location")).input("Leipzig").run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan == plan
    assert app.session_state[Keys.BENCH].json_pending and '"Leipzig"' in app.session_state[Keys.JSON]
    assert "kept in the Plan JSON" in texts(app)
    finish(app, gate)
    app.button(key="plan.pending.apply").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan.step(last).params["location"] == "Leipzig"


def test_opening_a_saved_run_over_unsaved_edits_asks_too(app: AppTest) -> None:
    from apptest_helpers import run_plan
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    app.button(key="plan.save").click().run()
    run = app.session_state[Keys.BENCH].run
    edited = _edit(app)
    app.switch_page(LIBRARY).run()
    app.button(key=f"library.open_run.{run.id}").click().run()
    no_failures(app)
    app.switch_page(PLAN).run()
    assert f"open run {run.id} of" in _asked(app)
    assert app.session_state[Keys.JSON] == edited
    app.button(key="plan.replace.discard").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].run.id == run.id
    assert f"Opened run {run.id} (succeeded) of version 1" in texts(app)


def _review_sent(agent: str = "shipping-bot") -> str:
    from studio.workbench import submit_review
    plan = {"goal": "Find facilities in Bonn", "steps": [
        {"id": "fac", "tool": "facilities_list", "params": {"location": "Bonn"}}]}
    return submit_review(get_services(), {"plan": plan, "agent": agent}).id


def test_reviewing_a_plan_over_unsaved_edits_asks_first(app: AppTest) -> None:
    make_plan(app)
    edited = _edit(app)
    review_id = _review_sent()
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    no_failures(app)
    app.switch_page(PLAN).run()  # where Review leads
    assert "review the plan shipping-bot sent" in _asked(app)
    assert app.session_state[Keys.JSON] == edited and app.session_state[Keys.BENCH].review_id is None

    app.button(key="plan.replace.keep").click().run()
    no_failures(app)
    assert app.session_state[Keys.JSON] == edited and app.session_state[Keys.BENCH].review_id is None

    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    app.button(key="plan.replace.save").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].review_id == review_id
    assert app.session_state[Keys.BENCH].plan.goal == "Find facilities in Bonn"
    assert "Your edits were saved first, as version 1" in texts(app)
    [summary] = get_services().store.list_plans("")
    assert get_services().store.load_plan(summary.id, 1).steps[0].params["location"] == "Hamburg"


def test_reopening_the_review_being_reviewed_keeps_its_edits_without_asking(app: AppTest) -> None:
    review_id = _review_sent()
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    edited = app.session_state[Keys.JSON].replace('"Bonn"', '"Hamburg"')
    edit_json(app, edited)
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{review_id}").click().run()
    app.switch_page(PLAN).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].question is None
    assert app.session_state[Keys.JSON] == edited and app.session_state[Keys.BENCH].review_id == review_id
    assert "with your edits and comment as you left them" in texts(app)


def test_another_review_over_a_review_in_progress_does_not_ask_its_work_is_kept(app: AppTest) -> None:
    first, second = _review_sent("first-bot"), _review_sent("second-bot")
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{first}").click().run()
    app.switch_page(PLAN).run()
    edited = app.session_state[Keys.JSON].replace('"Bonn"', '"Hamburg"')
    edit_json(app, edited)
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{second}").click().run()
    app.switch_page(PLAN).run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].question is None and app.session_state[Keys.BENCH].review_id == second
    app.switch_page(REVIEWS).run()
    app.button(key=f"reviews.open.{first}").click().run()
    app.switch_page(PLAN).run()
    assert app.session_state[Keys.BENCH].review_id == first and app.session_state[Keys.JSON] == edited

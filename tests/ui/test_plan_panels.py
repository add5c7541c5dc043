"""The Plan page's steering and exchange panels: locks and re-plan with version history,
import and export in every registered format, SAY messages and appended results in a run."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from core import FORMATS, load_plan, step_label
from studio import Keys, get_services
from studio.ui.plan._formats_panel import PANEL_KEY
from apptest_helpers import import_text, make_plan, no_failures, run_plan, texts

TEAMS_PLAN = json.dumps({"type": "plan", "commands": [
    {"type": "DO", "action": "createList", "parameters": {"list": "groceries"}},
    {"type": "DO", "action": "addItem", "parameters": {"list": "groceries", "item": "milk"}},
    {"type": "SAY", "response": "I've added *milk* to your groceries list."},
]})


def test_a_replan_keeps_locked_steps_and_the_old_version_in_the_history(app: AppTest) -> None:
    first = make_plan(app)
    app.multiselect(key=Keys.LOCKS).select(first.steps[1].id).run()
    no_failures(app)
    locked = app.session_state[Keys.BENCH].plan
    assert [s.locked for s in locked.steps] == [False, True]
    assert '"locked": true' in app.text_area(key=Keys.JSON).value

    app.text_area(key=Keys.FEEDBACK).input("use Munich instead")
    app.button(key="plan.replan").click().run()
    no_failures(app)
    new = app.session_state[Keys.BENCH].plan
    assert new.steps[0].params == {"location": "Munich"}
    assert new.steps[1] == locked.steps[1]
    page = texts(app)
    assert f"Re-planned as version 2 (changed: {step_label(new.steps[0])} (location 'Berlin' → 'Munich'))" in page
    assert load_plan(app.text_area(key=Keys.JSON).value, "native") == new

    saved = app.session_state[Keys.BENCH].saved
    versions = get_services().store.versions(saved.plan_id)
    assert [(v.version, v.message) for v in versions] == [
        (1, "before re-plan"), (2, "re-plan: use Munich instead")]
    assert versions[0].plan == locked

    assert f"Since version 1: changed: {step_label(new.steps[0])} (location 'Berlin' → 'Munich')" in texts(app)

    app.button(key="plan.version.1").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan == locked
    assert app.session_state[Keys.BENCH].saved.version == 1


def test_changes_between_versions_name_params_added_removed_and_changed() -> None:
    from core import Plan, Step
    from studio.ui._actions import describe_changes
    old = Plan(goal="g", steps=[Step(id="a", tool="t", params={"city": "Berlin", "limit": 100}),
                                Step(id="b", tool="u"), Step(id="c", tool="v")])
    new = Plan(goal="g", steps=[Step(id="a", tool="t", params={"city": "Munich", "risk": "high"}, locked=True),
                                Step(id="b", tool="u", note="only a note"), Step(id="d", tool="w")])
    assert describe_changes(old, new) == ("added: w · d; removed: v · c; changed: t · a "
                                          "(city 'Berlin' → 'Munich', +risk 'high', -limit, locked)")
    assert describe_changes(old, old) == "no step changed"


def test_a_replan_the_planner_cannot_do_says_why_and_keeps_the_plan(app: AppTest) -> None:
    plan = make_plan(app)
    app.multiselect(key=Keys.LOCKS).set_value([s.id for s in plan.steps]).run()
    app.text_area(key=Keys.FEEDBACK).input("use Munich instead")
    app.button(key="plan.replan").click().run()
    no_failures(app)
    assert [e.value.replace("\\", "") for e in app.error][0].startswith("Could not re-plan: ")
    assert app.session_state[Keys.BENCH].plan.steps[0].params == {"location": "Berlin"}
    assert app.text_area(key=Keys.FEEDBACK).value == "use Munich instead"
    assert app.session_state[Keys.BENCH].saved is None  # nothing half-saved


def test_a_replan_that_would_leave_no_step_says_why_and_keeps_the_plan(app: AppTest) -> None:
    plan = make_plan(app, "Get facilities in Berlin")
    assert len(plan.steps) == 1
    app.text_area(key=Keys.FEEDBACK).input("drop the facilities step")
    app.button(key="plan.replan").click().run()
    no_failures(app)
    [error] = [e.value.replace("\\", "") for e in app.error]
    assert error.startswith("Could not re-plan: ") and "would leave the plan with no step" in error
    assert app.session_state[Keys.BENCH].plan == plan
    assert json.loads(app.text_area(key=Keys.JSON).value)["steps"][0]["tool"] == "facilities_list"
    assert app.text_area(key=Keys.FEEDBACK).value == "drop the facilities step"


def test_a_teams_plan_imports_runs_and_its_say_step_speaks(app: AppTest) -> None:
    import_text(app, "teams", TEAMS_PLAN)
    plan = app.session_state[Keys.BENCH].plan
    assert [s.tool for s in plan.steps] == ["createList", "addItem", "say"]
    assert "Imported 3 steps from the Teams AI DO/SAY plan" in texts(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    no_failures(app)
    assert app.session_state[Keys.BENCH].run.status == "succeeded"
    [said] = [m for m in app.chat_message]
    # Escaped: the asterisks show as written instead of turning into emphasis.
    assert said.markdown[0].value == r"I've added \*milk\* to your groceries list\."


def test_a_broken_import_names_the_problem_and_keeps_the_text_and_the_plan(app: AppTest) -> None:
    plan = make_plan(app)
    broken = "<plan>\n  <function.WriterPlugin.ShortPoem input=\"$X\">\n</plan>"
    import_text(app, "sk", broken)
    [error] = [e.value.replace("\\", "") for e in app.error]
    assert error.startswith("Could not import the Semantic Kernel XML plan:") and "line 3" in error
    assert app.text_area(key=Keys.IMPORT_TEXT).value == broken
    assert app.session_state[Keys.BENCH].plan == plan

    import_text(app, "native", "")
    assert "Paste a plan or choose a file to import first." in texts(app)


def test_every_export_format_shows_the_plan_as_that_format_writes_it(app: AppTest) -> None:
    plan = make_plan(app)
    registry = get_services().registry
    exportable = [n for n, f in FORMATS.items() if f.dump is not None]
    assert app.selectbox(key=Keys.EXPORT_FORMAT).options == [FORMATS[n].label for n in exportable]
    assert not app.code  # written only while the panel is open
    app.session_state[PANEL_KEY] = True  # the user opens "Import / export"
    for name in exportable:
        app.selectbox(key=Keys.EXPORT_FORMAT).set_value(name).run()
        no_failures(app)
        # st.code drops the final newline.
        assert app.code[0].value == FORMATS[name].dump(plan, registry).rstrip("\n"), name


def test_an_exported_plan_imports_back_unchanged(app: AppTest) -> None:
    plan = make_plan(app)
    app.session_state[PANEL_KEY] = True
    app.selectbox(key=Keys.EXPORT_FORMAT).set_value("seed").run()
    exported = app.code[0].value
    app.text_input(key=Keys.GOAL).input("something else entirely")
    import_text(app, "seed", exported)
    again = app.session_state[Keys.BENCH].plan
    assert [(s.tool, s.params) for s in again.steps] == [(s.tool, s.params) for s in plan.steps]


def test_appended_results_of_a_semantic_kernel_plan_are_shown_by_name(app: AppTest) -> None:
    import_text(app, "sk", """<plan>
  <!-- make a list and show it -->
  <function.ListPlugin.createList list="errands" setContextVariable="LIST"/>
  <function.ListPlugin.showList list="errands" appendToResult="RESULT__ERRANDS"/>
</plan>""")
    plan = app.session_state[Keys.BENCH].plan
    assert plan.steps[0].note == "make a list and show it"
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    no_failures(app)
    assert app.session_state[Keys.BENCH].run.status == "succeeded"
    assert "**RESULT\\_\\_ERRANDS**" in [m.value for m in app.markdown]
    # Drawn after the steps, so the last JSON on the page.
    assert json.loads(app.json[-1].value) == app.session_state[Keys.BENCH].run.appended_results()["RESULT__ERRANDS"]


def test_a_follow_up_goal_leans_on_the_previous_plan(app: AppTest) -> None:
    first = make_plan(app)
    follow_up = make_plan(app, "Show me the same for Munich")
    assert follow_up.goal == "Show me the same for Munich"
    assert [s.tool for s in follow_up.steps] == [s.tool for s in first.steps]
    assert follow_up.steps[0].params == {"location": "Munich"}
    assert follow_up.steps[1].params == first.steps[1].params

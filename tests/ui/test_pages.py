"""The studio's pages through Streamlit's AppTest: the real app, services, store and tools.

Each test gets its own data folder (so its own services, store and demo data) and today
pinned to 2025-10-12. The graph component shows up as an unknown element in AppTest; what it
draws is tested through ``studio.ui.plan._graph.graph_data``.
"""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest
import pyvis
from streamlit.testing.v1 import AppTest

from core import NotFound, Plan, load_plan
from studio import Keys, get_services
from studio.ui.plan._graph import VIS_NETWORK_FILE, graph_data
from studio.ui._text import md_escape

from apptest_helpers import GOAL, LIBRARY, PLAN, edit_json, make_plan, no_failures, plan_text, run_plan, texts

def test_a_goal_becomes_a_plan_in_state_and_in_the_json_panel(app: AppTest) -> None:
    plan = make_plan(app)
    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list"]
    assert plan.steps[1].params["facility_id"] == f"${{steps.{plan.steps[0].id}.data.*.id}}"
    assert load_plan(app.text_area(key=Keys.JSON).value, "native") == plan
    assert not app.button(key="plan.approve").disabled
    assert app.button(key="plan.run_all").disabled
    assert app.button(key="plan.run_next").disabled
    assert "No problems found" in texts(app)


def test_an_empty_goal_is_refused_with_a_message(app: AppTest) -> None:
    app.button(key="plan.make").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan is None
    assert "Type a goal first" in texts(app)


def test_broken_json_keeps_the_text_and_the_last_good_plan(app: AppTest) -> None:
    plan = make_plan(app)
    broken = app.text_area(key=Keys.JSON).value.replace('"tool": "shipments_list",', '"tool": "shipments_list"')
    edit_json(app, broken)
    assert app.text_area(key=Keys.JSON).value == broken
    assert app.session_state[Keys.BENCH].plan == plan
    [error] = [e.value for e in app.error]
    assert "line" in error and "column" in error and "Your text is kept" in error.replace("\\", "")

    fixed = broken.replace('"tool": "shipments_list"', '"tool": "shipments_list",').replace("Berlin", "Munich")
    edit_json(app, fixed)
    assert app.session_state[Keys.BENCH].plan.steps[0].params == {"location": "Munich"}
    assert not app.error


def test_an_edit_withdraws_approval_and_the_graph_follows(app: AppTest) -> None:
    make_plan(app)
    app.button(key="plan.approve").click().run()
    assert app.session_state[Keys.BENCH].approved
    assert not app.button(key="plan.run_all").disabled
    text = app.text_area(key=Keys.JSON).value.replace('"Berlin"', '"Hamburg"')
    edit_json(app, text)
    assert not app.session_state[Keys.BENCH].approved
    assert app.button(key="plan.run_all").disabled
    nodes = graph_data(app.session_state[Keys.BENCH].plan)["nodes"]
    assert "Hamburg" in nodes[0]["title"]


def test_a_cycle_and_an_unknown_tool_are_listed_by_step_and_block_approval(app: AppTest) -> None:
    make_plan(app)
    edit_json(app, plan_text([
        {"id": "a", "tool": "facilities_list", "params": {}, "depends_on": ["b"]},
        {"id": "b", "tool": "shipments_list", "params": {}, "depends_on": ["a"]},
        {"id": "c", "tool": "shipment_list", "params": {}},
    ]))
    errors = [e.value.replace("\\", "") for e in app.error]
    assert ("step 0 (facilities_list) · depends_on: dependency cycle: step 0 (facilities_list) → "
            "step 1 (shipments_list) → step 0 (facilities_list)") in errors
    assert any("step 2 (shipment_list) · tool: unknown tool 'shipment_list'; did you mean 'shipments_list'?" in e
               for e in errors)
    assert app.button(key="plan.approve").disabled
    assert "Approve is disabled: the plan has 2 problems" in texts(app)
    # The graph still draws the plan as it is, cycle included.
    data = graph_data(app.session_state[Keys.BENCH].plan)
    assert {(e["from"], e["to"]) for e in data["edges"]} == {("a", "b"), ("b", "a")}


def test_a_failing_tool_fails_its_step_skips_dependents_and_the_page_keeps_working(app: AppTest) -> None:
    def explode(reason: str = "boom") -> dict:
        """Always fails.

        Args:
            reason: The error message.
        """
        raise RuntimeError(reason)

    get_services().registry.register(explode)  # the same services the app uses
    make_plan(app)
    edit_json(app, plan_text([
        {"id": "a", "tool": "explode", "params": {"reason": "the tool broke"}},
        {"id": "b", "tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}},
        {"id": "c", "tool": "facilities_list", "params": {"location": "Berlin"}},
    ]))
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    no_failures(app)
    run = app.session_state[Keys.BENCH].run
    assert {sid: s.status.value for sid, s in run.steps.items()} == {
        "a": "failed", "b": "skipped", "c": "succeeded"}
    page = texts(app)
    assert "explode failed: the tool broke" in page
    assert "depends on step 0 (explode), which did not succeed" in page
    assert ":red-badge[failed]" in page and ":orange-badge[skipped]" in page
    # The rows of the step that succeeded, under its result and in the run's summary (the final result).
    assert len(app.dataframe) == 2
    assert graph_data(app.session_state[Keys.BENCH].plan, run)["statuses"] == ["failed", "skipped", "succeeded"]

    # Still usable: a new goal plans as before (running saved the plan typed above: nothing to ask).
    make_plan(app, "Get facilities in Munich")
    assert [s.tool for s in app.session_state[Keys.BENCH].plan.steps] == ["facilities_list"]
    assert app.session_state[Keys.BENCH].run is None


def test_run_next_step_runs_one_step_at_a_time(app: AppTest) -> None:
    make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "next")
    run = app.session_state[Keys.BENCH].run
    assert [s.status.value for s in run.steps.values()] == ["succeeded", "pending"]
    assert not run.finished
    run_plan(app, "next")
    run = app.session_state[Keys.BENCH].run
    assert [s.status.value for s in run.steps.values()] == ["succeeded", "succeeded"]
    assert run.finished
    assert "Run " in texts(app) and "succeeded · 2 succeeded" in texts(app)


def test_an_unexpected_error_shows_a_short_message_not_a_traceback(app: AppTest, monkeypatch) -> None:
    class BrokenPlanner:
        name = "broken"

        def plan(self, goal, *, today, context=None):
            raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(get_services(), "_planner", BrokenPlanner())
    make_plan(app)
    [error] = [e.value.replace("\\", "") for e in app.error]
    assert error.startswith("Could not make a plan: unexpected ZeroDivisionError")
    assert "Traceback" not in texts(app)


def test_save_makes_versions_and_the_library_opens_them(app: AppTest) -> None:
    first = make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")  # a run is stored with its version: running saved the plan first
    app.button(key="plan.save").click().run()
    assert "No changes since version 1." in texts(app)

    edit_json(app, app.text_area(key=Keys.JSON).value.replace('"Berlin"', '"Leipzig"'))
    app.text_input(key=Keys.SAVE_MESSAGE).input("Leipzig instead")
    app.button(key="plan.save").click().run()
    assert "Saved as version 2." in texts(app)
    second = app.session_state[Keys.BENCH].plan

    store = get_services().store
    [summary] = store.list_plans()
    assert (summary.goal, summary.latest_version, summary.run_count) == (GOAL, 2, 1)
    assert [v.message for v in store.versions(summary.id)] == ["saved to run it", "Leipzig instead"]
    [run] = store.list_runs(summary.id)
    assert (run.version, run.status) == (1, "succeeded")

    app.switch_page(LIBRARY).run()
    no_failures(app)
    assert GOAL in texts(app) and "2 versions · 1 run" in texts(app)
    app.text_input(key=Keys.SEARCH).input("no such goal").run()
    assert "No saved plan matches." in texts(app)
    app.text_input(key=Keys.SEARCH).input("berlin").run()

    app.button(key=f"library.open.{summary.id}.1").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].plan == first
    assert load_plan(app.text_area(key=Keys.JSON).value, "native") == first
    assert app.text_input(key=Keys.GOAL).value == GOAL
    assert "Saved as version 1" in texts(app)

    app.switch_page(LIBRARY).run()
    app.button(key=f"library.open.{summary.id}").click().run()
    assert app.session_state[Keys.BENCH].plan == second
    # AppTest reruns the page it last switched to itself; the browser follows st.switch_page.
    app.switch_page(PLAN)
    # Editing the opened plan and saving makes the next version of the same plan.
    edit_json(app, app.text_area(key=Keys.JSON).value.replace('"Leipzig"', '"Dresden"'))
    app.button(key="plan.save").click().run()
    assert "Saved as version 3." in texts(app)
    assert [s.latest_version for s in store.list_plans()] == [3]


def test_deleting_a_saved_plan_removes_it_and_leaves_the_editor_copy_unsaved(app: AppTest) -> None:
    plan = make_plan(app)
    app.button(key="plan.approve").click().run()
    run_plan(app, "all")
    app.button(key="plan.save").click().run()
    store = get_services().store
    [summary] = store.list_plans()

    app.switch_page(LIBRARY).run()
    app.button(key=f"library.delete.{summary.id}").click().run()
    no_failures(app)
    assert f"Deleted “{GOAL}” with its versions and runs." in texts(app)
    assert store.list_plans() == []
    with pytest.raises(NotFound):
        store.list_runs(summary.id)
    assert "No saved plans yet." in texts(app)
    app.run()
    assert "Deleted" not in texts(app)  # said once

    app.switch_page(PLAN).run()
    assert app.session_state[Keys.BENCH].plan == plan and app.session_state[Keys.BENCH].saved is None
    assert "Saved as version 1." not in texts(app)  # no longer true
    app.button(key="plan.save").click().run()
    assert "Saved as version 1." in texts(app)


def test_graph_labels_and_tooltips_are_escaped_and_coloured_by_status() -> None:
    hostile = '<img src=x onerror="alert(1)">'
    plan = Plan.model_validate({"goal": "g", "steps": [
        {"id": "a", "tool": hostile, "params": {"note": hostile}, "note": hostile},
        {"id": "b", "tool": "facilities_list", "params": {"location": "${step[0].data.*.id}"}},
    ]})
    data = graph_data(plan)
    for item in data["nodes"] + data["edges"]:
        for field in ("label", "title"):
            assert "<" not in str(item.get(field, "")) and '"' not in str(item.get(field, ""))
    assert data["nodes"][0]["label"].split("\n")[0] == "0 · &lt;img src=x onerror=&quot;alert(1)&quot;&gt;"
    assert [n["color"]["background"] for n in data["nodes"]] == ["#e5e7eb", "#e5e7eb"]
    # Each edge says what flows along it, into which param.
    assert data["edges"] == [{"from": "a", "to": "b", "id": "a>b", "label": "data.*.id → location", "arrows": "to"}]
    assert data["options"]["layout"]["hierarchical"]["direction"] == "LR"


def test_the_served_vis_network_is_the_one_pyvis_ships() -> None:
    bundled = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2" / VIS_NETWORK_FILE.name
    assert filecmp.cmp(VIS_NETWORK_FILE, bundled, shallow=False)


def test_a_second_unrelated_goal_is_planned_afresh_and_its_unused_words_are_named(app: AppTest) -> None:
    make_plan(app)
    inspections = make_plan(app, "Get failed inspections from today")
    assert [(s.tool, s.params) for s in inspections.steps] == [
        ("inspections_list", {"date_from": "2025-10-12", "date_to": "2025-10-12", "result": "failed"})]
    assert not app.error and not app.warning

    weather = make_plan(app, "What's the weather in Munich?")
    assert weather.goal == "What's the weather in Munich?"
    assert [(s.tool, s.params) for s in weather.steps] == [("facilities_list", {"location": "Munich"})]
    assert not app.error
    assert [w.value for w in app.warning] == [md_escape("Not used from the goal: \u201cweather\u201d")]
    assert "re-plan" not in texts(app).lower()

    # A follow-up changes the plan that is open; every word of it is used.
    hamburg = make_plan(app, "and the same for Hamburg?")
    assert [(s.tool, s.params) for s in hamburg.steps] == [("facilities_list", {"location": "Hamburg"})]
    assert [s.id for s in hamburg.steps] == [s.id for s in weather.steps]
    assert not app.error and not app.warning


def test_a_negation_the_plan_does_not_apply_is_said_above_the_graph(app: AppTest) -> None:
    """Issue 18, item 1: the filter left out is named where the page's notices are drawn."""
    plan = make_plan(app, "contaminants that are not plastic")
    assert [(s.tool, s.params) for s in plan.steps] == [("contaminants_list", {})]
    assert len(app.warning) == 1 and "NOT applied" in app.warning[0].value
    assert "not plastic" in app.warning[0].value

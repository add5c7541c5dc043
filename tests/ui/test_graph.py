"""What the Plan page sends its graph: problem and lock marks, tooltips whose params stay in
view, and, during a run, the steps' live statuses under the same graph identity.

The graph is a components-v2 element; AppTest shows it as an unknown element whose ``json``
is the data the browser draws (tests/browser/test_browser_graph.py checks the drawing itself).
"""

from __future__ import annotations

import json
from typing import Any

from streamlit.testing.v1 import AppTest

from core import Plan, Problem, Run, StepRun, StepStatus
from studio import Keys
from studio.ui.plan._graph import NOTE_CHARS, PROBLEM_BORDER, STATUS_COLOURS, graph_data

from apptest_helpers import edit_json, make_plan, no_failures, plan_text
from test_studio_runs import Gate, finish, gate, start_gated_run  # noqa: F401  (gate is a fixture)


def drawn_graphs(app: AppTest) -> list[dict[str, Any]]:
    """The data of every plan graph on the page."""
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        for child in getattr(node, "children", {}).values():
            proto = getattr(child, "proto", None)
            if getattr(child, "type", None) == "bidi_component" and proto.component_name == "plan_studio_graph":
                found.append(json.loads(proto.json))
            walk(child)

    walk(app._tree)
    return found


def node(data: dict[str, Any], step_id: str) -> dict[str, Any]:
    [match] = [n for n in data["nodes"] if n["id"] == step_id]
    return match


def test_steps_with_errors_and_locked_steps_are_marked_in_the_graph(app: AppTest) -> None:
    make_plan(app)
    edit_json(app, plan_text([
        {"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}, "locked": True},
        {"id": "b", "tool": "shipment_list", "params": {}},
        {"id": "c", "tool": "facilities_list", "params": {"location": "Munich"}},
    ]))
    [data] = drawn_graphs(app)

    broken = node(data, "b")
    assert broken["label"].startswith("⚠ 1 · shipment_list")
    assert broken["color"]["border"] == PROBLEM_BORDER and broken["borderWidth"] > 2
    assert "problem: tool: unknown tool &#x27;shipment_list&#x27;" in broken["title"]

    locked = node(data, "a")
    assert locked["label"] == "0 · facilities_list\nlocation=Berlin\nlocked"
    assert locked["shapeProperties"]["borderDashes"]
    assert "locked: a re-plan keeps this step" in locked["title"]

    plain = node(data, "c")
    assert plain["label"] == "2 · facilities_list\nlocation=Munich"
    assert plain["color"]["border"] == STATUS_COLOURS["pending"][1]
    assert "borderWidth" not in plain and "shapeProperties" not in plain

    # Fixed: the mark goes.
    edit_json(app, app.text_area(key=Keys.JSON).value.replace("shipment_list", "shipments_list"))
    [data] = drawn_graphs(app)
    assert not node(data, "b")["label"].startswith("⚠")


def test_a_warning_alone_does_not_mark_a_step() -> None:
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "a", "tool": "facilities_list"}]})
    warning = Problem("looks odd", step_id="a", step_index=0, severity="warning")
    [data_node] = graph_data(plan, problems=[warning])["nodes"]
    assert data_node["label"] == "0 · facilities_list"
    assert "looks odd" not in data_node["title"]


def test_a_long_note_is_cut_and_comes_after_the_params() -> None:
    note = "why this step " * 100
    plan = Plan.model_validate({"goal": "g", "steps": [
        {"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}, "note": note}]})
    title = graph_data(plan)["nodes"][0]["title"]
    assert title.index("params:") < title.index("note:")
    shown = title[title.index("note: ") + len("note: "):].splitlines()[0]
    assert len(shown) <= NOTE_CHARS and shown.endswith("…")
    short = Plan.model_validate({"goal": "g", "steps": [{"id": "a", "tool": "say", "note": "brief"}]})
    assert "note: brief" in graph_data(short)["nodes"][0]["title"]


def test_the_layout_key_follows_steps_and_edges_not_statuses() -> None:
    plan = Plan.model_validate({"goal": "g", "steps": [
        {"id": "a", "tool": "facilities_list"}, {"id": "b", "tool": "say", "depends_on": ["a"]}]})
    run = Run(id="r", plan=plan, steps={"a": StepRun(step_id="a", status=StepStatus.succeeded),
                                        "b": StepRun(step_id="b", status=StepStatus.running)})
    assert graph_data(plan)["layout"] == graph_data(plan, run)["layout"]
    unlinked = plan.model_copy(update={"steps": [plan.steps[0], plan.steps[1].model_copy(update={"depends_on": []})]})
    assert graph_data(unlinked)["layout"] != graph_data(plan)["layout"]


def test_during_a_run_the_graph_shows_live_statuses_under_the_same_key(app: AppTest, gate: Gate) -> None:
    make_plan(app)
    [before] = drawn_graphs(app)
    plan = start_gated_run(app, gate)
    app.run()  # what the progress fragment does every half second
    no_failures(app)
    [during] = drawn_graphs(app)
    assert during["statuses"] == ["succeeded", "running", "pending", "pending"]
    assert node(during, plan.steps[1].id)["color"]["background"] == STATUS_COLOURS["running"][0]
    assert [s.label for s in app.status] == ["Running the plan: 1 of 4 steps done"]

    finish(app, gate)
    [after] = drawn_graphs(app)
    assert after["statuses"] == ["succeeded"] * 4
    assert during["layout"] == after["layout"]  # the same steps: the browser recolours in place
    assert before["layout"] != during["layout"]  # (a different plan before: drawn anew)


def test_the_graph_shows_several_steps_running_at_once(app: AppTest, gate: Gate) -> None:
    import time

    make_plan(app)
    edit_json(app, plan_text([{"id": f"g{n}", "tool": "wait_for_gate", "params": {"label": f"{n}"}} for n in range(3)]
                             + [{"id": "after", "tool": "say", "params": {"message": "done"},
                                 "depends_on": ["g0", "g1", "g2"]}]))
    app.button(key="plan.approve").click().run()
    app.button(key="plan.run_all").click().run()
    no_failures(app)
    worker = app.session_state[Keys.BENCH].worker
    give_up = time.monotonic() + 30
    while len(worker.progress().running) < 3:  # the three gates are entered on their own threads
        assert time.monotonic() < give_up, worker.progress()
        time.sleep(0.01)
    app.run()  # what the progress fragment does every half second
    no_failures(app)
    [during] = drawn_graphs(app)
    assert during["statuses"] == ["running", "running", "running", "pending"]
    finish(app, gate)
    [after] = drawn_graphs(app)
    assert after["statuses"] == ["succeeded"] * 4

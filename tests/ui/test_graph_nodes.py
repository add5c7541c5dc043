"""What a step's box in the graph says (studio/ui/plan/_node_labels.py) and how the graph is
spaced around it: tool and key params, rows and duration after a run, why a step waits or
failed, all short and escaped; columns wide enough for the edge labels between them; and a
jump-to-step list under a plan past 50 steps. tests/browser/test_browser_graph_nodes.py checks
the drawing itself."""

from __future__ import annotations

import html

from streamlit.testing.v1 import AppTest

from core import Ask, Plan, Run, StepRun, StepStatus
from studio import Keys
from studio.ui.plan._editor import JUMP_KEY
from studio.ui.plan._graph import EDGE_LABEL_CHARS, NODE_WIDTH_PX, OVERVIEW_STEPS, graph_data, layout_spacing
from studio.ui.plan._node_labels import (ERROR_CHARS, OUTCOME_CHARS, PARAM_CHARS, REASON_CHARS, duration_text, key_params,
                                         node_label, outcome_line)

from apptest_helpers import edit_json, make_plan, no_failures, plan_text
from test_graph import drawn_graphs


def _plan(*steps: dict) -> Plan:
    return Plan.model_validate({"goal": "g", "steps": list(steps)})


def test_a_box_shows_its_tool_and_up_to_two_params_cut_short() -> None:
    assert key_params({}) == ""
    assert key_params({"location": "Berlin"}) == "location=Berlin"
    assert key_params({"location": "Berlin", "limit": 5}) == "location=Berlin · limit=5"
    # A third param is counted, not shown; a long value is cut with "…".
    three = key_params({"a": "x" * 100, "b": True, "c": None})
    assert three.startswith("a=" + "x" * 13 + "…") and three.endswith("+1") and "b=true" in three
    assert len(three) <= PARAM_CHARS + len(" · +1")
    # A value read from another step is its edge's label already: literal params come first.
    assert key_params({"ids": "${step[0].data.*.id}", "kind": "hub"}).startswith("kind=hub · ")
    # A param that is one reference says which step it reads; one mixed into text is shown as text.
    assert key_params({"ids": "${step[0].data.*.id}"}, {"ids": "find"}) == "ids ← find"
    assert key_params({"m": "after ${step[0].label}"}, {"m": "find"}) == "m=after ${step[…"
    # One enormous name and value still make one short line.
    assert len(key_params({"n" * 80: "v" * 80})) <= PARAM_CHARS
    # Newlines in a value never make the box taller.
    assert "\n" not in key_params({"text": "one\ntwo\nthree"})


def test_after_a_run_a_box_shows_rows_and_duration_or_why_it_waits_or_failed() -> None:
    ran = StepRun(step_id="a", status=StepStatus.succeeded, result={"data": [{"id": 1}] * 12}, duration_ms=35.4)
    assert outcome_line(StepStatus.succeeded, ran) == "✓ 12 rows · 35 ms"
    one = StepRun(step_id="a", status=StepStatus.succeeded, result=["x"], duration_ms=1234)
    assert outcome_line(StepStatus.succeeded, one) == "✓ 1 row · 1.2 s"
    # A result that is no list or table has no rows to count.
    said = StepRun(step_id="a", status=StepStatus.succeeded, result={"message": "hi"}, duration_ms=2)
    assert outcome_line(StepStatus.succeeded, said) == "✓ 2 ms"
    assert outcome_line(StepStatus.pending, None) == ""
    assert outcome_line(StepStatus.running, StepRun(step_id="a", status=StepStatus.running)) == "running"

    waits = StepRun(step_id="a", status=StepStatus.waiting, ask=Ask(reason="send_mail is not read-only (writes)"))
    first, reason = outcome_line(StepStatus.waiting, waits).split("\n")
    assert first == "⚑ waits for a person" and reason.startswith("send_mail is not") and len(reason) <= REASON_CHARS
    assert outcome_line(StepStatus.waiting, StepRun(step_id="a", status=StepStatus.waiting)) == "⚑ waits for a person"

    failed = StepRun(step_id="a", status=StepStatus.failed, error="Connection refused\n" + "detail " * 50)
    lines = outcome_line(StepStatus.failed, failed).split("\n")
    assert len(lines) == 2 and all(len(line) <= OUTCOME_CHARS for line in lines)  # as wide as the layout allows
    assert " ".join(lines).startswith("✗ failed: Connection refused detail") and lines[-1].endswith("…")
    assert len(" ".join(lines)) <= len("✗ failed: ") + ERROR_CHARS
    assert outcome_line(StepStatus.failed, None) == "✗ failed"

    assert [duration_text(ms) for ms in (None, 0.4, 999, 59_000, 125_000, 120_000)] == [
        "", "0 ms", "999 ms", "59.0 s", "2 min 5 s", "2 min"]


def test_node_labels_are_escaped_and_the_layout_stays_while_a_run_fills_them() -> None:
    plan = _plan({"id": "a", "tool": "facilities_list", "params": {"location": "<img src=x onerror=alert(1)>"}},
                 {"id": "b", "tool": "say", "params": {"message": "${step[0].data.*.id}"}, "depends_on": ["a"]})
    before = graph_data(plan)
    label = before["nodes"][0]["label"]
    assert "<img" not in label and html.unescape(label).split("\n")[1].startswith("location=<img src=x")
    assert html.unescape(before["nodes"][1]["label"]) == "1 · say\nmessage ← a"
    assert before["nodes"][0]["label"] == html.escape(node_label(0, plan.steps[0], StepStatus.pending, None))

    run = Run(id="r", plan=plan, steps={
        "a": StepRun(step_id="a", status=StepStatus.succeeded, result={"data": [{"id": 1}, {"id": 2}]}, duration_ms=40),
        "b": StepRun(step_id="b", status=StepStatus.failed, error="<script>no</script>")})
    after = graph_data(plan, run)
    assert after["nodes"][0]["label"].endswith("\n✓ 2 rows · 40 ms")
    assert after["nodes"][1]["label"].endswith("✗ failed:\n&lt;script&gt;no&lt;/script&gt;")
    # The boxes grew, the layout did not: the browser updates them in place.
    assert after["layout"] == before["layout"] and after["options"] == before["options"]


def test_columns_are_wide_enough_for_the_edge_labels_between_them() -> None:
    column, row = layout_spacing(["0 · say"], [])
    wider, _ = layout_spacing(["0 · say"], ["x" * 30])
    assert column > NODE_WIDTH_PX and wider > column + 30 * 6  # the label's width, and more
    taller = layout_spacing(["0 · say\nlocation=Berlin\nlocked"], [])[1]
    assert taller > row
    long = "data.*.facility.address.street → street, data.*.id → facility_id"
    plan = _plan({"id": "a", "tool": "facilities_list"},
                 {"id": "b", "tool": "say", "params": {"street": "${step[0].data.*.facility.address.street}",
                                                       "facility_id": "${step[0].data.*.id}"}, "depends_on": ["a"]})
    data = graph_data(plan)
    [edge] = data["edges"]
    assert len(edge["label"]) <= EDGE_LABEL_CHARS and edge["label"].endswith("…") and len(long) > EDGE_LABEL_CHARS
    assert data["options"]["layout"]["hierarchical"]["levelSeparation"] == layout_spacing(
        [html.unescape(n["label"]) for n in data["nodes"]], [edge["label"]])[0]
    # Edge labels sit on their own white box: the edge never crosses them.
    assert data["options"]["edges"]["font"]["background"] == "#ffffff"


def test_a_plan_past_50_steps_offers_an_overview_and_jump_to_step(app: AppTest) -> None:
    make_plan(app)
    steps = [{"id": f"s{i}", "tool": "say", "params": {"message": f"step {i}"},
              "depends_on": [f"s{i - 1}"] if i else []} for i in range(OVERVIEW_STEPS + 1)]
    edit_json(app, plan_text(steps))
    [data] = drawn_graphs(app)
    assert data["overview"] is True
    jump = app.selectbox(key=JUMP_KEY)
    assert jump.value is None and jump.options[7] == "7 · say · s7"
    jump.select("s42").run()
    no_failures(app)
    assert app.session_state[Keys.EDITOR_SELECTED] == "s42"
    [data] = drawn_graphs(app)
    assert data["selected"] == "s42"

    edit_json(app, plan_text(steps[:OVERVIEW_STEPS]))
    [data] = drawn_graphs(app)
    assert data["overview"] is False
    assert not [s for s in app.selectbox if s.key == JUMP_KEY]

import json

import pytest

from core import Plan, PlanFormatError, Step, dump_plan, load_plan
from core.formats import plan_from_seed, plan_to_seed

SEED = {
    "steps": [
        {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
        {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0],
         "parallel": False},
    ],
    "metadata": {"goal": "Get shipments of Berlin facilities", "planner": "embedded", "today": "2025-10-12"},
}


def test_seed_round_trip_is_exact():
    plan = load_plan(json.dumps(SEED), "seed")
    assert [s.id for s in plan.steps] == ["s1", "s2"]
    assert plan.steps[1].depends_on == ["s1"]
    assert plan.goal == SEED["metadata"]["goal"] and str(plan.metadata.today) == "2025-10-12"
    out = plan_to_seed(plan)
    assert out["steps"] == SEED["steps"]
    assert load_plan(dump_plan(plan, "seed"), "seed") == plan


def test_native_round_trip_keeps_ids_notes_and_locks():
    plan = Plan(goal="g", steps=[Step(id="a", tool="t", note="why", locked=True),
                                 Step(id="b", tool="t", params={"x": "${step[0].count}"})])
    assert load_plan(dump_plan(plan, "native"), "native") == plan


def test_native_json_writes_optional_step_fields_only_when_set():
    plan = Plan(goal="Café", steps=[Step(id="a", tool="t", note="why", locked=True, result_key="R"),
                                    Step(id="b", tool="t")])
    text = dump_plan(plan, "native")
    first, second = json.loads(text)["steps"]
    assert (first["note"], first["locked"], first["result_key"]) == ("why", True, "R")
    assert "format_data" not in first
    assert set(second) == {"id", "tool", "params", "depends_on", "parallel"}
    assert '"goal": "Café"' in text  # written as typed, not as \u escapes
    assert load_plan(text, "native") == plan


def test_references_imply_dependencies_and_export_them():
    plan = plan_from_seed({"steps": [{"tool": "a", "params": {}},
                                     {"tool": "b", "params": {"ids": "${step[0].data.*.id}"}}]})
    assert plan.steps[1].depends_on == []
    assert plan.dependencies_of("s2") == ["s1"]
    assert plan.edges() == [("s1", "s2")]
    assert plan_to_seed(plan)["steps"][1]["depends_on"] == [0]


def test_duplicate_step_ids_are_refused():
    with pytest.raises(ValueError, match="step 1: id 'a' is used by an earlier step"):
        Plan(steps=[Step(id="a", tool="t"), Step(id="a", tool="t")])


@pytest.mark.parametrize("text, fragment", [
    ("{", "not valid JSON: Expecting property name enclosed in double quotes at line 1"),
    ('{"steps": {}}', "'steps' must be a list"),
    ('{"steps": [{"params": {}}]}', "steps[0].tool is missing"),
    ('{"steps": [{"tool": "a", "depends_on": ["x"]}]}', "steps[0].depends_on[0]: 'x' is not a step index"),
    ('{"steps": [{"tool": "a", "colour": 1}]}', "steps[0] has unknown fields: colour"),
    ("", "the text is empty"),
])
def test_seed_import_errors_name_the_place(text, fragment):
    with pytest.raises(PlanFormatError) as exc:
        load_plan(text, "seed")
    assert fragment in str(exc.value)


def test_native_import_error_names_the_field():
    with pytest.raises(PlanFormatError, match=r"steps.0.tool: Field required"):
        load_plan('{"goal": "g", "steps": [{"params": {}}]}', "native")


def test_a_plan_read_with_positions_leaves_the_callers_steps_as_they_were() -> None:
    from core import Step
    mine = Step(id="b", tool="t", params={"x": "${step[0].data}"})
    plan = Plan(steps=[Step(id="a", tool="t"), mine])
    assert plan.step("b").params == {"x": "${steps.a.data}"}
    assert mine.params == {"x": "${step[0].data}"}  # a copy was converted, not the caller's step

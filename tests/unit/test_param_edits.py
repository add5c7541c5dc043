"""Editing a step's fields by id: params, references (checked against the tools' schemas),
note and lock; ``check_param`` says what the step form shows on a field."""

from __future__ import annotations

import datetime as dt

import pytest

from core import (EditRefused, Executor, Plan, Settings, Step, StepStatus, Validator, add_step, check_param,
                  param_schema, reference_text, remove_param, set_locked, set_note, set_param, set_reference)
from tools import build_registry

TODAY = dt.date(2026, 3, 1)


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory):
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("edits"), today=TODAY), groups=["waste"])


def two_steps() -> Plan:
    return Plan(goal="g", steps=[Step(id="f", tool="facilities_list", params={"location": "Berlin"}),
                                 Step(id="s", tool="shipments_list")])


def test_example_seven_can_be_built_from_an_empty_plan_with_edits_alone(registry):
    """The issue's "done when", at the level of core: facilities in Berlin, then their
    shipments, then check for contaminants, without writing any JSON or reference text."""
    plan = Plan(goal="Get facilities in Berlin, then their shipments, then check for contaminants")
    plan, facilities = add_step(plan, "facilities_list", registry=registry)
    plan = set_param(plan, facilities, "location", "Berlin")
    plan, shipments = add_step(plan, "shipments_list", after=facilities, registry=registry)
    plan = set_reference(plan, shipments, "facility_id", facilities, "data.*.id", registry=registry)
    plan, contaminants = add_step(plan, "contaminants_list", registry=registry)
    plan = set_reference(plan, contaminants, "shipment_ids", shipments, "data.*.id", registry=registry)
    assert [s.params for s in plan.steps] == [{"location": "Berlin"},
                                             {"facility_id": f"${{steps.{facilities}.data.*.id}}"},
                                             {"shipment_ids": f"${{steps.{shipments}.data.*.id}}"}]
    assert Validator(registry).errors(plan) == []
    plan = set_param(plan, facilities, "location", "Hannover")  # change a filter
    run = Executor(registry).execute(plan)
    assert {s.status for s in run.steps.values()} == {StepStatus.succeeded}
    locations = {row["location"] for row in run.steps[facilities].result["data"]}
    assert locations == {"Hannover"}


def test_set_and_remove_param_and_the_old_plan_stays():
    plan = two_steps()
    changed = set_param(plan, "s", "limit", 5)
    assert changed.step("s").params == {"limit": 5} and plan.step("s").params == {}
    assert remove_param(changed, "s", "limit").step("s").params == {}
    assert remove_param(plan, "s", "absent") is plan


def test_set_param_refuses_what_no_plan_can_hold_naming_the_field():
    with pytest.raises(EditRefused, match=r"step 1 \(shipments_list\) · params.limit: .*not a JSON value"):
        set_param(two_steps(), "s", "limit", object())
    with pytest.raises(EditRefused, match="a param needs a name"):
        set_param(two_steps(), "s", " ", 1)
    with pytest.raises(EditRefused, match="no step with id 'x'"):
        set_param(two_steps(), "x", "limit", 1)


def test_set_param_stores_a_wrong_type_for_the_validator_and_check_param_names_it(registry):
    plan = set_param(two_steps(), "s", "limit", "10")
    [problem] = Validator(registry).errors(plan)
    assert (problem.step_id, problem.field) == ("s", "params.limit")
    assert check_param(registry, two_steps(), "s", "limit", "10") == "must be a whole number, not the text '10'"
    assert check_param(registry, two_steps(), "s", "limit", 0) == "must be at least 1 (got 0)"
    assert "is not one of the allowed values" in check_param(registry, two_steps(), "s", "status", "lost")
    assert check_param(registry, two_steps(), "s", "limit", 10) is None
    assert check_param(registry, two_steps(), "s", "date_from", "2026-02-01") is None
    assert "is not a parameter of this tool; did you mean 'limit'" in check_param(registry, two_steps(), "s", "limt", 1)


def test_check_param_reports_a_reference_to_a_missing_path_and_only_its_own_field(registry):
    plan = set_param(two_steps(), "f", "limit", "bad")  # another field's problem is not this one's
    assert check_param(registry, plan, "s", "facility_id", "${step[0].data.*.id}") is None
    message = check_param(registry, plan, "s", "facility_id", "${step[0].data.*.ident}")
    assert "facilities_list output cannot have this path" in message and "no field 'ident'" in message


def test_set_reference_writes_the_source_by_id(registry):
    plan = set_reference(two_steps(), "s", "facility_id", "f", "data.*.id", registry=registry)
    assert plan.step("s").params["facility_id"] == "${steps.f.data.*.id}"
    one = set_reference(two_steps(), "s", "facility_id", "f", "data[0].id", registry=registry)
    assert one.step("s").params["facility_id"] == "${steps.f.data[0].id}"
    assert reference_text("s3", "") == "${steps.s3}" and reference_text("a b", "[0].x") == '${steps["a b"][0].x}'


def test_a_picked_or_typed_reference_adds_its_step_to_depends_on_so_the_json_says_what_the_graph_draws(registry):
    plan = Plan(goal="g", steps=[Step(id="f", tool="facilities_list"), Step(id="x", tool="facilities_list"),
                                 Step(id="s", tool="shipments_list", depends_on=["x"])])
    picked = set_reference(plan, "s", "facility_id", "f", "data.*.id", registry=registry)
    assert picked.step("s").depends_on == ["x", "f"]  # kept first, added after
    assert sorted(picked.edges()) == [("f", "s"), ("x", "s")]  # the graph draws what depends_on lists
    again = set_reference(picked, "s", "facility_id", "f", "data.*.name", registry=registry)
    assert again.step("s").depends_on == ["x", "f"]  # never twice
    typed = set_param(plan, "s", "facility_id", "${step[0].data.*.id}")  # as a user types it: by position
    assert typed.step("s").depends_on == ["x", "f"]
    dangling = set_param(plan, "s", "facility_id", "${steps.nowhere.data}")
    assert dangling.step("s").depends_on == ["x"]  # an unknown step is the validator's to name
    literal = set_param(plan, "s", "limit", 3)
    assert literal.step("s").depends_on == ["x"]


@pytest.mark.parametrize("name, from_id, path, fragment", [
    ("facility_id", "f", "data.*.ident", "output cannot have the path 'data.*.ident': .data.* has no field 'ident' (it has: capacity_tonnes, id,"),
    ("facility_id", "f", "rows", "has no field 'rows' (it has: count, data)"),
    ("limit", "f", "data.*.id", "data.*.id of facilities_list is a list of strings, but limit takes an integer"),
    ("facility_id", "f", "data..id", "expected a field name"),
    ("facility", "f", "data.*.id", "shipments_list has no param 'facility'; did you mean 'facility_id'"),
    ("facility_id", "s", "data.*.id", "a step cannot use its own output"),
])
def test_set_reference_refuses_what_cannot_work(registry, name, from_id, path, fragment):
    with pytest.raises(EditRefused) as caught:
        set_reference(two_steps(), "s", name, from_id, path, registry=registry)
    assert fragment in str(caught.value)
    assert caught.value.step_ids[0] == "s" and caught.value.fields == [f"params.{name}"]


def test_set_reference_refuses_a_later_source_and_a_cycle(registry):
    with pytest.raises(EditRefused, match=r"step 1 \(shipments_list\) comes later"):
        set_reference(two_steps(), "f", "location", "s", "data[0].destination", registry=registry)
    looped = Plan(steps=[Step(id="f", tool="facilities_list", depends_on=["s"]), Step(id="s", tool="shipments_list")])
    with pytest.raises(EditRefused, match=r"cycle: step 0 \(facilities_list\) → step 1 \(shipments_list\) → step 0"):
        set_reference(looped, "s", "facility_id", "f", "data.*.id", registry=registry)


def test_note_and_lock():
    plan = set_note(two_steps(), "f", "only Berlin")
    assert plan.step("f").note == "only Berlin"
    assert set_note(plan, "f", "   ").step("f").note is None
    assert set_locked(plan, "f", True).step("f").locked is True
    with pytest.raises(EditRefused, match="locked is true or false, not 'yes'"):
        set_locked(plan, "f", "yes")  # type: ignore[arg-type]
    with pytest.raises(EditRefused, match="a note is text, not int"):
        set_note(plan, "f", 3)  # type: ignore[arg-type]


def test_param_schema_carries_its_defs(registry):
    schema = param_schema(registry, "shipments_list", "status")
    assert schema is not None and "pending" in str(schema)
    assert param_schema(registry, "shipments_list", "nope") is None
    assert param_schema(registry, "nope", "status") is None


def test_check_param_reports_a_reference_to_itself_or_a_later_step(registry):
    assert "refers to itself" in check_param(registry, two_steps(), "s", "facility_id", "${step[1].data.*.id}")
    assert "which comes later" in check_param(registry, two_steps(), "f", "location", "${step[1].data[0].destination}")
    assert "has no closing '}'" in check_param(registry, two_steps(), "s", "facility_id", "${step[0].data.")

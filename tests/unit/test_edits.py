"""Structural plan edits by step id: references name their step by id, so an edit that
changes positions leaves every other step's params as they were, and an edit that would break the plan is refused naming the steps and fields."""

from __future__ import annotations

from typing import Any

import pytest

from core import (EditRefused, Plan, Step, add_dependency, add_step, delete_step, dependents_of, duplicate_step,
                  edge_between, move_step, remove_dependency, steps_deleted_with)


def chain_plan() -> Plan:
    """a → b → c by references, d stands alone, e depends on a explicitly."""
    return Plan(goal="g", steps=[
        Step(id="a", tool="facilities_list", params={"location": "Berlin"}),
        Step(id="b", tool="shipments_list", params={"facility_id": "${step[0].data.*.id}"}),
        Step(id="c", tool="contaminants_list",
             params={"shipment_ids": "${step[1].data.*.id}", "note": "from ${step[0].count} sites"}),
        Step(id="d", tool="inspections_list", params={"limit": 3}),
        Step(id="e", tool="say", params={"message": "done"}, depends_on=["a"]),
    ])


def targets(plan: Plan) -> dict[tuple[str, str], list[str]]:
    """(step id, param) → the ids its references name, in order."""
    out = {}
    for step in plan.steps:
        for name, ref in step.readable_references():
            out.setdefault((step.id, name), []).append(ref.step)
    return out


def ids(plan: Plan) -> list[str]:
    return [s.id for s in plan.steps]


# -- add -----------------------------------------------------------------------------------

def test_add_step_at_the_end_and_after_a_step_keeps_references_on_their_steps():
    plan = chain_plan()
    before = targets(plan)
    at_end, new_id = add_step(plan, "say", params={"message": "hi"})
    assert ids(at_end) == [*ids(plan), new_id] and at_end.step(new_id).params == {"message": "hi"}
    first, other = add_step(plan, "say", after="a")
    assert ids(first) == ["a", other, "b", "c", "d", "e"]
    assert targets(first) == before
    assert first.step("c").params == plan.step("c").params == {
        "shipment_ids": "${steps.b.data.*.id}", "note": "from ${steps.a.count} sites"}


def test_add_step_params_name_steps_by_id():
    plan, new_id = add_step(chain_plan(), "say", params={"message": "${steps.b.count}"}, after="a")
    assert targets(plan)[(new_id, "message")] == ["b"]


def test_add_step_refuses_an_unknown_tool_when_given_the_registry():
    from toy_tools import toy_registry

    with pytest.raises(EditRefused, match="unknown tool 'site_list'; did you mean 'sites_list'"):
        add_step(chain_plan(), "site_list", registry=toy_registry())
    with pytest.raises(EditRefused, match="no step with id 'zz'"):
        add_step(chain_plan(), "say", after="zz")
    with pytest.raises(EditRefused, match="params must be an object"):
        add_step(chain_plan(), "say", params=["x"])  # type: ignore[arg-type]


def test_a_dangling_reference_stays_dangling_when_a_step_is_added():
    plan = Plan(steps=[Step(id="a", tool="t", params={"x": "${step[3].id}"}), Step(id="b", tool="t")])
    grown, _ = add_step(plan, "t")
    grown, _ = add_step(grown, "t")
    assert len(grown.steps) == 4
    assert grown.step("a").params["x"] == '${steps["step[3]"].id}'  # dangling, not the new step


# -- dependents and delete ---------------------------------------------------------------

def test_dependents_of_lists_references_and_depends_on_by_field():
    plan = chain_plan()
    found = dependents_of(plan, "a")
    assert [(d.step_id, d.kind, d.fields) for d in found] == [
        ("b", "reference", ("params.facility_id",)),
        ("c", "reference", ("params.note",)),
        ("e", "depends_on", ("depends_on",)),
    ]
    assert found[0].describe(plan) == "step 1 (shipments_list) uses its output in params.facility_id"
    assert dependents_of(plan, "d") == []
    assert steps_deleted_with(plan, "a") == ["a", "b", "c", "e"]
    assert steps_deleted_with(plan, "b") == ["b", "c"]


def test_a_malformed_reference_still_counts_as_needing_its_step():
    plan = Plan(steps=[Step(id="a", tool="t"), Step(id="b", tool="t", params={"x": "${step[0].data."})])
    assert [d.step_id for d in dependents_of(plan, "a")] == ["b"]
    with pytest.raises(EditRefused):
        delete_step(plan, "a")


def test_deleting_a_step_others_need_is_refused_naming_them():
    plan = chain_plan()
    with pytest.raises(EditRefused) as caught:
        delete_step(plan, "a")
    message = str(caught.value)
    assert "cannot delete step 0 (facilities_list)" in message
    assert "step 1 (shipments_list) uses its output in params.facility_id" in message
    assert "step 4 (say) depends on it" in message
    assert caught.value.step_ids == ["b", "c", "e"]
    assert caught.value.fields == ["params.facility_id", "params.note", "depends_on"]


def test_delete_unlink_removes_the_links_and_leaves_the_rest():
    plan = delete_step(chain_plan(), "a", dependents="unlink")
    assert ids(plan) == ["b", "c", "d", "e"]
    assert plan.step("b").params == {}
    assert plan.step("c").params == {"shipment_ids": "${steps.b.data.*.id}"}
    assert plan.step("e").depends_on == []
    assert targets(plan) == {("c", "shipment_ids"): ["b"]}


def test_delete_with_dependents_deletes_them_recursively():
    plan = delete_step(chain_plan(), "b", dependents="delete")
    assert ids(plan) == ["a", "d", "e"]
    assert plan.step("e").depends_on == ["a"]


def test_deleting_or_moving_a_step_leaves_every_other_step_as_it_was():
    # Before ids, each of these rewrote the references of every later step.
    plan = Plan(steps=[Step(id="x", tool="t"), Step(id="a", tool="t"),
                       *(Step(id=f"s{n}", tool="t", params={"p": "${step[1].v}", "q": f"${{step[{n - 1}].w}}"})
                         for n in range(3, 30))])
    for edited in (delete_step(plan, "x"), move_step(plan, "x", 28), duplicate_step(plan, "a")[0],
                   add_step(plan, "t", after="x")[0]):
        kept = [s for s in plan.steps if s.id in {e.id for e in edited.steps}]
        assert [edited.step(s.id).params for s in kept] == [s.params for s in kept]


def test_delete_rejects_an_unknown_choice_and_an_unknown_step():
    with pytest.raises(EditRefused, match="dependents must be"):
        delete_step(chain_plan(), "d", dependents="cascade")  # type: ignore[arg-type]
    with pytest.raises(EditRefused, match="no step with id 'nope'"):
        delete_step(chain_plan(), "nope")


# -- duplicate and move ------------------------------------------------------------------

def test_duplicate_places_a_copy_after_the_original_naming_the_same_sources():
    plan = chain_plan()
    copy_plan, copy_id = duplicate_step(plan, "b")
    assert ids(copy_plan) == ["a", "b", copy_id, "c", "d", "e"]
    assert targets(copy_plan)[(copy_id, "facility_id")] == ["a"]
    assert targets(copy_plan)[("c", "shipment_ids")] == ["b"], "c still uses the original"
    assert copy_plan.step(copy_id).tool == "shipments_list"


def test_duplicate_does_not_copy_lock_or_output_names():
    plan = Plan(steps=[Step(id="a", tool="t", locked=True, note="n", format_data={"sk": {"output_var": "V"}},
                            result_key="k")])
    copy = duplicate_step(plan, "a")[0].steps[1]
    assert (copy.locked, copy.note, copy.format_data, copy.result_key) == (False, "n", {}, None)


def test_move_step_keeps_references_as_they_are():
    plan = chain_plan()
    moved = move_step(plan, "d", 0)
    assert ids(moved) == ["d", "a", "b", "c", "e"]
    assert targets(moved) == targets(plan)
    assert moved.step("b").params["facility_id"] == "${steps.a.data.*.id}"
    assert move_step(plan, "d", 3) is plan


def test_move_before_a_source_or_after_a_user_is_refused():
    plan = chain_plan()
    with pytest.raises(EditRefused) as caught:
        move_step(plan, "c", 1)
    assert "step 2 (contaminants_list) uses the output of step 1 (shipments_list) in params.shipment_ids" in str(caught.value)
    assert caught.value.step_ids == ["c", "b"]
    with pytest.raises(EditRefused, match=r"step 1 \(shipments_list\) uses the output of step 0"):
        move_step(plan, "a", 3)
    with pytest.raises(EditRefused, match="positions go from 0 to 4"):
        move_step(plan, "a", 5)
    with pytest.raises(EditRefused, match="positions go from 0 to 4"):
        move_step(plan, "a", True)  # type: ignore[arg-type]


# -- dependencies -------------------------------------------------------------------------

def test_add_dependency_adds_an_id_and_ignores_an_existing_edge():
    plan = chain_plan()
    linked = add_dependency(plan, "d", "b")
    assert linked.step("b").depends_on == ["d"]
    assert ("d", "b") in linked.edges()
    assert add_dependency(plan, "a", "b") is plan  # b already references a


def test_a_dependency_that_would_close_a_cycle_is_refused_naming_the_cycle():
    plan = chain_plan()
    with pytest.raises(EditRefused) as caught:
        add_dependency(plan, "c", "a")
    assert str(caught.value) == ("step 0 (facilities_list) cannot depend on step 2 (contaminants_list): "
                                 "that would make a cycle: step 2 (contaminants_list) → step 0 (facilities_list) → "
                                 "step 2 (contaminants_list)")
    assert caught.value.step_ids == ["c", "a"]
    with pytest.raises(EditRefused, match="cycle: step 2 .* → step 1 .* → step 2"):
        add_dependency(plan, "c", "b")
    with pytest.raises(EditRefused, match="cannot depend on itself"):
        add_dependency(plan, "a", "a")


def test_a_longer_cycle_through_depends_on_is_named_step_by_step():
    plan = Plan(steps=[Step(id="x", tool="t"), Step(id="y", tool="t", depends_on=["x"]),
                       Step(id="z", tool="t", depends_on=["y"])])
    with pytest.raises(EditRefused, match=r"cycle: step 2 \(t\) → step 0 \(t\) → step 1 \(t\) → step 2 \(t\)"):
        add_dependency(plan, "z", "x")


def test_remove_dependency_removes_the_entry_and_the_referencing_params():
    plan = chain_plan()
    assert [d.fields for d in edge_between(plan, "a", "c")] == [("params.note",)]
    cut = remove_dependency(plan, "a", "c")
    assert cut.step("c").params == {"shipment_ids": "${steps.b.data.*.id}"}
    assert ("a", "c") not in cut.edges()
    assert remove_dependency(plan, "a", "e").step("e").depends_on == []
    with pytest.raises(EditRefused, match=r"step 3 \(inspections_list\) does not depend on step 0"):
        remove_dependency(plan, "a", "d")


def test_edits_leave_the_original_plan_untouched():
    plan = chain_plan()
    before: dict[str, Any] = plan.model_dump()
    delete_step(plan, "a", dependents="unlink")
    move_step(plan, "d", 0)
    remove_dependency(plan, "a", "c")
    add_dependency(plan, "d", "b")
    duplicate_step(plan, "b")
    assert plan.model_dump() == before

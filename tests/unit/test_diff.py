"""Comparing two versions of a plan: added, removed and changed steps, param by param, and
changed edges; steps matched by id, and by content or tool when a re-plan gave new ids."""

from __future__ import annotations

from core import (Plan, Step, add_dependency, add_step, delete_step, diff_plans, move_step, set_locked, set_note,
                  set_param)


def base() -> Plan:
    return Plan(goal="g", steps=[
        Step(id="a", tool="facilities_list", params={"location": "Berlin"}),
        Step(id="b", tool="shipments_list", params={"facility_id": "${step[0].data.*.id}"}),
        Step(id="c", tool="contaminants_list", params={"shipment_ids": "${step[1].data.*.id}"}),
    ])


def test_the_same_plan_has_no_changes():
    diff = diff_plans(base(), base())
    assert diff.is_empty and diff.summary() == "no changes" and diff.changed_step_ids() == set()


def test_a_changed_param_note_and_lock_are_listed_for_their_step():
    new = set_locked(set_note(set_param(base(), "a", "location", "Munich"), "a", "why"), "a", True)
    diff = diff_plans(base(), new)
    [change] = diff.changed
    assert (change.old_id, change.new_id, change.matched_by) == ("a", "a", "id")
    assert [str(p) for p in change.params] == ["location: 'Berlin' → 'Munich'"]
    assert change.note_changed and change.lock_changed
    assert diff.changed_step_ids() == {"a"}
    assert "~ facilities_list “why”: location: 'Berlin' → 'Munich'; note: None → 'why'; locked: False → True" in diff.summary()


def test_added_and_removed_params_and_a_type_change():
    new = set_param(set_param(base(), "a", "limit", 5), "a", "location", 1)
    [change] = diff_plans(base(), new).changed
    assert [(p.name, p.change) for p in change.params] == [("location", "changed"), ("limit", "added")]
    one = set_param(base(), "a", "limit", 1)
    assert [p.change for p in diff_plans(one, set_param(one, "a", "limit", True)).changed[0].params] == ["changed"]


def test_an_inserted_step_does_not_make_later_references_look_changed():
    new, added = add_step(base(), "say", after=None)
    new, early = add_step(new, "say", after="a")
    diff = diff_plans(base(), new)
    assert diff.added == [early, added] and diff.changed == [] and diff.removed == []
    assert diff.changed_step_ids() == {early, added}


def test_a_removed_step_and_its_edges():
    new = delete_step(base(), "b", dependents="unlink")
    diff = diff_plans(base(), new)
    assert diff.removed == ["b"]
    assert [(e.from_id, e.to_id, e.change) for e in diff.edges] == [("a", "b", "removed"), ("b", "c", "removed")]
    [change] = diff.changed
    assert change.new_id == "c" and str(change.params[0]) == "shipment_ids removed (was '${steps.b.data.*.id}')"
    assert "- shipments_list · b" in diff.summary()
    assert "- edge facilities_list · a → shipments_list · b (removed)" in diff.summary()


def test_an_added_dependency_is_an_added_edge_and_a_depends_on_change():
    new = add_dependency(base(), "a", "c")
    diff = diff_plans(base(), new)
    assert [(e.from_id, e.to_id, e.change) for e in diff.edges] == [("a", "c", "added")]
    assert [f.name for f in diff.changed[0].fields] == ["depends_on"]


def test_a_moved_step_is_marked_moved_and_only_it():
    plan = Plan(steps=[Step(id=i, tool="t") for i in "wxyz"])
    diff = diff_plans(plan, move_step(plan, "z", 0))
    assert [(c.new_id, c.moved) for c in diff.changed] == [("z", True)]


def test_a_replan_with_new_ids_is_matched_by_content_then_by_tool():
    replanned = Plan(goal="g", steps=[
        Step(id="n1", tool="facilities_list", params={"location": "Hannover"}),
        Step(id="n2", tool="shipments_list", params={"facility_id": "${step[0].data.*.id}"}),
        Step(id="n3", tool="inspections_list", params={}),
    ])
    diff = diff_plans(base(), replanned)
    assert diff.matches == {"a": "n1", "b": "n2"}
    assert [(c.old_id, c.new_id, c.matched_by) for c in diff.changed] == [("a", "n1", "tool")]
    assert [str(p) for p in diff.changed[0].params] == ["location: 'Berlin' → 'Hannover'"]
    assert diff.added == ["n3"] and diff.removed == ["c"]
    assert diff.changed_step_ids() == {"n1", "n3"}


def test_content_matching_follows_references_by_step_not_position():
    replanned = Plan(goal="g", steps=[
        Step(id="x", tool="say", params={"message": "first"}),
        Step(id="n1", tool="facilities_list", params={"location": "Berlin"}),
        Step(id="n2", tool="shipments_list", params={"facility_id": "${step[1].data.*.id}"}),
    ])
    diff = diff_plans(base(), replanned)
    assert diff.matches == {"a": "n1", "b": "n2"}
    assert diff.changed == [] and diff.added == ["x"] and diff.removed == ["c"]


def test_a_changed_goal_is_reported():
    new = base().model_copy(update={"goal": "other"})
    diff = diff_plans(base(), new)
    assert not diff.is_empty and diff.goal == ("g", "other") and "goal: 'g' → 'other'" in diff.summary()


def test_a_step_deleted_and_another_of_its_tool_added_reads_as_a_change():
    """The decision for the tool pass: replacing a step with another call of the same tool
    is shown param by param, as the reader thinks of it, rather than as a removal and an add."""
    plan = Plan(steps=[Step(id="a", tool="facilities_list", params={"location": "Berlin"})])
    new, added = add_step(delete_step(plan, "a"), "facilities_list", params={"location": "Munich"})
    [change] = diff_plans(plan, new).changed
    assert (change.old_id, change.new_id, change.matched_by) == ("a", added, "tool")
    assert diff_plans(plan, new).added == [] and diff_plans(plan, new).removed == []

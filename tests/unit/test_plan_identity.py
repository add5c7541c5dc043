"""A plan's content identity: what runs, and apart from it the review notes (notes, locks)."""

import pytest

import core.plan._identity as identity_module
from core import Plan, PlanIdentity, Step, plan_identity, set_locked, set_note


def _plan() -> Plan:
    return Plan(goal="list and say", steps=[
        Step(id="a", tool="list_items", params={"limit": 3}),
        Step(id="b", tool="say", params={"message": "${step[0].items}"}, depends_on=["a"]),
    ])


def test_the_same_content_has_the_same_identity():
    plan = _plan()
    assert plan_identity(plan) == plan_identity(_plan()) == plan_identity(Plan.model_validate_json(plan.model_dump_json()))
    assert isinstance(plan_identity(plan), PlanIdentity)


@pytest.mark.parametrize("edit", [set_note, set_locked])
def test_notes_and_locks_change_the_review_not_what_runs(edit):
    plan = _plan()
    edited = edit(plan, "b", "why" if edit is set_note else True)
    assert plan_identity(edited).runs == plan_identity(plan).runs
    assert plan_identity(edited).review != plan_identity(plan).review


@pytest.mark.parametrize("change", [
    lambda p: p.model_copy(update={"goal": "another goal"}),
    lambda p: p.model_copy(update={"steps": [p.steps[0].model_copy(update={"params": {"limit": 4}}), p.steps[1]]}),
    lambda p: p.model_copy(update={"steps": [p.steps[0].model_copy(update={"tool": "other"}), p.steps[1]]}),
    lambda p: p.model_copy(update={"steps": [p.steps[0], p.steps[1].model_copy(update={"depends_on": []})]}),
    lambda p: p.model_copy(update={"steps": [p.steps[0].model_copy(update={"parallel": True}), p.steps[1]]}),
    lambda p: p.model_copy(update={"steps": [p.steps[0].model_copy(update={"id": "z"}), p.steps[1]]}),
    lambda p: p.model_copy(update={"steps": [p.steps[1], p.steps[0]]}),
], ids=["goal", "param", "tool", "dependency", "parallel", "step id", "order"])
def test_what_runs_changes_the_runs_identity(change):
    plan = _plan()
    assert plan_identity(change(plan)).runs != plan_identity(plan).runs


def test_worked_out_once_per_plan_object(monkeypatch):
    made = []
    real = identity_module._identity
    monkeypatch.setattr(identity_module, "_identity", lambda plan: made.append(plan) or real(plan))
    plan = _plan()
    first = plan_identity(plan)
    assert plan_identity(plan) is first and len(made) == 1
    copy = plan.model_copy(update={"goal": "changed"})  # a new object: its own identity, not the cached one
    assert plan_identity(copy).runs != first.runs and len(made) == 2


def test_the_identity_is_kept_on_the_plan_not_in_a_module_store():
    # The plan is a value, so its identity is a cached property of the plan: nothing is kept
    # beside it (this replaced an id()/weakref table, which had to drop collected plans).
    plan = _plan()
    assert plan.identity is plan_identity(plan) is plan.identity
    assert not [name for name, value in vars(identity_module).items()
                if isinstance(value, (dict, list, set)) and not name.startswith("__") and name != "_REVIEW_ONLY"]
    assert "identity" not in plan.model_dump() and Plan.model_validate(plan.model_dump()) == plan


def test_a_copy_without_changes_keeps_the_identity_and_a_deep_copy_too():
    plan = _plan()
    first = plan.identity
    assert plan.model_copy().identity == first and plan.model_copy(deep=True).identity == first
    assert plan.model_copy(update={"steps": plan.steps[:1]}, deep=True).identity != first

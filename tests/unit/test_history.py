"""Undo and redo of plan edits."""

from __future__ import annotations

import datetime as dt
import pickle

import pytest

from core import PlanError, EditHistory, Plan, PlanMetadata, Step, add_step, set_note

WHEN = PlanMetadata(created_at=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc), today=dt.date(2026, 1, 1))


def plan_with(n: int) -> Plan:
    return Plan(goal=f"goal {n}", steps=[Step(id=f"s{i}", tool="t") for i in range(n)], metadata=WHEN)


def test_undo_and_redo_walk_the_edits_with_their_labels():
    history = EditHistory(plan_with(0))
    assert not history.can_undo and not history.can_redo and history.undo() is None
    one, _ = add_step(history.current, "t")
    history.push(one, "add step")
    two = set_note(one, one.steps[0].id, "why")
    history.push(two, "note on step 0")
    assert history.undo_label == "note on step 0" and history.redo_label is None
    assert history.undo() == one
    assert history.redo_label == "note on step 0" and history.undo_label == "add step"
    assert history.undo() == plan_with(0)
    assert history.undo() is None
    assert history.redo() == one
    assert history.redo() == two
    assert history.redo() is None


def test_pushing_after_undo_drops_the_redo_branch():
    history = EditHistory(plan_with(1))
    history.push(plan_with(2), "two")
    history.undo()
    history.push(plan_with(3), "three")
    assert not history.can_redo
    assert history.labels() == ["opened", "three"]


def test_pushing_the_same_plan_again_adds_no_undo_step():
    history = EditHistory(plan_with(1))
    assert history.push(plan_with(1), "rerun") is False
    assert history.undo_depth == 0


def test_at_least_fifty_levels_and_the_oldest_are_forgotten_past_the_cap():
    history = EditHistory(plan_with(0))
    for n in range(1, 121):
        history.push(plan_with(n), f"edit {n}")
    assert history.undo_depth == 100
    for _ in range(100):
        assert history.undo() is not None
    assert history.current == plan_with(20)
    assert history.undo() is None

    small = EditHistory(plan_with(0), levels=50)
    for n in range(1, 61):
        small.push(plan_with(n), f"edit {n}")
    assert small.undo_depth == 50


def test_history_is_safe_from_later_changes_to_a_pushed_plan_and_pickles():
    plan = plan_with(1)
    history = EditHistory(plan)
    plan.steps[0].params["x"] = 1  # an editor changing its plan in place
    assert history.current.steps[0].params == {}
    assert pickle.loads(pickle.dumps(history)).current == history.current


def test_reset_forgets_everything():
    history = EditHistory(plan_with(1))
    history.push(plan_with(2), "two")
    history.reset(plan_with(5), "opened other")
    assert (history.can_undo, history.can_redo, history.labels()) == (False, False, ["opened other"])


def test_bad_input_is_refused():
    with pytest.raises(PlanError, match="at least 1"):
        EditHistory(levels=0)
    with pytest.raises(PlanError, match="records plans, not dict"):
        EditHistory().push({"steps": []}, "x")  # type: ignore[arg-type]
    assert EditHistory().current is None

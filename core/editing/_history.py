"""Undo and redo for plan edits: a line of (plan, label) states and a cursor.

Plans are kept as their JSON data, not as objects: the editor keeps the history in its
session across reruns, and an object it later changes in place must not change the past.
Each label names the edit that led to its state, so the Undo button can say "Undo delete
step 2" and Redo what it would bring back.
"""

from __future__ import annotations

from typing import Any

from .._errors import PlanError
from ..plan._model import Plan

__all__ = ["EditHistory", "DEFAULT_HISTORY_LEVELS"]

DEFAULT_HISTORY_LEVELS = 100


class EditHistory:
    """Undo/redo over plans. ``push`` records the plan after an edit; ``undo`` and ``redo``
    return the plan to show (``None`` when there is nothing to undo or redo). At most
    ``levels`` edits can be undone; older ones are forgotten. Pushing after an undo drops
    what could have been redone, as every editor does."""

    def __init__(self, plan: Plan | None = None, label: str = "opened", *,
                 levels: int = DEFAULT_HISTORY_LEVELS) -> None:
        if isinstance(levels, bool) or not isinstance(levels, int) or levels < 1:
            raise PlanError(f"history levels must be a whole number of at least 1, not {levels!r}")
        self.levels = levels
        self._states: list[tuple[dict[str, Any], str]] = []
        self._cursor = -1
        if plan is not None:
            self.reset(plan, label)

    def reset(self, plan: Plan, label: str = "opened") -> None:
        """Start over from ``plan``: nothing to undo or redo (another plan was opened)."""
        self._states = [(_data(plan), label)]
        self._cursor = 0

    def push(self, plan: Plan, label: str) -> bool:
        """Record ``plan`` as the result of the edit ``label``; ``False`` (nothing recorded)
        when it equals the current plan, so a rerun that pushes again adds no undo step."""
        data = _data(plan)
        if self._cursor >= 0 and self._states[self._cursor][0] == data:
            return False
        del self._states[self._cursor + 1:]
        self._states.append((data, label))
        if len(self._states) > self.levels + 1:
            del self._states[:len(self._states) - self.levels - 1]
        self._cursor = len(self._states) - 1
        return True

    @property
    def current(self) -> Plan | None:
        return _plan(self._states[self._cursor][0]) if self._cursor >= 0 else None

    @property
    def can_undo(self) -> bool:
        return self._cursor > 0

    @property
    def can_redo(self) -> bool:
        return 0 <= self._cursor < len(self._states) - 1

    @property
    def undo_label(self) -> str | None:
        """The edit ``undo`` reverts, for the Undo button's tooltip."""
        return self._states[self._cursor][1] if self.can_undo else None

    @property
    def redo_label(self) -> str | None:
        """The edit ``redo`` brings back, for the Redo button's tooltip."""
        return self._states[self._cursor + 1][1] if self.can_redo else None

    @property
    def undo_depth(self) -> int:
        """How many edits can be undone now."""
        return max(self._cursor, 0)

    def undo(self) -> Plan | None:
        if not self.can_undo:
            return None
        self._cursor -= 1
        return self.current

    def redo(self) -> Plan | None:
        if not self.can_redo:
            return None
        self._cursor += 1
        return self.current

    def labels(self) -> list[str]:
        """Every recorded edit's label, oldest first (the first is where the history starts)."""
        return [label for _data_, label in self._states]


def _data(plan: Plan) -> dict[str, Any]:
    if not isinstance(plan, Plan):
        raise PlanError(f"the history records plans, not {type(plan).__name__}")
    return plan.model_dump(mode="json")


def _plan(data: dict[str, Any]) -> Plan:
    return Plan.model_validate(data)

"""What every planner offers, so the studio and the CLI can swap them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .._errors import PlannerError
from .._limits import shown
from ..plan._model import Plan


@dataclass(frozen=True)
class PlanContext:
    """The previous turn in the same session, for goals like "the same for <city>"."""

    previous_goal: str
    previous_plan: Plan


@runtime_checkable
class Planner(Protocol):
    name: str

    def plan(self, goal: str, *, today: dt.date, context: PlanContext | None = None) -> Plan:
        """A plan for ``goal``; raises ``PlannerError`` when none can be made."""
        ...

    def replan(self, plan: Plan, feedback: str, *, today: dt.date) -> Plan:
        """A new version of ``plan`` changed as ``feedback`` asks; locked steps stay as they are."""
        ...


def no_step_left(feedback: str) -> PlannerError:
    """The refusal of a re-plan that would remove every step: an empty plan is no plan (it
    cannot be run, and every format but the native one has nothing to write)."""
    return PlannerError(f"{shown(feedback)!r} would leave the plan with no step, and a plan needs at "
                        "least one. The plan is unchanged; to start over, plan a new goal instead.")

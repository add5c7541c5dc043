"""What every planner offers, so the studio and the CLI can swap them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .._plan import Plan


@dataclass(frozen=True)
class PlanContext:
    """The previous turn in the same session, for goals like "the same for Munich"."""

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

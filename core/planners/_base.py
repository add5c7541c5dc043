"""What every planner offers, so the studio and the CLI can swap them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol, runtime_checkable

from .. import hooks
from .._errors import PlannerError
from .._limits import shown
from ..plan._model import Plan

if TYPE_CHECKING:  # pragma: no cover
    from ..llm import ModelClient
    from ..tooling._registry import ToolRegistry
    from .._settings import Settings


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


@dataclass(frozen=True)
class PlannerSpec:
    """A planner as a plugin gives it (the ``planners`` hook of ``core.hooks``): the name the
    ``planner`` setting holds, a label for the Settings page, and what makes the planner
    (``make(settings, registry, client)``; ``client`` a ``ModelClient`` to use, or None)."""

    name: str
    label: str
    make: Callable[["Settings", "ToolRegistry", "ModelClient | None"], Planner]
    description: str = ""


class ObservedPlanner:
    """A planner whose every plan is told to the plugins (``plan_created``, or ``plan_failed``
    when it raises instead); otherwise it is
    the planner it wraps: its attributes read through, and ``isinstance`` sees its class (as a
    ``unittest.mock`` with a spec does)."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # noqa: D105
        return type(self.planner)

    @property
    def name(self) -> str:
        return self.planner.name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.planner, attribute)

    def plan(self, goal: str, *, today: dt.date, context: PlanContext | None = None) -> Plan:
        started_at = dt.datetime.now(dt.timezone.utc)
        try:
            plan = self.planner.plan(goal, today=today, context=context)
        except Exception as exc:
            hooks.notify("plan_failed", goal=goal, planner=self.name, error=exc, started_at=started_at)
            raise
        hooks.notify("plan_created", plan=plan, goal=goal, planner=self.name, started_at=started_at)
        return plan

    def replan(self, plan: Plan, feedback: str, *, today: dt.date) -> Plan:
        started_at = dt.datetime.now(dt.timezone.utc)
        try:
            new = self.planner.replan(plan, feedback, today=today)
        except Exception as exc:
            hooks.notify("plan_failed", goal=plan.goal, planner=self.name, error=exc, started_at=started_at)
            raise
        hooks.notify("plan_created", plan=new, goal=new.goal, planner=self.name, started_at=started_at)
        return new

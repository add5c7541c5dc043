"""Running an experiment: every goal planned with the tools' own words and with the edited
ones, one ``GoalResult`` at a time.

``run_experiment`` is a generator: results come as each goal is done, so a caller shows
progress (each result says its ``index`` and the ``total``), keeps what came, and stops by
setting ``cancel`` (checked before every plan) or by no longer asking. A result holds only the
steps' tools and params and at most a few lines of differences, never the plans, so a set of
thousands of goals costs memory by its results' size alone.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterator

from .._errors import PlannerUnavailable, PlanStudioError
from .._limits import shown
from ..tooling._registry import ToolRegistry
from ..validation._validator import Validator
from ..planners import Planner
from ._compare import Match, StepSummary, match_expected, plan_changes, step_summaries
from ._edits import ensure_overrides
from ._experiment import Experiment, LabGoal

__all__ = ["GoalResult", "PlannerFactory", "VariantResult", "run_experiment"]

PlannerFactory = Callable[[ToolRegistry], Planner]
_MAX_PROBLEMS = 10


@dataclass(frozen=True)
class VariantResult:
    """One goal planned with one set of words."""

    steps: tuple[StepSummary, ...] = ()
    problems: tuple[str, ...] = ()  # the validator's, "step 2 params.x: ..."
    error: str | None = None  # why no plan was made
    match: Match | None = None  # against the expected plan, when there is one
    seconds: float = 0.0

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(step.tool for step in self.steps)

    @property
    def valid(self) -> bool:
        return self.error is None and not self.problems


@dataclass(frozen=True)
class GoalResult:
    index: int
    total: int
    goal: str
    original: VariantResult
    edited: VariantResult
    changes: tuple[str, ...]  # what the edited words' plan changes from the original's

    @property
    def differs(self) -> bool:
        return bool(self.changes)


def run_experiment(experiment: Experiment, registry: ToolRegistry, planner_for: PlannerFactory, *,
                   today: dt.date, validator: Validator | None = None,
                   cancel: threading.Event | None = None) -> Iterator[GoalResult]:
    """Each goal of ``experiment`` planned by ``planner_for(registry)`` and by
    ``planner_for(registry with the experiment's edits)``; ``DescriptionRefused`` before any
    goal when an edit would break the manual; ``PlannerUnavailable`` (no model configured) ends
    the run, as no goal could be planned; any other ``PlannerError`` is that goal's answer."""
    ensure_overrides(registry, experiment.overrides)
    edited_registry = registry.with_overrides(experiment.overrides)
    original_planner, edited_planner = planner_for(registry), planner_for(edited_registry)
    validator = validator or Validator(registry)
    total = len(experiment.goals)
    for index, goal in enumerate(experiment.goals):
        if cancel is not None and cancel.is_set():
            return
        original, old_steps = _plan(original_planner, goal, registry, validator, today)
        if cancel is not None and cancel.is_set():
            return
        edited, new_steps = _plan(edited_planner, goal, registry, validator, today)
        yield GoalResult(index, total, goal.goal, original, edited, plan_changes(old_steps, new_steps))


def _plan(planner: Planner, goal: LabGoal, registry: ToolRegistry, validator: Validator,
          today: dt.date) -> tuple[VariantResult, tuple[StepSummary, ...] | None]:
    began = time.perf_counter()
    try:
        plan = planner.plan(goal.goal, today=today)
    except PlannerUnavailable:
        raise  # no goal can be planned (no model configured): the run stops, saying why
    except PlanStudioError as exc:
        return VariantResult(error=shown(str(exc), 400), seconds=time.perf_counter() - began), None
    seconds = time.perf_counter() - began
    steps = step_summaries(plan, registry)
    problems = tuple(shown(str(p), 300) for p in validator.errors(plan)[:_MAX_PROBLEMS])
    match = None if goal.expected is None else match_expected(step_summaries(goal.expected, registry), steps)
    return VariantResult(steps, problems, None, match, seconds), steps

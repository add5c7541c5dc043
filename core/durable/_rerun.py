"""Which steps a retry or a rerun from a step runs again, computed before anything runs.

A rerun is a new run of the same plan version, linked to the run it came from. It runs the
chosen step and every step that depends on it, directly or through others (the plan's graph,
not "everything after it in the list"), and reuses the recorded result of every other step that
succeeded. A step with no result to reuse (it failed, was skipped, or never ran) runs again too.
A retry chooses the failed steps (and those cut off in doubt).

Not DBOS's ``fork_workflow``: it reuses a prefix of the workflow's step ids, so on a graph it
would also run again the later steps that do not depend on the chosen one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._errors import PlanStudioError, RehearsalRefused
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry
from ..run._model import Run, StepRun
from ..run._status import CUT_OFF, StepStatus
from ._effects import may_repeat_named

__all__ = ["WRITES_AGAIN", "RerunChoice", "named_step", "rerun_choice", "step_line"]


@dataclass(frozen=True)
class RerunChoice:
    """What a rerun of ``parent`` does: the steps it runs again, in plan order, and the recorded
    states it reuses."""

    parent: Run
    start: str | None  # the chosen step (the first of them, for a retry)
    again: list[str]
    reused: dict[str, StepRun] = field(repr=False)
    writes: frozenset[str] = frozenset()  # steps run again whose tools may write

    def describe(self) -> list[str]:
        """One line per step, as the CLI and the page show them before the rerun."""
        plan = self.parent.plan
        return [step_line(plan, step.id, again=step.id not in self.reused,
                          note=WRITES_AGAIN if step.id in self.writes else None) for step in plan.steps]


# What a line says of a step that runs again and whose tool may write.
WRITES_AGAIN = "writes: its effect happens again"


def step_line(plan: Plan, step_id: str, *, again: bool, note: str | None = None) -> str:
    """A step as a line before a resume or rerun shows it: whether it runs again, its number
    and tool, its id (``--from``, ``--again`` and ``--failed`` take either), and ``note``."""
    line = f"{'run again' if again else 'reuse':<9}  {plan.label(step_id)} [{step_id}]"
    return f"{line}  ({note})" if note else line


def named_step(run: Run, given: str) -> str:
    """The id of the step of ``run`` that ``given`` names: its id, or its number from 0."""
    ids = [s.id for s in run.plan.steps]
    if given in ids:
        return given
    if given.isdigit() and int(given) < len(ids):
        return ids[int(given)]
    raise PlanStudioError(f"run {run.id!r} has no step {given!r} (give a step id or its number, 0 to {len(ids) - 1})")


def rerun_choice(parent: Run, *, from_step: str | None = None, retry: bool = False,
                 registry: ToolRegistry | None = None) -> RerunChoice:
    """The rerun of ``parent`` from ``from_step`` (a step id or number), or its retry."""
    plan = parent.plan
    if parent.rehearsal is not None:  # its results stood in: reused, real steps would build on them
        raise RehearsalRefused(f"run {parent.id!r} is a rehearsal: its results are not reused by a real run; "
                               "rehearse the plan again, or run it for real")
    if retry:
        # Failed, or cut off (in doubt, say): the steps a retry is for.
        chosen = [s.id for s in plan.steps
                  if parent.steps[s.id].status == StepStatus.failed or parent.steps[s.id].status in CUT_OFF]
        if not chosen:
            raise PlanStudioError(f"run {parent.id!r} has no failed step to retry")
    elif from_step is not None:
        chosen = [named_step(parent, from_step)]
    else:
        raise PlanStudioError("choose a step to rerun from, or retry the failed steps")
    dependants: dict[str, list[str]] = {}
    for before, after in plan.edges():
        dependants.setdefault(before, []).append(after)
    again: set[str] = set()
    waiting = list(chosen)
    while waiting:
        step_id = waiting.pop()
        if step_id not in again:
            again.add(step_id)
            waiting.extend(dependants.get(step_id, ()))
    reused = {s.id: parent.steps[s.id].model_copy() for s in plan.steps
              if s.id not in again and parent.steps[s.id].status == StepStatus.succeeded}
    runs_again = [s.id for s in plan.steps if s.id not in reused]
    writes = frozenset(s.id for s in plan.steps if s.id in runs_again
                       and not may_repeat_named(registry, s.tool))
    return RerunChoice(parent=parent, start=chosen[0], again=runs_again, reused=reused, writes=writes)

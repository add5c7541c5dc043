"""A run a ``plan-studio worker`` holds, decided on or resumed from the studio (the page, the
review API, the MCP server): the decision goes to the worker that holds it, through DBOS
messages (``core.durable._holding``), since the studio may not have the worker's tools; and when
nobody can carry the run on (its worker gone and none other running, or, for a run of the
studio's own, tools it no longer has) the studio says so in words before anything is recorded.

    who = who_carries(services, run_id)       # how workers hold it; why nobody can, in words
    if who.nobody: refuse(who.nobody)
    ... record the decision ...
    handed_over(services, who)                # the worker reads the run again and goes on
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from core import CUT_OFF, Run

from ._services import Services
from ._durable_handle import durable_runs

if TYPE_CHECKING:
    from core.durable._holding import WorkerHold

__all__ = ["Carrier", "handed_over", "in_doubt_on_worker", "resume_on_worker", "who_carries"]

log = logging.getLogger("studio.runs")


@dataclass(frozen=True)
class Carrier:
    """Who carries a run on once it is decided or resumed: a worker (``hold``), or this studio
    (``hold`` None); ``nobody``: why no one can, in words."""

    hold: WorkerHold | None = None
    nobody: str | None = None

    @property
    def worker(self) -> bool:
        return self.hold is not None


def who_carries(services: Services, run_id: str, run: Run | None = None, *, tools: bool = True) -> Carrier:
    """Who would carry ``run_id`` on now: its worker (or another, taking it over), or the studio
    when no worker ever took it and (``tools``: checked here) the studio has its tools."""
    runs = durable_runs(services)
    try:
        hold = runs.worker_hold(run_id)
    except Exception as exc:  # the database away: said as such, never a traceback
        log.warning("could not tell who holds run %s: %s", run_id, exc)
        return Carrier(nobody=f"nobody can carry run {run_id} on now: the database cannot be read ({type(exc).__name__})")
    if hold is not None:
        return Carrier(hold, hold.nobody)
    lacking = runs.cannot_go_on(run_id, run) if tools else None
    if lacking is not None:
        return Carrier(nobody=f"nobody can carry run {run_id} on here: {lacking.removeprefix(f'run {run_id!r} ')}. "
                              "It goes on where its tools are: hand it to a `plan-studio worker` with them, or "
                              "start the studio with them (--tools, --mcp).")
    return Carrier()


def handed_over(services: Services, carrier: Carrier) -> str:
    """Tell the worker holding the run that its waiting steps were decided; who goes on, in words."""
    assert carrier.hold is not None
    durable_runs(services).hand_over(carrier.hold)
    return carrier.hold.carrier


def in_doubt_on_worker(run: Run) -> list[str]:
    """The steps of a worker's run that wait in doubt, as the worker marked them in the store (the
    studio may not know the worker's tools, so it does not judge them itself)."""
    from core.durable import IN_DOUBT

    return [step.id for step in run.plan.steps
            if run.steps[step.id].status in CUT_OFF and (run.steps[step.id].error or "").startswith(IN_DOUBT)]


def resume_on_worker(services: Services, run: Run, carrier: Carrier, decisions: Mapping[str, str]) -> str:
    """Send the decisions on a worker's steps in doubt to the part of the run that waits for them;
    what happened, in words. Raises ``ValueError`` (its text says why) when nothing is to be sent."""
    hold = carrier.hold
    assert hold is not None
    doubt = in_doubt_on_worker(run)
    undecided = [s for s in doubt if s not in decisions]
    if undecided:
        raise ValueError(f"{', '.join(run.plan.label(s) for s in undecided)} may have had its effect before the "
                         "run stopped; choose for each: run again or mark failed.")
    if not doubt or hold.workflow_id is None:
        raise ValueError(f"Run {run.id} is being carried on by {hold.carrier}: nothing here to resume.")
    runs = durable_runs(services)
    for step_id in doubt:
        runs.decide(run.id, step_id, decisions[step_id], workflow_id=hold.workflow_id)
    return hold.carrier

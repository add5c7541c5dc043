"""Carrying a stored run out in the caller's thread, for an interface that waits for it (the
command line's ``run``, ``resume`` and ``rerun``): the process's one durable engine
(``durable_runs``), the run registered with the runs live here while it goes (``Services.runs``),
and a rerun made by the same function the page's and the review API's reruns are.

    runs = durable_runs(services)
    run = new_plan_run(runs, plan, message="plan-studio run x.json")   # stored, its plan a version
    run = carry_out(services, runs, run.id, on_event=print)           # to its end (or a wait), here
    run = carry_out(services, runs, run_id, decisions={...}, resume=True)   # after its process stopped
    run = go_on_decided(services, runs, run, on_event=print)          # its waiting steps decided

How the caller waits (in its own thread, Ctrl-C) is the caller's; what a run is, and where it is
known to be live, is here.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager

from core import Event, Plan, Run, StepRun

from core.access import LOCAL_ACTOR, Actor

from ._services import Services

if TYPE_CHECKING:  # DBOS and SQLAlchemy are slow to import; the CLI starts without them
    from core.durable import DurableRuns

__all__ = ["carry_out", "go_on_decided", "new_plan_run", "new_rerun"]


class _CallersThread:
    """Stands for the caller's thread in the registry while it carries a run out."""

    def __init__(self) -> None:
        self.done = threading.Event()

    def join(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)


@contextmanager
def _carried(services: Services, run_id: str) -> Iterator[list[Run]]:
    """Registered as carried out here while the block runs; the run it ended with goes in the list."""
    from core.durable import RunStillGoing

    here, carrier, ended = services.runs, _CallersThread(), []
    if not here.carry(run_id, carrier):
        raise RunStillGoing(f"run {run_id!r} is being run in this process")
    try:
        yield ended
    finally:
        carrier.done.set()
        if ended:
            here.ended(ended[-1], carrier)
        else:  # cut short (Ctrl-C, an error): nothing to hold
            here.left(run_id, carrier)


def new_plan_run(runs: DurableRuns, plan: Plan, *, message: str) -> Run:
    """A new run of ``plan`` in the store (the plan saved as a version first); nothing runs yet.
    Raises ``PlanInvalid``."""
    return runs.new_run(plan, message=message)


def new_rerun(runs: DurableRuns, plan: Plan, *, plan_id: str, version: int, parent_id: str, start: str | None,
              reused: Mapping[str, StepRun]) -> Run:
    """A rerun of ``parent_id``: a new run of ``plan`` (version ``version`` of ``plan_id``), linked to
    its parent before it runs and seeded with the results it keeps (``core.durable.rerun_choice``).
    Whoever asks for a rerun (the page, the review API, the command line) makes it here."""
    return runs.new_run(plan, plan_id=plan_id, version=version, parent_id=parent_id, rerun_from=start,
                        seeded=reused)


def carry_out(services: Services, runs: DurableRuns, run_id: str, *, on_event: Callable[[Event], None] | None = None,
              resume: bool = False, decisions: Mapping[str, str] | None = None, actor: Actor = LOCAL_ACTOR,
              channel: str = "cli") -> Run:
    """Run the stored run ``run_id`` in this thread until it ends or stops waiting for a person;
    ``resume``: one whose process stopped (finished steps keep their results; ``decisions``
    answer its steps in doubt, else ``StepsInDoubt``). Raises ``RunStillGoing`` when it is
    carried out already, here or by a live process (or resumed by one: the claim on it names who).
    ``actor`` by ``channel`` carries it: the audit names them."""
    with _carried(services, run_id) as ended, runs.acting(run_id, actor, channel):
        if resume:
            ended.append(runs.resume(run_id, decisions=decisions, on_event=on_event))
        else:
            ended.append(runs.execute(run_id, on_event=on_event))
        return ended[-1]


def go_on_decided(services: Services, runs: DurableRuns, run: Run, decided: Iterable[str], *,
                  on_event: Callable[[Event], None] | None = None, actor: Actor = LOCAL_ACTOR,
                  channel: str = "cli") -> Run:
    """Carry on ``run``, stopped with steps waiting for a person, once they were decided (on its
    steps: ``decided``, those that waited): the decisions are stored with the run first, then it
    goes on in this thread."""
    for step_id in decided:
        services.store.records.step_finished(run.id, run.steps[step_id])
    with _carried(services, run.id) as ended, runs.acting(run.id, actor, channel):
        ended.append(runs.carry_on(run.id, on_event=on_event))
        return ended[-1]

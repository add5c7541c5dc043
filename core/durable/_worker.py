"""``plan-studio worker``: a process that takes runs from the shared queue (DBOS's queue on the
store's PostgreSQL), and takes over the runs of a worker that died.

DBOS hands a dead process's pending workflows only to a process launched with the same
executor id; a worker that is gone for good would keep its runs forever. So each worker writes
a sign of life every ``beat`` seconds (``run_worker``), and every worker looks for workers that
stopped writing (or, on its own host, whose process is gone): one of them claims the dead
worker (a conditional update only one wins), then puts each of its unfinished runs back on the
queue, where the atomic dequeue gives it to exactly one worker. The run replays: finished steps
come from their records and are not run again; a writing step cut off mid-call waits in doubt.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from typing import Any, Callable

from ..tooling._registry import ToolRegistry
from ..run._policy import RunLimits
from . import _runtime
from ._durable_runs import DurableRuns, executor_alive
from ._workflow import bound

__all__ = ["carry_on_after_outage", "serve_queue", "take_over_dead_workers"]

log = logging.getLogger("core.durable.worker")

_BEAT_SECONDS = 2.0
_SILENT_BEATS = 5  # a worker not seen for this many beats is taken to be dead


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def take_over_dead_workers(store: Any, *, silent_for: dt.timedelta) -> list[str]:
    """Put back on the queue the unfinished runs of workers that are dead; the run ids."""
    from dbos import DBOS

    me = _runtime.executor_id()
    pending = DBOS.list_workflows(status="PENDING", queue_name=_runtime.RUN_QUEUE)
    owners = {w.executor_id for w in pending if w.executor_id and w.executor_id != me}
    taken: list[str] = []
    for owner in sorted(owners):
        seen = store.records.worker_last_seen(owner)
        same_host_gone = not executor_alive(owner)
        if not same_host_gone and seen is not None and seen > _now() - silent_for:
            continue
        # Only the first taker of a dead worker puts its runs back: two would enqueue a run twice.
        if seen is None:
            store.records.worker_seen(owner, _now() - silent_for * 2)
        if not store.records.take_over(owner, me, silent_since=_now() if same_host_gone else _now() - silent_for):
            continue
        for workflow in pending:
            if workflow.executor_id == owner:
                DBOS.resume_workflow(workflow.workflow_id, queue_name=_runtime.RUN_QUEUE)
                taken.append(workflow.workflow_id)
        log.warning("took over %d run(s) of worker %s, which stopped", len(taken), owner)
    return taken


def serve_queue(store: Any, registry: ToolRegistry, synthesizer: Any = None, *, concurrency: int = 4,
                limits: RunLimits | None = None, stop: threading.Event | None = None,
                beat: float = _BEAT_SECONDS, on_beat: Callable[[bool], None] | None = None) -> None:
    """Take runs from the queue until ``stop`` is set (Ctrl-C ends the command line's worker).
    A run that waits for a person waits in this worker for the decision (``_holding``), holding
    one of its ``concurrency`` places. ``on_beat`` is told after each beat whether the database
    could be used (a readiness check)."""
    DurableRuns(store, registry, synthesizer, limits=limits, queues=(_runtime.RUN_QUEUE,),
                worker_concurrency=concurrency, worker=True)
    stop = stop or threading.Event()
    me = _runtime.executor_id()
    silent_for = dt.timedelta(seconds=beat * _SILENT_BEATS)
    while True:
        try:
            store.records.worker_seen(me, _now())
            carry_on_after_outage()
            take_over_dead_workers(store, silent_for=silent_for)
            well = True
        except Exception as exc:  # the database away for a moment: the next beat tries again
            log.warning("the database cannot be used now; trying again in %g s: %s", beat, _one_line(exc))
            well = False
        if on_beat is not None:
            on_beat(well)
        if stop.wait(beat):
            return


def carry_on_after_outage() -> list[str]:
    """Put back on the queue the runs this worker stopped when the database went away (it is
    back: this beat was written); the run ids. Its own runs: no other worker takes them over
    while this one is alive."""
    from dbos import DBOS

    stopped = bound().cut_off_by_outage
    carried = []
    for run_id in sorted(stopped):
        DBOS.resume_workflow(run_id, queue_name=_runtime.RUN_QUEUE)
        stopped.discard(run_id)
        carried.append(run_id)
    if carried:
        log.warning("carrying on %d run(s) stopped while the database was away", len(carried))
    return carried


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]

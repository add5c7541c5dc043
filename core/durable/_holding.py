"""Which worker carries a run on, and how a decision or a resume made elsewhere (the studio, its
API, the MCP server) reaches it: through DBOS messages, which DBOS keeps in the database until
the run's workflow reads them, also across a kill -9 of the worker and a take-over by another.

A worker's run that stops with steps waiting for a person does not end its workflow: it waits in
``DBOS.recv(DECIDED_TOPIC)`` (``_workflow``), holding its place on the worker. The studio stores
the decision with the run first, then sends a message on that topic to the run's pending workflow
(``hand_over``): the worker reads the run again from the store and goes on. The message says only
"look again": what was decided is in the store, so a message read again by a replay after a
take-over (DBOS returns a step's recorded output) decides nothing by itself.

Nobody can carry a worker's run on when the worker holding it is gone and no other worker is
alive to take it over: ``WorkerHold.nobody`` says so in words, and the studio refuses plainly.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from . import _runtime
from ._claims import executor_alive

__all__ = ["DECIDED_TOPIC", "SILENT_FOR", "WorkerHold", "hand_over", "live_workers", "worker_hold"]

DECIDED_TOPIC = "decided"  # a person decided on the run's waiting steps: read the run again
# A worker that wrote no sign of life for this long is taken to be gone: five of its beats
# (``_worker``), as the workers themselves judge each other.
SILENT_FOR = dt.timedelta(seconds=10)


@dataclass(frozen=True)
class WorkerHold:
    """A run some worker took from the queue: its pending workflow (None when none is pending:
    it ended held before this release, or its wait ran out), the worker that holds it, whether
    that worker is alive, and the workers alive now."""

    run_id: str
    workflow_id: str | None
    holder: str | None
    holder_alive: bool
    live: tuple[str, ...]

    @property
    def nobody(self) -> str | None:
        """Why nobody can carry the run on now, in words; None when a worker can."""
        if self.holder_alive or self.live:
            return None
        gone = f"the worker that held it ({self.holder}) stopped" if self.holder else "no worker holds it"
        return (f"nobody can carry run {self.run_id} on: {gone} and no other worker is running. Start "
                "`plan-studio worker` (with the same tools, on the same database); it takes the run over.")

    @property
    def carrier(self) -> str:
        """Who carries the run on, in words."""
        if self.holder_alive and self.holder:
            return f"worker {self.holder}"
        return f"worker {self.live[0]}" if len(self.live) == 1 else f"one of {len(self.live)} workers"


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def live_workers(store: Any) -> tuple[str, ...]:
    """The workers seen alive lately whose process (on this host) is still there."""
    seen = store.records.workers_seen_since(_now() - SILENT_FOR)
    return tuple(worker for worker in seen if executor_alive(worker))


def worker_hold(store: Any, run_id: str) -> WorkerHold | None:
    """How workers hold ``run_id``; None when no worker ever took it (a run of the studio or the
    command line: carried on where it is asked)."""
    from dbos import DBOS

    parts = [w for w in DBOS.list_workflows(workflow_id_prefix=run_id, load_input=False, load_output=False)
             if w.workflow_id == run_id or w.workflow_id.startswith(f"{run_id}-")]
    if not any(w.queue_name == _runtime.RUN_QUEUE for w in parts):
        return None
    pending = [w for w in parts if w.status == "PENDING" and w.queue_name == _runtime.RUN_QUEUE]
    holding = max(pending, key=lambda w: w.created_at or 0) if pending else None
    live = live_workers(store)
    holder = holding.executor_id if holding is not None else None
    return WorkerHold(run_id, holding.workflow_id if holding is not None else None, holder,
                      holder in live, live)


def hand_over(hold: WorkerHold) -> str:
    """Tell the worker holding the run (or whichever takes it over) to go on: a message to its
    pending workflow, whose id is returned. One that has none pending is handed on by
    ``DurableRuns.hand_over`` (a further part put on the queue)."""
    from dbos import DBOS

    assert hold.workflow_id is not None
    DBOS.send(hold.workflow_id, {"look": "again"}, topic=DECIDED_TOPIC)
    return hold.workflow_id

"""Runs not over, seen from wherever a person looks: another tab, a reloaded or reopened link,
the Reviews page, a second Run of the same version.

A run of the studio is in the store from its first step, its status written as it goes
(``running``, ``waiting`` for a person, ``paused`` between steps, and so on), and while a handle
of this process carries it out it is in the registry of runs live here (``Services.runs``). So:

- ``live_runs``: the runs of a plan version still going on, here or as the store records them
  (``running``: carried out, in this studio or a worker, or cut off by a kill; ``waiting``: a
  step waits for a person). A new run of that version asks first (``_running``).
- ``watch_if_going``: a tab that shows a run another tab (or the review API) carries out here
  watches that very handle: its progress live, Stop and Cancel, the run collected when it ends.
- ``run_stamp``: a cheap summary of where a stored run is; a page looks at it every half second
  and reads the run again only when it moved (a step decided over the API, MCP or in another tab).
- ``waiting_runs`` / ``waiting_count``: what the Reviews page lists and its navigation counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core import GOING

from ._bench import LiveRun, Workbench
from ._services import Services

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import RunListing

__all__ = ["LIVE_STATUSES", "LiveRun", "live_runs", "run_stamp", "waiting_count", "waiting_runs", "watch_if_going"]

# Recorded so, a run is not over: carried out (or cut off by a kill), or waiting for a person. A
# run's status is named after its going steps' (``Run.status``).
LIVE_STATUSES = tuple(sorted(status.value for status in GOING))


def live_runs(services: Services, plan_id: str, version: int, *, besides: str | None = None) -> list[LiveRun]:
    """The runs of version ``version`` of ``plan_id`` still going on (``besides`` left out),
    newest first: carried out in this studio now, or recorded running or waiting in the store."""
    here = services.runs
    # A run just made is recorded "pending" until its first step starts: live if carried out here.
    listed = services.store.records.unfinished(plan_id, version, (*LIVE_STATUSES, "pending", "paused"))
    found = []
    for run in listed:
        if run.id == besides:
            continue
        if here.going(run.id):
            state = "running in this studio now"
        elif run.status == "waiting":
            state = "waiting for a person to decide a step"
        elif run.status == "running":
            state = "recorded running: carried out elsewhere, or cut off (open it to resume it)"
        else:  # paused between steps or not started, and nothing carries it out: not live
            continue
        found.append(LiveRun(run.id, plan_id, version, state))
    return found


def watch_if_going(bench: Workbench, services: Services, run_id: str) -> bool:
    """When a handle of this process carries ``run_id`` out (started from another tab, or the
    review API after a decision), the bench watches it: the page shows its progress live and
    collects it when it ends, as if it had started it. True when it does."""
    from ._durable_handle import DurableRunHandle

    if bench.worker is not None:
        return bench.worker.run_id == run_id
    handle = services.runs.handle(run_id)
    if not isinstance(handle, DurableRunHandle) or not handle.alive:
        return False
    bench.worker = handle
    bench.run = None  # the handle's until collected
    bench.run_saved = run_id
    return True


def run_stamp(services: Services, run_id: str) -> tuple[Any, ...] | None:
    """Where the stored run is, cheaply: equal stamps, nothing to read again (None: not stored)."""
    return services.store.records.stamp(run_id)


def waiting_runs(services: Services, limit: int = 50) -> list[RunListing]:
    """The runs waiting for a person to decide a step, newest first."""
    return services.store.records.waiting(limit)


def waiting_count(services: Services) -> int:
    return services.store.records.waiting_count()

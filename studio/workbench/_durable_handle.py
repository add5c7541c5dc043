"""The studio's runs as durable runs: one ``DurableRuns`` in this process, and the run handle
that carries a part of a run out on a thread of its own, registered with the services' registry
of runs live here (``_runs_here``) while it does.

``DurableRunHandle`` runs ``DurableRuns.go_on`` on a thread of its own (a page script is stopped
at the next click, which would cut a run off mid-step): the run is in the store from its first
step, each step's start, arguments, result, error and timing written as they happen, so a kill
of the studio loses nothing that finished and the run can be resumed (``_resuming``). The page
reads it live through a recorder told what the store is told (``core.LiveView``), from any thread;
Stop and Cancel work from any thread too. Only the handle's thread touches the run until it ends.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Mapping

from core import LiveView, Run, RunKind, RunLimits, RunProgress, RunThread

from core.access import LOCAL_ACTOR, Actor

from ._services import Services

if TYPE_CHECKING:  # DBOS and SQLAlchemy are slow to import; the CLI starts without them
    from core.durable import DurableRuns

__all__ = ["DurableRunHandle", "durable_runs"]

log = logging.getLogger("studio.runs")

_lock = threading.Lock()
# Module-level on purpose: DBOS is one per process, and ``DurableRuns`` binds its workflows to
# one store and registry (``core.durable.bind``: its listeners, the engines to cancel). Made once
# per store and tools, not per click or per services, or a second would drop the first's.
_made: list[tuple[tuple[object, ...], "DurableRuns"]] = []
_SERVICES_OWN = object()


def durable_runs(services: Services, *, synthesizer: Any = _SERVICES_OWN, limits: RunLimits | None = None) -> DurableRuns:
    """The durable runs of ``services``' store and tools, with their final answer maker and
    limits, or those given (the command line's: no answer unless asked, writes approved up front)."""
    from core.durable import DurableRuns

    made_with = (services.store, services.registry,
                 services.executor.synthesizer if synthesizer is _SERVICES_OWN else synthesizer,
                 limits or services.executor.limits)
    with _lock:
        if _made and all(a is b for a, b in zip(_made[0][0], made_with)):
            return _made[0][1]
        runs = DurableRuns(made_with[0], made_with[1], made_with[2], limits=made_with[3])
        _made[:] = [(made_with, runs)]
        return runs


class DurableRunHandle(RunThread):
    """A part of the durable run ``run`` (as stored, handed on to ``go_on``: not read again): its
    next step (``kind="next"``: a step budget of one) or the rest of it; ``decisions`` answer its
    steps in doubt. In the registry of runs live here from ``start`` until its part ended. A
    failure that is not a step's (a store gone, a bug) ends it and is kept in ``error``."""

    def __init__(self, services: Services, run: Run, kind: RunKind, decisions: Mapping[str, str] | None = None, *,
                 actor: Actor = LOCAL_ACTOR, channel: str = "") -> None:
        self.run_id = run.id
        self._who = (actor, channel)  # named in the audit of the run
        self.kind: RunKind = kind
        self.error: Exception | None = None
        self._run = run
        self._runs = durable_runs(services)
        self._here = services.runs
        self._decisions = dict(decisions or {})
        self._live = LiveView(run)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._work, name=f"run-{run.id}", daemon=True)

    def start(self) -> DurableRunHandle:
        """Carry the run out from now; refused (``RunStillGoing``) when a handle here does already."""
        from core.durable import RunStillGoing

        if not self._here.carry(self.run_id, self):
            raise RunStillGoing(f"run {self.run_id!r} is being run in this studio")
        try:
            self._thread.start()
        except BaseException:
            self._here.ended(self._run, self)
            raise
        return self

    def _cancel_now(self) -> None:
        self._runs.cancel(self.run_id)

    def progress(self) -> RunProgress:
        return self._live.progress(self.kind, alive=self.alive, stopping=self._stop.is_set())

    def _work(self) -> None:
        try:
            with self._runs.acting(self.run_id, *self._who):
                self._run = self._runs.go_on(self.run_id, step_budget=1 if self.kind == "next" else None,
                                             decisions=self._decisions, on_event=self._live.on_event,
                                             should_stop=self._stop.is_set, run=self._run, watcher=self._live)
        except Exception as exc:  # kept for whoever collects the run, with the run as stored
            log.error("run %s stopped by an error", self.run_id, exc_info=exc)
            self.error = exc
            try:
                self._run = self._runs.store.load_run(self.run_id)
            except Exception:  # the store itself is away: the run as it was handed over
                pass
        finally:
            self._live.settled(self._run)
            self._here.ended(self._run, self)

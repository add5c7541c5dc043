"""The studio's runs as durable runs: one ``DurableRuns`` in this process, and the run handle
that carries a part of a run out on a thread of its own, registered with the services' registry
of runs live here (``_runs_here``) while it does.

``DurableRunHandle`` is ``core.BackgroundRun`` (its live progress, Stop and Cancel, read by the
page from any thread) over ``DurableRuns.go_on``: the run is read from the store, and each
step's start, arguments, result, error and timing are written there as they happen, so a kill
of the studio loses nothing that finished and the run can be resumed (``_resuming``).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Mapping

from core import BackgroundRun, Run, RunKind

from ._services import Services

if TYPE_CHECKING:  # DBOS and SQLAlchemy are slow to import; the CLI starts without them
    from core.durable import DurableRuns

__all__ = ["DurableRunHandle", "durable_runs"]

log = logging.getLogger("studio.runs")

_lock = threading.Lock()
# Module-level on purpose: DBOS is one per process, and ``DurableRuns`` binds its workflows to
# one store and registry (``core.durable.bind``: its listeners, the engines to cancel). Made once
# per store and tools, not per click or per services, or a second would drop the first's.
_made: list[tuple[object, object, "DurableRuns"]] = []


def durable_runs(services: Services) -> DurableRuns:
    """The durable runs of ``services``' store and tools."""
    from core.durable import DurableRuns

    store, registry = services.store, services.registry
    with _lock:
        if _made and _made[0][0] is store and _made[0][1] is registry:
            return _made[0][2]
        runs = DurableRuns(store, registry, services.executor.synthesizer, limits=services.executor.limits)
        _made[:] = [(store, registry, runs)]
        return runs


class DurableRunHandle(BackgroundRun):
    """A part of the durable run ``run`` (as stored): its next step (``kind="next"``: a step
    budget of one) or the rest of it; ``decisions`` answer its steps in doubt. In ``here`` (the
    registry of runs live in this process) from ``start`` until its part ended."""

    def __init__(self, services: Services, run: Run, kind: RunKind, decisions: Mapping[str, str] | None = None) -> None:
        runs = durable_runs(services)
        super().__init__(runs, run, kind)  # type: ignore[arg-type]  # BackgroundRun.cancel calls runs.cancel(id)
        self.run_id = run.id
        self._runs = runs
        self._here = services.runs
        self._decisions = dict(decisions or {})

    def start(self) -> DurableRunHandle:
        """Carry the run out from now; refused (``RunStillGoing``) when a handle here does already."""
        from core.durable import RunStillGoing

        if not self._here.carry(self.run_id, self):
            raise RunStillGoing(f"run {self.run_id!r} is being run in this studio")
        try:
            super().start()
        except BaseException:
            self._here.ended(self._run, self)
            raise
        return self

    def _work(self) -> None:
        try:
            self._run = self._runs.go_on(self._run.id, step_budget=1 if self.kind == "next" else None,
                                         decisions=self._decisions, on_event=self._record,
                                         should_stop=self._stop.is_set)
        except Exception as exc:  # kept for whoever collects the run, with the run as stored
            log.error("run %s stopped by an error", self._run.id, exc_info=exc)
            self.error = exc
            try:
                self._run = self._runs.store.load_run(self._run.id)
            except Exception:  # the store itself is away: the run as it was handed over
                pass
        finally:
            self._publish_final()
            self._here.ended(self._run, self)

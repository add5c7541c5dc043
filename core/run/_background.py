"""A run carried out by a worker thread, so whoever started it can go on doing other things.

A UI cannot wait for a run on the thread that draws it: Streamlit stops that thread at the next
click, which would cut the run off mid-step. ``BackgroundRun`` owns the run while its thread
waits for the engine to drive it (``RunEngine.drive``, as every caller that runs a plan does:
it is not a driver of its own) and publishes progress, for any thread to read:

    worker = BackgroundRun(executor, run, "all").start()
    worker.progress()   # statuses and events so far, read under a lock
    worker.stop()       # start no more steps; the running ones finish, the rest stays pending
    worker.cancel()     # stop now: running steps are cancelled (or abandoned) and marked so
    worker.join()       # then worker.run is safe to read, and worker.error says what broke

Only the worker touches the run while it is alive; readers get copies. A failure the
executor does not turn into a step's status (a bug, a synthesizer that raised) ends the
worker and is kept in ``error``; the step it cut off is ``interrupted``.
"""

from __future__ import annotations

import logging
import threading

from ._engine import RunEngine
from ._executor import Run
from ._live_view import LiveView, RunKind, RunProgress

__all__ = ["BackgroundRun", "RunKind", "RunProgress", "RunThread"]

log = logging.getLogger("core.runner")


class RunThread:
    """A run carried out on a daemon thread of its own, which whoever started it may stop, cancel
    and join: ``BackgroundRun`` here, the studio's durable run handle. A subclass sets ``_run``,
    ``_stop`` and ``_thread`` and says how a run is cancelled now (``_cancel_now``)."""

    run_id: str  # fixed when the run starts, so safe to read while it goes on
    _run: Run
    _stop: threading.Event
    _thread: threading.Thread

    @property
    def alive(self) -> bool:
        """True until the thread is done with the run (or never started)."""
        return self._thread.is_alive()

    @property
    def run(self) -> Run:
        """The run itself; only once the thread is done, since until then it changes under you."""
        if self.alive:
            raise RuntimeError("the run is still in progress; read progress() until it ends")
        return self._run

    def stop(self) -> None:
        """Start no more steps; those running now finish, the steps not started stay pending."""
        self._stop.set()

    def cancel(self) -> None:
        """End the run now: steps running are cancelled (an ``async def`` tool) or abandoned (a
        thread cannot be stopped) and marked ``cancelled``; the rest stays pending."""
        self._stop.set()
        self._cancel_now()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread; True when it is done."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _cancel_now(self) -> None:
        raise NotImplementedError


class BackgroundRun(RunThread):
    """Runs ``run`` with ``executor`` in a daemon thread: its next step, or all of it."""

    def __init__(self, executor: RunEngine, run: Run, kind: RunKind) -> None:
        self._executor = executor
        self._run = run
        self.run_id = run.id
        self.kind: RunKind = kind
        self._stop = threading.Event()
        self._view = LiveView(run)  # told each change by the engine, as the store would be
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._work, name=f"run-{run.id}", daemon=True)

    def start(self) -> "BackgroundRun":
        self._thread.start()
        return self

    def _cancel_now(self) -> None:
        self._executor.cancel(self._run.id)

    def progress(self) -> RunProgress:
        return self._view.progress(self.kind, alive=self.alive, stopping=self._stop.is_set())

    def _work(self) -> None:
        try:
            # Driven as every run is (``RunEngine.drive``); this thread waits for it.
            self._executor.drive(self._run, on_event=self._view.on_event, watcher=self._view,
                                 should_stop=self._stop.is_set, limit=1 if self.kind == "next" else None)
        except Exception as exc:  # kept for whoever collects the run; the thread must not die silently
            log.error("run %s stopped by an unexpected error", self._run.id, exc_info=exc)
            self.error = exc
        finally:
            # The executor marked any step it was cut off in: the final statuses, as the run holds them.
            self._view.settled(self._run)

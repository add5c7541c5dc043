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
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Mapping

from ._engine import RunEngine
from ._executor import Event, Run

__all__ = ["BackgroundRun", "RunKind", "RunProgress", "RunThread"]

log = logging.getLogger("core.runner")

RunKind = Literal["next", "all"]


@dataclass(frozen=True)
class RunProgress:
    """What a background run has done so far, as seen at one moment."""

    run_id: str
    kind: RunKind
    alive: bool
    stopping: bool
    statuses: Mapping[str, str]  # step id -> status, in plan order
    current: str | None  # the step started last that still runs, if any
    events: tuple[Event, ...] = field(repr=False)
    answer: str = ""  # the final answer so far, while it streams
    running: tuple[str, ...] = ()  # every step running now (a parallel run has several), as they started

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for status in self.statuses.values():
            out[status] = out.get(status, 0) + 1
        return out


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
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._events: list[Event] = []
        self._statuses = {step_id: state.status.value for step_id, state in run.steps.items()}
        self._current: str | None = None
        self._running: dict[str, None] = {}  # the steps running now, in the order they started
        self._answer: list[str] = []
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._work, name=f"run-{run.id}", daemon=True)

    def start(self) -> "BackgroundRun":
        self._thread.start()
        return self

    def _cancel_now(self) -> None:
        self._executor.cancel(self._run.id)

    def progress(self) -> RunProgress:
        with self._lock:
            return RunProgress(run_id=self._run.id, kind=self.kind, alive=self.alive,
                               stopping=self._stop.is_set(),
                               statuses=MappingProxyType(dict(self._statuses)),
                               current=self._current, events=tuple(self._events),
                               answer="".join(self._answer),
                               running=tuple(self._running))

    def _work(self) -> None:
        try:
            # Driven as every run is (``RunEngine.drive``); this thread waits for it.
            self._executor.drive(self._run, on_event=self._record, should_stop=self._stop.is_set,
                                 limit=1 if self.kind == "next" else None)
        except Exception as exc:  # kept for whoever collects the run; the thread must not die silently
            log.error("run %s stopped by an unexpected error", self._run.id, exc_info=exc)
            self.error = exc
        finally:
            self._publish_final()

    def _publish_final(self) -> None:
        with self._lock:
            # The executor marked any step it was cut off in; publish the final statuses.
            self._statuses = {step_id: state.status.value for step_id, state in self._run.steps.items()}
            self._current = None
            self._running.clear()

    def _record(self, event: Event) -> None:
        with self._lock:
            self._events.append(event)
            if event.type == "plan_step_start" and event.step_id is not None:
                self._statuses[event.step_id] = "running"
                self._running[event.step_id] = None
                self._current = event.step_id
            elif event.type == "plan_step_end" and event.step_id is not None:
                self._statuses[event.step_id] = str(event.data.get("status"))
                self._running.pop(event.step_id, None)
                if self._current == event.step_id:
                    # Another step may still run (a parallel run): the latest started of them.
                    self._current = next(reversed(self._running), None)
            elif event.type == "text_delta":
                self._answer.append(str(event.data.get("text", "")))

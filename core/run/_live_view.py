"""The live view of a run going on: a recorder (``core.run._engine.RunRecorder``) beside the
store's, told the same changes right after the store is (``Executor.drive(watcher=...)``,
``DurableRuns.go_on(watcher=...)``), on the thread that drives the run; read from any other
thread (the page's) as a ``RunProgress``. ``BackgroundRun`` and the studio's durable run handle
both keep one: one class holds a run's live progress.

As the store's recorder, it reads each step's status from the run itself (``StepStatus``
values, never strings), so drawing a poll of the run converts no status. Burr's post-step hooks
and LangGraph's checkpointer are the models: the live view and the store are two listeners of
one stream of changes, not two copies kept in step by hand. The events (``core.Event``) are
kept too, for what only they carry: the final answer as it streams, what each step returned.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Mapping

from ._events import Event
from ._model import Run, StepAttempt
from ._status import StepStatus

__all__ = ["LiveView", "RunKind", "RunProgress"]

RunKind = Literal["next", "all"]


@dataclass(frozen=True)
class RunProgress:
    """What a background run has done so far, as seen at one moment."""

    run_id: str
    kind: RunKind
    alive: bool
    stopping: bool
    statuses: Mapping[str, StepStatus]  # step id -> status, in plan order
    current: str | None  # the step started last that still runs, if any
    events: tuple[Event, ...] = field(repr=False)
    answer: str = ""  # the final answer so far, while it streams
    running: tuple[str, ...] = ()  # every step running now (a parallel run has several), as they started

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for status in self.statuses.values():  # a StepStatus is the str it names: no conversion
            out[status] = out.get(status, 0) + 1
        return out


class LiveView:
    """What a run has done so far, told by its engine; ``progress()`` from any thread."""

    def __init__(self, run: Run) -> None:
        self.run_id = run.id
        self._lock = threading.Lock()
        self._statuses: dict[str, StepStatus] = {step_id: state.status for step_id, state in run.steps.items()}
        self._running: dict[str, None] = {}  # the steps running now, in the order they started
        self._events: list[Event] = []
        self._answer: list[str] = []

    # -- the recorder: on the thread driving the run ------------------------------------------------
    def run_started(self, run: Run) -> None:
        pass

    def step_started(self, run: Run, step_id: str, attempt: StepAttempt, arguments: dict[str, Any]) -> None:
        with self._lock:
            self._statuses[step_id] = run.steps[step_id].status
            self._running[step_id] = None

    def step_ended(self, run: Run, step_id: str) -> None:
        with self._lock:
            self._statuses[step_id] = run.steps[step_id].status
            self._running.pop(step_id, None)

    def run_stopped(self, run: Run, reason: str) -> None:
        self.settled(run)

    def run_finished(self, run: Run) -> None:
        self.settled(run)

    def settled(self, run: Run) -> None:
        """Nothing runs now: every step as ``run`` holds it (the steps a stop cut off marked so)."""
        with self._lock:
            self._statuses = {step_id: state.status for step_id, state in run.steps.items()}
            self._running.clear()

    # -- the events: the answer as it streams ------------------------------------------------------
    def on_event(self, event: Event) -> None:
        with self._lock:
            self._events.append(event)
            if event.type == "text_delta":
                self._answer.append(str(event.data.get("text", "")))

    # -- read from any thread --------------------------------------------------------------------------
    def progress(self, kind: RunKind, *, alive: bool, stopping: bool) -> RunProgress:
        with self._lock:
            return RunProgress(run_id=self.run_id, kind=kind, alive=alive, stopping=stopping,
                               statuses=MappingProxyType(dict(self._statuses)),
                               current=next(reversed(self._running), None), events=tuple(self._events),
                               answer="".join(self._answer), running=tuple(self._running))

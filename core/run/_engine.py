"""The seam between running a plan and keeping its run: what a run engine is, and what it tells.

One code path runs every plan. ``core.Executor`` schedules the steps (in parallel, as their
dependencies finish), calls the tools (sync ones in a bounded pool of threads, ``async def``
ones awaited on an event loop), holds each to its timeout and retry policy, and reports every
change of a step to a ``RunRecorder`` on the thread that drives the run, in the order the
changes happen:

    run_started(run)                          once, before the first step of a new run
    step_started(run, step_id, attempt, arguments)
                                              BEFORE each call of a tool: the step is
                                              ``running``, ``arguments`` are the resolved ones
                                              the tool gets, ``attempt`` the call about to be
                                              made (number 1, 2, ... on retries; the calls
                                              before it are ``run.steps[step_id].retried``)
    step_ended(run, step_id)                  AFTER a step leaves ``running`` (or is skipped,
                                              starts to wait for a person, or is rejected):
                                              ``run.steps[step_id]`` holds its status, result,
                                              error, timing, and the calls retried before
    run_stopped(run, reason)                  the run stops unfinished: "paused" (Stop,
                                              ``should_stop``, or ``run_next`` ran its step),
                                              "cancel" (``cancel``, Ctrl-C), "abandoned"
                                              (whoever drove it went away or raised), "held"
                                              (steps wait for a step another live worker runs,
                                              or for a person: ``waiting``)
    run_finished(run)                         every step finished (before the final answer)

A recorder may also have ``steps_started(run, [(step_id, attempt, arguments), ...])`` and
``steps_ended(run, [step_id, ...])``: then the steps that start together (a wave made ready at
once) are told in one call, before any of their tools is called, and the steps whose outcomes
came in together in one call, before any of their events is yielded; a durable recorder
writes each batch in one transaction. Without them, each step is told on its own, in order.

Every ``Executor`` tells its recorder and ``core.hooks.OBSERVING_RECORDER`` (the plugins'
step and run hooks) together, through ``Recorders``. An in-memory run (mock, preview, tests)
uses ``NO_RECORDER``. A durable engine records each
call where it survives the process: "started" before the tool is called, so a step whose
process died mid-call is known to have maybe had its effect. A recorder that raises stops the
run: the step it was told about is not called, and the error goes to whoever drives the run.

``RunEngine`` is what the studio, the CLI and the review API drive; ``core.Executor`` is the
in-memory one. Events (``core.Event``) are the same for every engine; per step they come in
the order plan_step_start → tool_call → tool_result → plan_step_end, steps interleaved.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Literal, Protocol, Sequence, runtime_checkable

from ._events import Event
from ..plan._model import Plan
from ._model import Run, StepAttempt

__all__ = ["NO_RECORDER", "NoRecorder", "Recorders", "RunEngine", "RunRecorder", "StopReason"]

StopReason = Literal["paused", "cancel", "abandoned", "held"]


@runtime_checkable
class RunRecorder(Protocol):
    """Told of every change of a run as it happens, on the thread driving the run."""

    def run_started(self, run: Run) -> None: ...

    def step_started(self, run: Run, step_id: str, attempt: StepAttempt, arguments: dict[str, Any]) -> None: ...

    def step_ended(self, run: Run, step_id: str) -> None: ...

    def run_stopped(self, run: Run, reason: StopReason) -> None: ...

    def run_finished(self, run: Run) -> None: ...


class NoRecorder:
    """Keeps nothing: the recorder of runs that live in memory only."""

    def run_started(self, run: Run) -> None:
        pass

    def step_started(self, run: Run, step_id: str, attempt: StepAttempt, arguments: dict[str, Any]) -> None:
        pass

    def step_ended(self, run: Run, step_id: str) -> None:
        pass

    def run_stopped(self, run: Run, reason: StopReason) -> None:
        pass

    def run_finished(self, run: Run) -> None:
        pass


NO_RECORDER = NoRecorder()


class Recorders:
    """Several recorders told of each change in turn, in their order (the store before the
    plugins, so an observer hears of a step once it is recorded). One that raises stops the
    run as it would alone; those after it are not told."""

    def __init__(self, recorders: Sequence[RunRecorder]) -> None:
        self.recorders = tuple(recorders)

    def run_started(self, run: Run) -> None:
        for recorder in self.recorders:
            recorder.run_started(run)

    def step_started(self, run: Run, step_id: str, attempt: StepAttempt, arguments: dict[str, Any]) -> None:
        for recorder in self.recorders:
            recorder.step_started(run, step_id, attempt, arguments)

    def steps_started(self, run: Run, started: list[tuple[str, StepAttempt, dict[str, Any]]]) -> None:
        for recorder in self.recorders:
            if hasattr(recorder, "steps_started"):
                recorder.steps_started(run, started)
            else:
                for step_id, attempt, arguments in started: recorder.step_started(run, step_id, attempt, arguments)

    def step_ended(self, run: Run, step_id: str) -> None:
        for recorder in self.recorders:
            recorder.step_ended(run, step_id)

    def steps_ended(self, run: Run, step_ids: list[str]) -> None:
        for recorder in self.recorders:
            if hasattr(recorder, "steps_ended"):
                recorder.steps_ended(run, step_ids)
            else:
                for step_id in step_ids: recorder.step_ended(run, step_id)

    def run_stopped(self, run: Run, reason: StopReason) -> None:
        for recorder in self.recorders:
            recorder.run_stopped(run, reason)

    def run_finished(self, run: Run) -> None:
        for recorder in self.recorders:
            recorder.run_finished(run)


@runtime_checkable
class RunEngine(Protocol):
    """Starts, drives, resumes and cancels runs of plans; the events say what happens."""

    def start(self, plan: Plan) -> Run:
        """A new run of ``plan`` (nothing runs yet); refuses a plan with errors."""
        ...

    def run_next(self, run: Run) -> Iterator[Event]:
        """Run one step (the first ready in plan order) and return."""
        ...

    def run_all(self, run: Run, *, should_stop: Callable[[], bool] | None = None) -> Iterator[Event]:
        """Run every step that can run, those ready at once in parallel; ``should_stop`` is
        asked before each step starts (steps running then finish)."""
        ...

    def resume(self, run: Run) -> Iterator[Event]:
        """Go on with a run stopped, cut off or loaded from a store: finished steps stay."""
        ...

    def drive(self, run: Run, *, on_event: Callable[[Event], object] | None = None,
              should_stop: Callable[[], bool] | None = None, limit: int | None = None,
              watcher: RunRecorder | None = None) -> None:
        """What ``run_all`` (``limit=1``: ``run_next``) does, the run driven by the engine itself
        while the caller waits; ``on_event`` is told each event, ``watcher`` (a live view) every
        change after the engine's own recorder. Every caller that runs a plan (a page, the CLI,
        ``execute``, a worker, a DBOS workflow) runs it so."""
        ...

    def cancel(self, run_id: str) -> bool:
        """Cancel the run being driven with that id, from any thread: its running steps are
        cancelled (async) or abandoned (threads) and marked ``cancelled``; False when no such
        run is being driven here."""
        ...

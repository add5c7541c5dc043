"""One pass over a run: start every ready step (up to ``max_parallel`` at once), wait for
whichever ends first, start the steps it released, until nothing more can start.

Only the thread driving the pass (the consumer of its events) touches the run; tools run on
other threads (``_step_call``) and tell their outcomes on the pass's queue, but for a lone step's
sync tool, called on the driving thread itself when it has no time limit, or when the pass is
driven on a thread of its own (``hand_over``, ``_driven_run``): a call there that overruns its
limit or is cancelled is given up, its thread left in the tool, and the pass carries on from a
new thread (``carry_on``), which from then on is the one driving it. A step is
``running`` from its ``plan_step_start`` until its ``plan_step_end``; its arguments, result
and error are written together when it ends, so a step cut off leaves no partial result.

How a pass ends, and what it does to the steps it started:

- every ready step ran: the run is finished, or the rest waits for a live worker or for a
  person's approval (``waiting`` steps, ``core.run._approval``) ("held");
- ``limit`` steps started (``run_next``) or ``should_stop()`` said so: no step starts after,
  the running ones finish ("paused");
- ``cancel()``, from any thread: running steps are cancelled (async) or abandoned (threads),
  marked ``cancelled``, with what their attempts recorded kept ("cancel");
- the consumer closed the generator or raised (Ctrl-C in the CLI): the steps running are
  marked ``interrupted`` (``cancelled`` for Ctrl-C), their calls given up ("abandoned").
"""

from __future__ import annotations

import math
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

from ._approval import GrantBook, hold_step
from ._engine import RunRecorder, StopReason
from .._errors import ToolCallError
from ._events import Event, now, step_end, step_result
from ..tooling._registry import Tool, ToolRegistry
from ..tooling._retry import RetryPolicy
from ._policy import RunLimits
from ._model import Run, StepAttempt, StepRun
from ._scheduler import ReadySteps
from ._signals import CTRL_C_WAIT
from ._step_call import Call, Outcome, call_inline, call_tool, is_sync
from ._status import BLOCKING, FINISHED, RUNNABLE, StepStatus
from ..plan._references import resolve_params
from ._watchdog import HandedOver, InlineCall
from ._workers import workers

__all__ = ["CANCELLED_NOTE", "INTERRUPTED_NOTE", "RunPass"]

INTERRUPTED_NOTE = "interrupted: the run stopped while this step was running; it runs again on the next run"
CANCELLED_NOTE = "cancelled: the run was cancelled while this step was running; it runs again on the next run"




class _Results(Mapping[str, Any]):
    """The results of a run's succeeded steps by step id, read when a reference asks.

    A step's params refer to a few earlier steps; building every result into a dict for each
    step made a long plan's run cost the square of its length.
    """

    def __init__(self, run: Run) -> None:
        self._states = run.steps

    def _state(self, step_id: str) -> StepRun | None:
        state = self._states.get(step_id) if isinstance(step_id, str) else None
        return state if state is not None and state.status == StepStatus.succeeded else None

    def __contains__(self, step_id: object) -> bool:
        return self._state(step_id) is not None  # type: ignore[arg-type]

    def __getitem__(self, step_id: str) -> Any:
        state = self._state(step_id)
        if state is None:
            raise KeyError(step_id)
        return state.result

    def __iter__(self) -> Iterator[str]:
        return (step_id for step_id in self._states if step_id in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass
class _Flight:
    """A step started by this pass and not ended yet."""

    step_id: str
    tool: Tool
    arguments: dict[str, Any]
    token: str
    timeout: float
    policy: RetryPolicy
    began: float  # perf_counter when the step started
    attempt: int = 0
    call: Call | None = None  # None between a failed attempt and its retry
    deadline: float = 0.0  # monotonic: the current call is given up then
    retry_at: float = 0.0  # monotonic: the next call is made then
    attempts: list[StepAttempt] = field(default_factory=list)


_WAKE = object()  # put on the queue by cancel(): the driving thread looks at the flag


class RunPass:
    def __init__(self, run: Run, registry: ToolRegistry, limits: RunLimits, recorder: RunRecorder, *,
                 limit: int | None, should_stop: Callable[[], bool] | None,
                 hand_over: Callable[[], None] | None = None, grants: GrantBook | None = None) -> None:
        """``hand_over``: this pass is driven on a thread of its own (``_driven_run``), which
        calls a lone step's sync tool itself; when such a call is given up, ``hand_over()``
        carries the run on from a new thread (``carry_on``). ``grants``: asked before a step waits."""
        self.run = run
        self._registry = registry
        self._limits = limits
        self.recorder = recorder  # told of every change of this pass (the executor's, and a watcher's)
        self._limit = limit
        self._should_stop = should_stop
        # Written in C: a short step's outcome reaches this thread for a third less than through
        # queue.Queue. Its timed wait gives way to Ctrl-C on the main thread (the CLI) as that did.
        self._outcomes: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._cancelled = threading.Event()
        self._flights: dict[str, _Flight] = {}
        self._unsent: list[_Flight] = []  # started (events told), their tools not called yet
        self._results = _Results(run)
        self._hand_over = hand_over
        self._grants = grants
        self._edited: dict[str, dict[str, Any]] = {}  # approved steps: the arguments they run with
        self._inline: InlineCall | None = None  # the latest call made on the driving thread
        self._started, self._stopping = 0, False

    def cancel(self) -> None:
        """Cancel from any thread; the driving thread acts on it at once."""
        self._cancelled.set()
        self._outcomes.put(_WAKE)
        inline = self._inline
        if inline is not None:
            inline.give_up()  # a call on the driving thread: the run is cancelled from a new one

    # -- the pass --------------------------------------------------------------------------------

    def events(self) -> Iterator[Event]:
        """The pass's events; afterwards ``reason`` says why it stopped (None: nothing left)."""
        self.reason: StopReason | None = None
        yield from self._reclaim()
        self._ready = ReadySteps(self.run)
        yield from self._guarded(self._loop())

    def carry_on(self) -> Iterator[Event]:
        """The rest of the pass's events, on a new thread, once the thread driving it was left in
        a call given up (``hand_over``): from the wait for that call, which has overrun or was
        cancelled."""
        yield from self._guarded(self._loop(waiting=True))

    def _guarded(self, loop: Iterator[Event]) -> Iterator[Event]:
        try:
            yield from loop
        except HandedOver:
            raise  # the run is another thread's now: nothing here is this thread's to touch
        except KeyboardInterrupt:
            self._give_up_quietly(StepStatus.cancelled, CANCELLED_NOTE)
            raise
        except BaseException:  # closed by its consumer (GeneratorExit), or a recorder that failed
            self._give_up_quietly(StepStatus.interrupted, INTERRUPTED_NOTE)
            raise
        if self.reason is not None:  # cancelled
            return
        if self._stopping:
            self.reason = "paused"
        elif not all(s.status in FINISHED for s in self.run.steps.values()):
            self.reason = "held"

    def _loop(self, *, waiting: bool = False) -> Iterator[Event]:
        ready = self._ready
        while True:
            if not waiting:
                while ready and not self._stopping and len(self._flights) < self._limits.max_parallel \
                        and not self._cancelled.is_set():
                    if (self._limit is not None and self._started >= self._limit) or \
                            (self._should_stop is not None and self._should_stop()):
                        self._stopping = True
                        break
                    step_id = ready.pop()
                    if self.run.steps[step_id].status not in RUNNABLE:
                        continue  # another worker ran it since the pass began
                    blocked = [d for d in ready.dependencies[step_id] if self.run.steps[d].status in BLOCKING]
                    if blocked:
                        yield self._skip(step_id, blocked)
                        continue
                    held = self._hold(step_id)
                    if held is not None:
                        yield held
                        continue
                    self._started += 1
                    yield from self._start(step_id)
                if not self._cancelled.is_set():
                    self._send()
                if self._cancelled.is_set():
                    yield from self._give_up(StepStatus.cancelled, CANCELLED_NOTE)
                    self.reason = "cancel"
                    return
                if not self._flights:
                    return
            waiting = False
            yield from self._wait()

    def _reclaim(self) -> Iterator[Event]:
        """Steps left ``running`` by a worker that is gone become ``interrupted``."""
        for step_id, state in self.run.steps.items():
            if state.status == StepStatus.running and not workers.alive(state.worker):
                _cut(state, StepStatus.interrupted, INTERRUPTED_NOTE)
                self.recorder.step_ended(self.run, step_id)
                yield step_end(self.run, step_id)

    def _skip(self, step_id: str, blocked: list[str]) -> Event:
        state = self.run.steps[step_id]
        state.status = StepStatus.skipped
        state.error = f"skipped: depends on {', '.join(self.run.plan.label(d) for d in blocked)}, which did not succeed"
        self.recorder.step_ended(self.run, step_id)
        self._ready.finished(step_id, self.run)
        return step_end(self.run, step_id)

    def _hold(self, step_id: str) -> Event | None:
        """Keep a step the policy does not let run from starting (``core.run._approval``): it
        waits with its resolved arguments shown, or ends rejected (by a person or a rule); None
        lets it start."""
        step = self.run.plan.steps[self._ready.positions[step_id]]
        held, arguments = hold_step(self.run, step, self._registry.get(step.tool), self._limits,
                                    lambda: resolve_params(step.params, self._results), self._grants)
        if held == "run":
            if arguments is not None:  # runs with exactly what was approved (an edit too)
                self._edited[step_id] = arguments
            return None
        self.recorder.step_ended(self.run, step_id)
        if held == "ended":
            self._ready.finished(step_id, self.run)
        return step_end(self.run, step_id)

    def _start(self, step_id: str) -> Iterator[Event]:
        run = self.run
        index = self._ready.positions[step_id]
        step = run.plan.steps[index]
        state = run.steps[step_id]
        token = workers.claim()
        _write(state, status=StepStatus.running, worker=token, started_at=now(), arguments=None, result=None,
               error=None, duration_ms=None, retried=[])
        began = time.perf_counter()
        try:
            yield Event(type="plan_step_start", run_id=run.id, step_id=step_id,
                        data={"index": index, "tool": step.tool, "note": step.note})
            try:
                edited = self._edited.pop(step_id, None)
                arguments = edited if edited is not None else resolve_params(step.params, self._results)
            except Exception as exc:  # a reference to data the earlier step did not return
                error = str(exc) if isinstance(exc, ToolCallError) else f"{step.tool} failed: {type(exc).__name__}: {exc}"
                self._end(step_id, token, began, None, None, error, [])
                yield step_result(run, step_id, step.tool)
                yield step_end(run, step_id)
                return
            yield Event(type="tool_call", run_id=run.id, step_id=step_id,
                        data={"tool": step.tool, "arguments": arguments})
            tool = self._registry.get(step.tool)
            flight = _Flight(step_id, tool, arguments, token, began=began,
                             timeout=self._limits.timeout_for(tool.name, tool.timeout),
                             policy=self._limits.retry_for(tool.name, tool.retry))
            self._flights[step_id] = flight
            self._unsent.append(flight)
        except BaseException:
            # Cut off before its tool was called (the consumer closed the generator at an event):
            # the step runs again. A generator closed late, after another worker took the step
            # over, must leave the step alone.
            if step_id not in self._flights:
                workers.release(token)
                if state.worker == token:
                    _cut(state, StepStatus.interrupted, INTERRUPTED_NOTE)
            raise

    def _send(self) -> None:
        """Call the tools of the steps started since the last call, each told "started" to the
        recorder first: all of them at once, so a durable recorder writes them together."""
        unsent, self._unsent = self._unsent, []
        if unsent:
            self._call(*unsent)

    def _call(self, *flights: _Flight) -> None:
        for flight in flights:
            flight.attempt += 1
            flight.attempts.append(StepAttempt(number=flight.attempt, started_at=now()))
            _write(self.run.steps[flight.step_id], retried=flight.attempts[:-1])
        starts = [(f.step_id, f.attempts[-1], f.arguments) for f in flights]
        batch = getattr(self.recorder, "steps_started", None)
        if batch is not None:
            batch(self.run, starts)
        else:
            for step_id, attempt, arguments in starts:
                self.recorder.step_started(self.run, step_id, attempt, arguments)
        lone = len(flights) == 1 == len(self._flights) and is_sync(flights[0].tool)
        if lone and self._hand_over is not None:
            self._call_inline(flights[0])
            return
        # The one step to call, of a sync tool with no time limit, is called on this thread:
        # nothing needs to cut it off, and handing a short call to another thread and back costs
        # more than the call (34 µs of CPU on an idle two-core VM); LangGraph runs a lone step so.
        here = lone and flights[0].timeout == math.inf
        for flight in flights:
            flight.deadline = time.monotonic() + flight.timeout
            flight.call = call_tool(flight.tool, flight.arguments, flight.step_id, flight.attempt, self._outcomes,
                                    here=here)

    def _call_inline(self, flight: _Flight) -> None:
        """Call the lone step's tool on this thread, the pass's own (see ``__init__``)."""
        flight.deadline = time.monotonic() + flight.timeout
        # In flight before the call: a thread carrying on after a hand-over finds it so.
        flight.call = Call()
        self._inline = inline = InlineCall(self._hand_over)  # type: ignore[arg-type]
        if self._cancelled.is_set() and inline.finish():
            return  # cancelled before the call: the loop gives the step up
        call_inline(flight.tool, flight.arguments, flight.step_id, flight.attempt, self._outcomes, inline,
                    flight.deadline)

    def _wait(self) -> Iterator[Event]:
        """Wait for an outcome, a timeout or a retry that is due; act on each there is."""
        due = min((f.deadline if f.call is not None else f.retry_at) for f in self._flights.values())
        try:
            item = self._outcomes.get(timeout=min(max(0.0, due - time.monotonic()), CTRL_C_WAIT))
        except queue.Empty:
            item = None
        ended: list[_Flight] = []  # told to the recorder together, then to the consumer
        while item is not None:
            if isinstance(item, Outcome):
                ended += self._outcome(item)
            # Asked first, not caught: an exception raised and caught after every step cost more.
            item = self._outcomes.get_nowait() if not self._outcomes.empty() else None
        clock = time.monotonic()
        for flight in list(self._flights.values()):
            if flight.call is not None and clock >= flight.deadline:
                flight.call.cancel()  # an async task stops; a thread is abandoned
                ended += self._outcome(Outcome(flight.step_id, flight.attempt, kind="timeout",
                                               error=f"{flight.tool.name} timed out after {flight.timeout:g} s",
                                               duration_ms=round(flight.timeout * 1000, 3)))
            elif flight.call is None and clock >= flight.retry_at:
                # Called by the loop after the steps that ended here are told (a call made here and
                # given up would leave them untold).
                self._unsent.append(flight)
        if not ended:
            return
        batch = getattr(self.recorder, "steps_ended", None)
        if batch is not None:
            batch(self.run, [f.step_id for f in ended])
        else:
            for flight in ended:
                self.recorder.step_ended(self.run, flight.step_id)
        for flight in ended:
            self._ready.finished(flight.step_id, self.run)
        for flight in ended:
            yield step_result(self.run, flight.step_id, flight.tool.name)
            yield step_end(self.run, flight.step_id)

    def _outcome(self, outcome: Outcome) -> list[_Flight]:
        """Take a call's outcome: the step ends ([its flight]), or waits to be tried again ([])."""
        flight = self._flights.get(outcome.step_id)
        if flight is None or flight.call is None or flight.attempt != outcome.attempt:
            return []  # a call given up on (timed out, cancelled) that answered late
        flight.call = None
        _write(flight.attempts[-1], duration_ms=outcome.duration_ms, error=outcome.error)
        if outcome.kind is not None and flight.policy.retries(outcome.kind, flight.attempt):  # type: ignore[arg-type]
            flight.retry_at = time.monotonic() + flight.policy.pause(flight.attempt)
            return []
        del self._flights[flight.step_id]
        self._settle(flight.step_id, flight.token, flight.began, flight.arguments, outcome.result,
                     outcome.error, flight.attempts)
        return [flight]

    def _end(self, step_id: str, token: str, began: float, arguments: dict[str, Any] | None, result: Any,
             error: str | None, attempts: list[StepAttempt]) -> None:
        self._settle(step_id, token, began, arguments, result, error, attempts)
        self.recorder.step_ended(self.run, step_id)
        self._ready.finished(step_id, self.run)

    def _settle(self, step_id: str, token: str, began: float, arguments: dict[str, Any] | None, result: Any,
                error: str | None, attempts: list[StepAttempt]) -> None:
        workers.release(token)
        # Recorded together, only now: a step cut off before leaves no partial result.
        _write(self.run.steps[step_id], arguments=arguments, result=result, error=error,
               duration_ms=round((time.perf_counter() - began) * 1000, 3), retried=attempts[:-1],
               status=StepStatus.failed if error is not None else StepStatus.succeeded, worker=None)

    def _give_up(self, status: StepStatus, note: str) -> Iterator[Event]:
        """Every step in flight ends as ``status``: its call cancelled or abandoned."""
        for flight in list(self._flights.values()):
            self._give_up_one(flight, status, note)
            yield step_result(self.run, flight.step_id, flight.tool.name)
            yield step_end(self.run, flight.step_id)

    def _give_up_quietly(self, status: StepStatus, note: str) -> None:
        for flight in list(self._flights.values()):
            self._give_up_one(flight, status, note)

    def _give_up_one(self, flight: _Flight, status: StepStatus, note: str) -> None:
        del self._flights[flight.step_id]
        if flight.call is not None:
            flight.call.cancel()
        workers.release(flight.token)
        state = self.run.steps[flight.step_id]
        if state.worker != flight.token:
            return
        state.retried = flight.attempts[:-1]
        state.duration_ms = round((time.perf_counter() - flight.began) * 1000, 3)
        _cut(state, status, note)
        try:
            self.recorder.step_ended(self.run, flight.step_id)
        except Exception:  # already on the way out with another error: that one is told
            pass


def _write(state: StepRun | StepAttempt, **fields: Any) -> None:
    """Set fields of a step's state (or of one of its attempts) at once, as pydantic's own
    ``__setattr__`` sets each (its value in the instance's dict, its name among the fields set;
    neither model validates assignment): a run of short steps wrote a dozen fields a step, each
    through pydantic."""
    state.__dict__.update(fields)
    state.__pydantic_fields_set__.update(fields)


def _cut(state: StepRun, status: StepStatus, note: str) -> None:
    state.status = status
    state.worker = None
    state.error = note

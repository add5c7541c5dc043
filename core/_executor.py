"""Runs an approved plan against a tool registry, one step at a time or all at once.

Execution yields the orchestrator's events as they happen, so a UI can show them live:

    turn_start → plan_created → (plan_step_start → tool_call → tool_result → plan_step_end)*
    → text_delta* (only with a synthesizer) → turn_end

Steps run in dependency order (plan order breaks ties), each only once every step it
depends on has succeeded. A step whose tool fails is marked ``failed`` with the error
message; every step that depends on it, directly or not, is ``skipped``; the rest of the
plan still runs.

A step is atomic from the run's point of view: its arguments, result and error are recorded
only when it completes. A step marked ``running`` is owned by the worker running it (a token
held while the step runs). When its worker is gone (the consumer abandoned the event
generator, the process stopped, or the run was loaded from storage) the step is
``interrupted``: it runs again on the next ``run_next``/``run_all``, and the steps that
depend on it wait for it. ``run_all`` always ends: when a pass can run nothing (a step the
rest need is held by another live worker), it returns with the run unfinished.
"""

from __future__ import annotations

import datetime as dt
import itertools
import operator
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Literal, Mapping

from pydantic import BaseModel, Field

from ._errors import ToolCallError
from ._limits import check_plan
from ._plan import Plan
from ._registry import ToolRegistry
from ._run import Run, StepRun
from ._run_order import run_order
from ._step_status import BLOCKING, FINISHED, RUNNABLE, StepStatus
from ._templates import resolve_params
from ._validation import Validator

__all__ = ["Event", "EventType", "Executor", "Run", "StepRun", "StepStatus", "Synthesizer"]

EventType = Literal["turn_start", "plan_created", "plan_step_start", "tool_call", "tool_result",
                    "plan_step_end", "text_delta", "turn_end"]

# Turns a finished run into a final answer, yielded in pieces as they arrive.
Synthesizer = Callable[[Run], Iterable[str]]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


# Statuses are read for every step after every step of a run: through C (map, set methods)
# rather than a Python loop, which made a 200-step run spend most of its time counting.
_status = operator.attrgetter("status")

INTERRUPTED_NOTE = "interrupted: the run stopped while this step was running; it runs again on the next run"


class Event(BaseModel):
    type: EventType
    run_id: str
    step_id: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)
    at: dt.datetime = Field(default_factory=_now)


class _Workers:
    """Tokens of the steps being run right now in this process, one per attempt."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[str] = set()

    def claim(self) -> str:
        token = uuid.uuid4().hex
        with self._lock:
            self._live.add(token)
        return token

    def release(self, token: str) -> None:
        with self._lock:
            self._live.discard(token)

    def alive(self, token: str | None) -> bool:
        with self._lock:
            return token is not None and token in self._live


_workers = _Workers()


@dataclass
class _Schedule:
    """What a run needs from its plan at every step, computed once per call."""

    order: list[str]
    dependencies: dict[str, list[str]]
    positions: dict[str, int]
    # The steps in order[:finished] are succeeded, failed or skipped, which no step leaves: each
    # pass starts after them instead of looking at every step again (a long run paid its square).
    finished: int = 0

    def advance(self, run: Run) -> int:
        """Move ``finished`` past the steps that have finished since; the new value."""
        order, steps, n = self.order, run.steps, self.finished
        while n < len(order) and steps[order[n]].status in FINISHED:
            n += 1
        self.finished = n
        return n

    def unfinished(self, run: Run) -> Iterator[StepRun]:
        """The states of the steps from ``finished`` on, in order."""
        return map(run.steps.__getitem__, itertools.islice(self.order, self.finished, None))


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


class Executor:
    """Runs plans against ``registry``; refuses plans the validator finds errors in."""

    def __init__(self, registry: ToolRegistry, synthesizer: Synthesizer | None = None) -> None:
        self.registry = registry
        self.validator = Validator(registry)
        self.synthesizer = synthesizer

    def start(self, plan: Plan) -> Run:
        """A new run of ``plan``; raises ``PlanInvalid`` if the plan has errors, ``PlanError``
        if it was edited in place past a bound of ``core._limits``."""
        check_plan(plan)
        self.validator.ensure_valid(plan)
        return Run.for_plan(plan)

    def order(self, plan: Plan) -> list[str]:
        return run_order(plan)

    def run_next(self, run: Run) -> Iterator[Event]:
        """Run the next step that can run (skipping those whose dependencies did not succeed)."""
        yield from self._next(run, self._schedule(run.plan))

    def run_all(self, run: Run, *, should_stop: Callable[[], bool] | None = None) -> Iterator[Event]:
        """Run every step that can run; ``should_stop`` is asked before each step.

        Returns when the run finishes, when ``should_stop()`` is true (the rest stays pending),
        or when a pass runs nothing (another worker holds a step the rest wait for).
        """
        schedule = self._schedule(run.plan)
        while not run.finished:
            if should_stop is not None and should_stop():
                return
            done = self._done(run, schedule)
            yield from self._next(run, schedule)
            if not run.finished and self._done(run, schedule) == done:
                return

    def execute(self, plan: Plan) -> Run:
        """Validate and run the whole plan; return the finished run."""
        run = self.start(plan)
        for _ in self.run_all(run):
            pass
        return run

    @staticmethod
    def _done(run: Run, schedule: _Schedule) -> int:
        finished = schedule.advance(run)
        return finished + sum(map(FINISHED.__contains__, map(_status, schedule.unfinished(run))))

    def _schedule(self, plan: Plan) -> _Schedule:
        positions = {s.id: n for n, s in enumerate(plan.steps)}
        # What dependencies_of gives each step, with the positions looked up once for all.
        return _Schedule(order=self.order(plan),
                         dependencies={s.id: plan._dependencies(s, positions) for s in plan.steps},
                         positions=positions)

    def _next(self, run: Run, schedule: _Schedule) -> Iterator[Event]:
        if run.finished:
            return
        if run.started_at is None:
            run.started_at = _now()
            yield Event(type="turn_start", run_id=run.id, data={"goal": run.plan.goal})
            yield Event(type="plan_created", run_id=run.id,
                        data={"plan": run.plan.model_dump(mode="json")})
        yield from self._reclaim(run, schedule)
        for step_id in itertools.islice(schedule.order, schedule.advance(run), None):
            state = run.steps[step_id]
            if state.status not in RUNNABLE:
                continue
            dependencies = schedule.dependencies[step_id]
            blocked = [d for d in dependencies
                       if run.steps[d].status in BLOCKING]
            if blocked:
                state.status = StepStatus.skipped
                state.error = f"skipped: depends on {', '.join(run.plan.label(d) for d in blocked)}, which did not succeed"
                yield self._end_event(run, step_id)
                continue
            if any(run.steps[d].status != StepStatus.succeeded for d in dependencies):
                continue  # a step it needs is still running under another worker: wait for it
            yield from self._run_step(run, step_id, schedule)
            break
        if schedule.advance(run) == len(schedule.order) and FINISHED.issuperset(map(_status, run.steps.values())):
            yield from self._finish(run)

    def _reclaim(self, run: Run, schedule: _Schedule) -> Iterator[Event]:
        """Steps left ``running`` by a worker that is gone become ``interrupted``."""
        if StepStatus.running not in map(_status, schedule.unfinished(run)):
            return
        for step_id, state in run.steps.items():
            if state.status == StepStatus.running and not _workers.alive(state.worker):
                self._interrupt(state)
                yield self._end_event(run, step_id)

    @staticmethod
    def _interrupt(state: StepRun) -> None:
        state.status = StepStatus.interrupted
        state.worker = None
        state.error = INTERRUPTED_NOTE

    def _run_step(self, run: Run, step_id: str, schedule: _Schedule) -> Iterator[Event]:
        plan = run.plan
        index = schedule.positions[step_id]
        step = plan.steps[index]
        state = run.steps[step_id]
        token = _workers.claim()
        state.status = StepStatus.running
        state.worker = token
        state.started_at = _now()
        state.arguments = state.result = state.error = state.duration_ms = None
        completed = False
        try:
            yield Event(type="plan_step_start", run_id=run.id, step_id=step_id,
                        data={"index": index, "tool": step.tool, "note": step.note})
            began = time.perf_counter()
            arguments = result = error = None
            try:
                arguments = resolve_params(step.params, _Results(run))
                yield Event(type="tool_call", run_id=run.id, step_id=step_id,
                            data={"tool": step.tool, "arguments": arguments})
                result = self.registry.get(step.tool).call(arguments)
                status = StepStatus.succeeded
            except ToolCallError as exc:
                status, error = StepStatus.failed, str(exc)
            except Exception as exc:
                # A tool class of its own (not Tool.call) that let something through: the tool
                # ran, so the step failed; "interrupted" would run its side effect again.
                status, error = StepStatus.failed, f"{step.tool} failed: {type(exc).__name__}: {exc}"
            # Recorded together, only now: a step cut off above leaves no partial result.
            state.arguments, state.result, state.error = arguments, result, error
            state.duration_ms = round((time.perf_counter() - began) * 1000, 3)
            state.status = status
            state.worker = None
            completed = True
        finally:
            _workers.release(token)
            # Closed mid-step (GeneratorExit) or failed unexpectedly. A generator closed late,
            # after another worker took the step over, must leave the step alone.
            if not completed and state.worker == token:
                self._interrupt(state)
        yield Event(type="tool_result", run_id=run.id, step_id=step_id,
                    data={"tool": step.tool, "ok": state.status == StepStatus.succeeded,
                          "result": state.result, "error": state.error})
        yield self._end_event(run, step_id)

    def _end_event(self, run: Run, step_id: str) -> Event:
        state = run.steps[step_id]
        return Event(type="plan_step_end", run_id=run.id, step_id=step_id,
                     data={"status": state.status.value, "duration_ms": state.duration_ms,
                           "error": state.error})

    def _finish(self, run: Run) -> Iterator[Event]:
        if self.synthesizer is not None:
            parts: list[str] = []
            for piece in self.synthesizer(run):
                parts.append(piece)
                yield Event(type="text_delta", run_id=run.id, data={"text": piece})
            run.answer = "".join(parts)
        run.finished_at = _now()
        yield Event(type="turn_end", run_id=run.id, data={"status": run.status, "counts": run.counts()})

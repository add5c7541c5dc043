"""A run as one DBOS workflow, each tool call as one DBOS step.

The workflow drives the project's own executor (``Executor.run_all``: the same order, skips and
events as an in-memory run); only the tool calls go through DBOS, so after a kill the workflow
replays from its start and every step DBOS recorded returns its recorded outcome instead of
calling the tool again.

DBOS records a step only when it returns; a kill between the tool's effect and that record would
run the tool again. So each step also writes to the project's store, in its own transactions:
"started" with the resolved arguments before the call, the outcome right after. On replay the
store decides first:

- the step finished (outcome recorded): that outcome is returned, the tool is not called;
- the step started but never finished: a tool that may repeat (``_effects``) runs again; any
  other step is *in doubt* and waits, inside the workflow, for the user's decision
  (``DBOS.recv``, which survives restarts): "again" calls the tool, anything else fails the
  step without calling it.

The workflow's inputs are the run id and the steps a rerun reused (``seeded``); the plan and the
reused results are read from the run as stored, which a run never changes.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from dbos import DBOS

from .._errors import ToolCallError
from .._executor import Event, Executor
from .._registry import ToolRegistry
from .._run import Run, StepRun
from .._step_status import StepStatus
from ._effects import may_repeat

__all__ = ["IN_DOUBT", "Bound", "in_doubt_note", "bind", "bound", "doubt_topic", "run_workflow"]

# The note of a step that may have had its effect before a crash, and is not run again alone.
IN_DOUBT = "in doubt"
# How long an in-doubt step waits for a decision before it fails (a run is not kept open forever).
_DECISION_WAIT_SECONDS = 30 * 24 * 3600.0


def doubt_topic(step_id: str) -> str:
    return f"in-doubt:{step_id}"


@dataclass
class Bound:
    """What this process's workflows run with: the store, the tools, the final answer maker, and
    whoever listens to a run's events."""

    store: Any
    registry: ToolRegistry
    synthesizer: Any = None
    listeners: dict[str, Callable[[Event], None]] = field(default_factory=dict)
    # Set when a run ends or stops to wait for a decision: what a caller of resume waits on.
    stopped: dict[str, threading.Event] = field(default_factory=dict)
    active: set[str] = field(default_factory=set)  # runs being run in this process now

    def signal(self, run_id: str) -> None:
        event = self.stopped.get(run_id)
        if event is not None:
            event.set()


_bound: list[Bound] = []
_bind_lock = threading.Lock()


def bind(value: Bound) -> None:
    with _bind_lock:
        _bound[:] = [value]


def bound() -> Bound:
    if not _bound:
        raise RuntimeError("no durable runs are set up in this process")
    return _bound[0]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def in_doubt_note(tool: str) -> str:
    return (f"{IN_DOUBT}: {tool} was called before the run stopped and may have had its effect; "
            "it is not run again until you decide (run it again, or mark it failed)")


@DBOS.step(name="plan_studio_tool_call")
def call_step(run_id: str, step_id: str, tool_name: str, arguments: dict[str, Any], again: bool) -> dict[str, Any]:
    """Call one step's tool once, recorded in the store before and after (see the module)."""
    context = bound()
    records = context.store.records
    tool = context.registry.get(tool_name)
    status, note = records.step_state(run_id, step_id)
    if status in (StepStatus.succeeded.value, StepStatus.failed.value):
        stored = context.store.load_run(run_id).steps[step_id]  # finished before DBOS recorded it
        return {"ok": status == StepStatus.succeeded.value, "result": stored.result, "error": stored.error}
    cut_off = status == StepStatus.running.value or (note or "").startswith(IN_DOUBT)
    if cut_off and not again and not may_repeat(tool):
        records.step_marked(run_id, step_id, StepStatus.interrupted.value, in_doubt_note(tool_name),
                            run_status=IN_DOUBT)
        return {"in_doubt": True}
    started = _now()
    records.step_started(run_id, step_id, arguments, started)
    began = time.perf_counter()
    try:
        outcome: dict[str, Any] = {"ok": True, "result": tool.call(arguments), "error": None}
    except ToolCallError as exc:
        outcome = {"ok": False, "result": None, "error": str(exc)}
    except Exception as exc:  # the tool ran: the step failed (see Executor._run_step)
        outcome = {"ok": False, "result": None, "error": f"{tool_name} failed: {type(exc).__name__}: {exc}"}
    state = StepRun(step_id=step_id, status=StepStatus.succeeded if outcome["ok"] else StepStatus.failed,
                    arguments=arguments, result=outcome["result"], error=outcome["error"], started_at=started,
                    duration_ms=round((time.perf_counter() - began) * 1000, 3))
    records.step_finished(run_id, state)
    return outcome


class _Call:
    def __init__(self, calls: "_StepCalls", tool: str) -> None:
        self._calls, self._tool = calls, tool

    def call(self, arguments: dict[str, Any]) -> Any:
        run_id, step_id = self._calls.run_id, self._calls.current
        assert step_id is not None, "a tool was called outside a step"
        outcome = call_step(run_id, step_id, self._tool, arguments, False)
        if outcome.get("in_doubt"):
            decision = DBOS.recv(doubt_topic(step_id), timeout_seconds=_DECISION_WAIT_SECONDS)
            if decision != "again":
                error = (f"{IN_DOUBT}: not run again ({decision or 'no decision came'}); "
                         f"{self._tool} may have had its effect before the run stopped")
                bound().store.records.step_finished(run_id, StepRun(
                    step_id=step_id, status=StepStatus.failed, arguments=arguments, error=error))
                raise ToolCallError(error)
            outcome = call_step(run_id, step_id, self._tool, arguments, True)
        if outcome["ok"]:
            return outcome["result"]
        raise ToolCallError(outcome["error"])


class _StepCalls:
    """Stands in for the registry inside the executor: each tool call becomes a DBOS step of
    the step the executor is running (``current``, from its ``tool_call`` event)."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.current: str | None = None

    def get(self, name: str) -> _Call:
        return _Call(self, name)


@DBOS.workflow(name="plan_studio_run")
def run_workflow(run_id: str, seeded: list[str]) -> str:
    """Run the stored run ``run_id`` to its end; its final status."""
    context = bound()
    stored = context.store.load_run(run_id)
    run = Run(id=run_id, plan=stored.plan, steps={s.id: StepRun(step_id=s.id) for s in stored.plan.steps})
    for step_id in seeded:
        run.steps[step_id] = stored.steps[step_id]
    executor = Executor(context.registry, context.synthesizer)
    calls = _StepCalls(run_id)
    executor.registry = calls  # type: ignore[assignment]  # only tool calls go through it
    listener = context.listeners.get(run_id)
    context.active.add(run_id)
    try:
        for event in executor.run_all(run):
            if event.type == "plan_step_start":
                calls.current = None
            elif event.type == "tool_call":
                calls.current = event.step_id
            elif event.type == "plan_step_end" and event.step_id is not None and calls.current != event.step_id:
                # Ended without a tool call (skipped, or its references did not resolve): only
                # the executor knows; the same write on every replay.
                context.store.records.step_finished(run_id, run.steps[event.step_id])
            if listener is not None:
                listener(event)
        _record_end(context, run)
    finally:
        context.active.discard(run_id)
        context.signal(run_id)
    return run.status


def _record_end(context: Bound, run: Run) -> None:
    context.store.records.run_ended(run.id, status=run.status, finished_at=run.finished_at or _now(),
                                    answer=run.answer)

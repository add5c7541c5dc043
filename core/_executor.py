"""Runs an approved plan against a tool registry, one step at a time or all at once.

Execution yields the orchestrator's events as they happen, so a UI can show them live:

    turn_start → plan_created → (plan_step_start → tool_call → tool_result → plan_step_end)*
    → text_delta* (only with a synthesizer) → turn_end

Steps run in dependency order (plan order breaks ties). A step whose tool fails is marked
``failed`` with the error message; every step that depends on it, directly or not, is
``skipped``; the rest of the plan still runs.
"""

from __future__ import annotations

import datetime as dt
import enum
import threading
import time
import uuid
from typing import Any, Callable, Iterable, Iterator, Literal

from pydantic import BaseModel, Field

from ._errors import ToolCallError
from ._limits import check_plan
from ._plan import Plan
from ._registry import ToolRegistry
from ._templates import resolve_params
from ._validation import Validator

__all__ = ["Event", "EventType", "Executor", "Run", "StepRun", "StepStatus", "Synthesizer"]

EventType = Literal["turn_start", "plan_created", "plan_step_start", "tool_call", "tool_result",
                    "plan_step_end", "text_delta", "turn_end"]

_REMEMBERED_ORDERS = 64

# Turns a finished run into a final answer, yielded in pieces as they arrive.
Synthesizer = Callable[["Run"], Iterable[str]]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class StepStatus(str, enum.Enum):
    pending = "pending"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    skipped = "skipped"


class StepRun(BaseModel):
    """What happened to one step in one run."""

    step_id: str
    status: StepStatus = StepStatus.pending
    arguments: dict[str, Any] | None = None
    result: Any = None
    error: str | None = None
    started_at: dt.datetime | None = None
    duration_ms: float | None = None

    @property
    def rows(self) -> list[Any] | None:
        """The rows of a ``{"data": [...]}`` result, for showing as a table."""
        if isinstance(self.result, dict) and isinstance(self.result.get("data"), list):
            return self.result["data"]
        if isinstance(self.result, list):
            return self.result
        return None


class Run(BaseModel):
    """One execution of a plan, with every step's status and result."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    plan: Plan
    steps: dict[str, StepRun]
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    answer: str | None = None

    @classmethod
    def for_plan(cls, plan: Plan) -> "Run":
        return cls(plan=plan, steps={s.id: StepRun(step_id=s.id) for s in plan.steps})

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    @property
    def status(self) -> str:
        if self.finished:
            failed = any(s.status == StepStatus.failed for s in self.steps.values())
            return "failed" if failed else "succeeded"
        return "running" if self.started_at else "pending"

    def appended_results(self) -> dict[str, Any]:
        """Outputs of succeeded steps that asked to be part of the final result (``result_key``)."""
        return {s.result_key: self.steps[s.id].result for s in self.plan.steps
                if s.result_key and self.steps[s.id].status == StepStatus.succeeded}

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.steps.values():
            out[s.status.value] = out.get(s.status.value, 0) + 1
        return out


class Event(BaseModel):
    type: EventType
    run_id: str
    step_id: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)
    at: dt.datetime = Field(default_factory=_now)


class Executor:
    """Runs plans against ``registry``; refuses plans the validator finds errors in."""

    def __init__(self, registry: ToolRegistry, synthesizer: Synthesizer | None = None) -> None:
        self.registry = registry
        self.validator = Validator(registry)
        self.synthesizer = synthesizer
        # The order each unfinished run's steps go in, worked out once per run: every step
        # taken would otherwise re-read every reference in the plan. Run id -> (plan, order).
        self._orders: dict[str, tuple[Plan, list[str]]] = {}
        self._orders_lock = threading.Lock()  # the studio's sessions share one executor

    def start(self, plan: Plan) -> Run:
        """A new run of ``plan``; raises ``PlanInvalid`` if the plan has errors, ``PlanError``
        if it was edited in place past a bound of ``core._limits``."""
        check_plan(plan)
        self.validator.ensure_valid(plan)
        return Run.for_plan(plan)

    def order(self, plan: Plan) -> list[str]:
        import networkx as nx  # here, not at the top: it costs the command line ~0.5 s to import

        graph = nx.DiGraph()
        position = {s.id: n for n, s in enumerate(plan.steps)}
        graph.add_nodes_from(position)
        graph.add_edges_from(plan.edges())
        return list(nx.lexicographical_topological_sort(graph, key=position.__getitem__))

    def run_next(self, run: Run) -> Iterator[Event]:
        """Run the next step that can run (skipping those whose dependencies did not succeed)."""
        if run.finished:
            return
        if run.started_at is None:
            run.started_at = _now()
            yield Event(type="turn_start", run_id=run.id, data={"goal": run.plan.goal})
            yield Event(type="plan_created", run_id=run.id,
                        data={"plan": run.plan.model_dump(mode="json")})
        for step_id in self._order_of(run):
            state = run.steps[step_id]
            if state.status != StepStatus.pending:
                continue
            blocked = [d for d in run.plan.dependencies_of(step_id)
                       if run.steps[d].status in (StepStatus.failed, StepStatus.skipped)]
            if blocked:
                state.status = StepStatus.skipped
                state.error = f"skipped: depends on {', '.join(run.plan.label(d) for d in blocked)}, which did not succeed"
                yield self._end_event(run, step_id)
                continue
            yield from self._run_step(run, step_id)
            break
        if all(s.status not in (StepStatus.pending, StepStatus.running) for s in run.steps.values()):
            yield from self._finish(run)

    def _order_of(self, run: Run) -> list[str]:
        with self._orders_lock:
            cached = self._orders.get(run.id)
        if cached is None or cached[0] is not run.plan:
            cached = (run.plan, self.order(run.plan))
            with self._orders_lock:
                while len(self._orders) >= _REMEMBERED_ORDERS:  # runs left unfinished
                    del self._orders[next(iter(self._orders))]
                self._orders[run.id] = cached
        return cached[1]

    def run_all(self, run: Run) -> Iterator[Event]:
        while not run.finished:
            yield from self.run_next(run)

    def execute(self, plan: Plan) -> Run:
        """Validate and run the whole plan; return the finished run."""
        run = self.start(plan)
        for _ in self.run_all(run):
            pass
        return run

    def _run_step(self, run: Run, step_id: str) -> Iterator[Event]:
        plan = run.plan
        index = plan.index_of(step_id)
        step = plan.steps[index]
        state = run.steps[step_id]
        state.status = StepStatus.running
        state.started_at = _now()
        yield Event(type="plan_step_start", run_id=run.id, step_id=step_id,
                    data={"index": index, "tool": step.tool, "note": step.note})
        began = time.perf_counter()
        try:
            results = {plan.index_of(sid): s.result for sid, s in run.steps.items()
                       if s.status == StepStatus.succeeded}
            state.arguments = resolve_params(step.params, results)
            yield Event(type="tool_call", run_id=run.id, step_id=step_id,
                        data={"tool": step.tool, "arguments": state.arguments})
            state.result = self.registry.get(step.tool).call(state.arguments)
            state.status = StepStatus.succeeded
        except ToolCallError as exc:
            state.status = StepStatus.failed
            state.error = str(exc)
        state.duration_ms = round((time.perf_counter() - began) * 1000, 3)
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
        with self._orders_lock:
            self._orders.pop(run.id, None)
        yield Event(type="turn_end", run_id=run.id, data={"status": run.status, "counts": run.counts()})

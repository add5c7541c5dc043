"""The spans of a run: its root, one per step, and one per wait for a person.

Made from the run as it stands when a step or the run ends (``StepRun``'s times, retries and
decision), never from state kept between hooks: a run driven on a pool of threads, by a DBOS
workflow, resumed by another process or decided in the studio while a worker holds it gives
the same tree. Every span of a run is in the trace whose id is a hash of the run's id, under
the root span whose id is one too (``_ids``); the root itself is made when the run finishes,
by whichever process finishes it (a run that never finishes shows its steps under a root that
never came: the trace says so).

    invoke_agent plan-studio              the run, started to finished
      execute_tool <tool>                 each step: its calls (retries as events), its status,
                                          the decision that let it run or stopped it
      await_approval <tool>               each wait for a person: asked to decided, who decided
                                          (every approver an event), the hash of what was shown
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from opentelemetry import context as otel_context, trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from ..run._model import Run, StepDecision
from ..run._status import CUT_OFF, EXPLAINED, FINISHED, GOING, StepStatus
from ._attributes import nanos, text, without_none
from ._ids import chosen_ids, run_root_span_id, run_trace_id

__all__ = ["run_span", "step_span", "wait_span", "AGENT_NAME"]

AGENT_NAME = "plan-studio"
# A step's span is made once it has ended: finished, or stopped mid-call (interrupted, cancelled).
_ENDED = FINISHED | (CUT_OFF - GOING)
# ... and marked an error when it ended without succeeding for a reason of its own (a skipped
# step's reason is the step before it).
_FAILED = frozenset(s for s in _ENDED & EXPLAINED if s is not StepStatus.skipped)


def _under_run(run_id: str) -> Any:
    """The context of a span made under the run's root, wherever that root is made."""
    root = SpanContext(run_trace_id(run_id), run_root_span_id(run_id), is_remote=True,
                       trace_flags=TraceFlags(TraceFlags.SAMPLED))
    return trace.set_span_in_context(NonRecordingSpan(root), otel_context.Context())


def _tool(run: Run, step_id: str) -> str:
    try:
        return run.plan.step(step_id).tool
    except KeyError:
        return ""


def _decision(decision: StepDecision | None, prefix: str = "plan_studio.decision.") -> dict[str, Any]:
    if decision is None:
        return {}
    return without_none({
        f"{prefix}approved": decision.approved,
        f"{prefix}actor.id": text(decision.actor_id),
        f"{prefix}actor.kind": decision.actor_kind,
        f"{prefix}actor.name": text(decision.actor_name),
        f"{prefix}rule": text(decision.rule),
        f"{prefix}channel": decision.channel,
        f"{prefix}shown_hash": decision.shown_hash,
        f"{prefix}arguments_hash": decision.arguments_hash,
        f"{prefix}scope": decision.scope,
        f"{prefix}edited": decision.edited,
        f"{prefix}grant_id": decision.grant_id,
    })


def step_span(tracer: Any, run: Run, step_id: str) -> None:
    """The span of a step that has ended (a step that starts to wait has none yet)."""
    state = run.steps[step_id]
    if state.status not in _ENDED:
        return
    tool = _tool(run, step_id)
    now = dt.datetime.now(dt.timezone.utc)
    first = state.retried[0].started_at if state.retried else state.started_at
    start = nanos(first) or nanos(now)
    end = (nanos(state.started_at + dt.timedelta(milliseconds=state.duration_ms))
           if state.started_at is not None and state.duration_ms is not None else None) or max(start, nanos(now))
    attributes = without_none({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": text(tool),
        "gen_ai.tool.call.id": f"{run.id}/{step_id}",
        "gen_ai.tool.type": "function",
        "plan_studio.run.id": run.id,
        "plan_studio.step.id": step_id,
        "plan_studio.step.status": state.status.value,
        "plan_studio.step.calls": len(state.retried) + (1 if state.started_at is not None else 0),
        "plan_studio.step.duration_ms": state.duration_ms,
        **_decision(state.decision),
    })
    if state.status in _FAILED:
        attributes["error.type"] = state.status.value
        if state.error:
            attributes["plan_studio.step.error"] = text(state.error)
    span = tracer.start_span(f"execute_tool {text(tool, 64)}", context=_under_run(run.id), kind=SpanKind.INTERNAL,
                             attributes=attributes, start_time=start)
    for attempt in state.retried:
        span.add_event("plan_studio.retry", without_none({
            "plan_studio.attempt": attempt.number, "plan_studio.attempt.duration_ms": attempt.duration_ms,
            "plan_studio.attempt.error": text(attempt.error or "failed")}), timestamp=nanos(attempt.started_at))
    if state.status in _FAILED:
        span.set_status(Status(StatusCode.ERROR, text(state.error or state.status.value)))
    span.end(end_time=max(end, start))


def wait_span(tracer: Any, run: Run, step_id: str) -> None:
    """The span of a step's wait for people, once a decision settled it (approved as often as
    it asks, or rejected): from when it was asked to that decision."""
    state = run.steps[step_id]
    decision = state.decision
    if decision is None:
        return
    tool = _tool(run, step_id)
    ask = state.ask
    decided = nanos(decision.decided_at)
    asked = nanos(getattr(ask, "asked_at", None)) or min(
        [nanos(a.decided_at) for a in state.approvals] + [decided])
    attributes = without_none({
        "gen_ai.tool.name": text(tool),
        "gen_ai.tool.call.id": f"{run.id}/{step_id}",
        "plan_studio.run.id": run.id,
        "plan_studio.step.id": step_id,
        "plan_studio.wait.approvers": ask.approvers if ask is not None else None,
        "plan_studio.wait.rule": text(ask.rule) if ask is not None else None,
        "plan_studio.wait.reason": text(ask.reason) if ask is not None else None,
        **_decision(decision),
    })
    span = tracer.start_span(f"await_approval {text(tool, 64)}", context=_under_run(run.id),
                             attributes=attributes, start_time=min(asked, decided))
    for approval in state.approvals:
        span.add_event("plan_studio.decision", _decision(approval, "plan_studio.decision."),
                       timestamp=nanos(approval.decided_at))
    if not decision.approved:
        span.set_status(Status(StatusCode.ERROR, "rejected"))
    span.end(end_time=decided)


def run_span(tracer: Any, run: Run) -> None:
    """The root span of a run that has finished: every step's span and wait is under it."""
    counts = run.counts()
    # Told before the run is marked finished (``run.status`` still says "running" then).
    status = "failed" if counts.get(StepStatus.failed.value) or counts.get(StepStatus.rejected.value) else "succeeded"
    attributes = without_none({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": AGENT_NAME,
        "gen_ai.agent.id": run.id,
        "plan_studio.run.id": run.id,
        "plan_studio.run.status": status,
        "plan_studio.run.submitted_by": text(run.submitted_by) if run.submitted_by else None,
        "plan_studio.plan.goal": text(run.plan.goal),
        "plan_studio.plan.steps": len(run.plan.steps),
        "plan_studio.plan.planner": text(getattr(run.plan.metadata, "planner", "")),
        **{f"plan_studio.run.steps.{status}": count for status, count in counts.items()},
    })
    now = nanos(dt.datetime.now(dt.timezone.utc))
    start = nanos(run.started_at) or now
    with chosen_ids(tracer, run_trace_id(run.id), run_root_span_id(run.id)):
        span = tracer.start_span(f"invoke_agent {AGENT_NAME}", context=otel_context.Context(),
                                 kind=SpanKind.INTERNAL, attributes=attributes, start_time=start)
    if status == "failed":
        span.set_status(Status(StatusCode.ERROR, "a step failed or was rejected"))
    span.end(end_time=max(now, start))

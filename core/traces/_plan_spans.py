"""The spans of planning and of a review.

    invoke_agent <planner>        a planner made a plan (or failed to): the goal, the model, how
      chat <model>                many attempts; each request to the model (the LLM planner)
                                  with its tokens, and the repair sent back as an event
    review                        an agent's plan from submitted to decided, who decided, how

Made from the planner log the plan carries (``core.planners._planner_log``: each attempt's
seconds, tokens, problems and repair) when the planner returns, so a planner says nothing to
the tracer itself; the attempts are laid end to end from the planning's start.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from opentelemetry import context as otel_context, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from ._attributes import nanos, text, without_none

__all__ = ["planning_span", "review_span"]


def planning_span(tracer: Any, *, planner: str, goal: str, started_at: dt.datetime | None, plan: Any = None,
                  error: BaseException | None = None) -> None:
    """The span of one planning (a new goal or a re-plan), with a child per model request."""
    metadata = getattr(plan, "metadata", None)
    log = getattr(metadata, "planner_log", None) if metadata is not None else getattr(error, "planner_log", None)
    attempts = [entry for entry in log if isinstance(entry, dict)] if isinstance(log, list) else []
    model = getattr(metadata, "model", None) or next((e.get("model") for e in attempts if e.get("model")), None)
    now = nanos(dt.datetime.now(dt.timezone.utc))
    start = nanos(started_at) or now
    attributes = without_none({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": text(planner, 64),
        "gen_ai.request.model": text(model, 128) if model else None,
        "plan_studio.planner": text(planner, 64),
        "plan_studio.plan.goal": text(goal),
        "plan_studio.plan.attempts": len(attempts) or None,
        "plan_studio.plan.steps": len(plan.steps) if plan is not None else None,
        "gen_ai.usage.input_tokens": _total(attempts, "prompt_tokens"),
        "gen_ai.usage.output_tokens": _total(attempts, "completion_tokens"),
    })
    if error is not None:
        attributes["error.type"] = type(error).__name__
    span = tracer.start_span(f"invoke_agent {text(planner, 64)}", context=otel_context.Context(),
                             kind=SpanKind.INTERNAL, attributes=attributes, start_time=start)
    inside = trace.set_span_in_context(span, otel_context.Context())
    at = start
    for entry in attempts:
        seconds = entry.get("seconds")
        if not isinstance(seconds, (int, float)):  # no model request (the embedded planner): an event
            span.add_event("plan_studio.attempt", without_none({"plan_studio.attempt": entry.get("attempt")}))
            continue
        at = _chat_span(tracer, inside, entry, model, at)
    if error is not None:
        span.set_status(Status(StatusCode.ERROR, text(error)))
    span.end(end_time=max(now, at))


def _chat_span(tracer: Any, parent: Any, entry: dict[str, Any], model: str | None, start: int) -> int:
    problems = entry.get("problem_count")
    chat = tracer.start_span(f"chat {text(model or 'model', 128)}", context=parent, kind=SpanKind.CLIENT,
                             start_time=start, attributes=without_none({
                                 "gen_ai.operation.name": "chat",
                                 "gen_ai.request.model": text(model, 128) if model else None,
                                 "gen_ai.request.temperature": _number(entry.get("temperature")),
                                 "gen_ai.usage.input_tokens": _int(entry.get("prompt_tokens")),
                                 "gen_ai.usage.output_tokens": _int(entry.get("completion_tokens")),
                                 "gen_ai.output.type": "json",
                                 "plan_studio.attempt": _int(entry.get("attempt")),
                                 "plan_studio.attempt.problems": _int(problems),
                             }))
    if entry.get("repair"):
        first = (entry.get("problems") or [""])[0]
        chat.add_event("plan_studio.repair", without_none({"plan_studio.attempt.problems": _int(problems),
                                                           "plan_studio.problem": text(first) if first else None}))
    if entry.get("error"):
        chat.set_status(Status(StatusCode.ERROR, text(entry["error"])))
    elif problems:
        chat.set_status(Status(StatusCode.ERROR, f"{problems} problem(s): repaired"))
    end = start + int(float(entry["seconds"]) * 1_000_000_000)
    chat.end(end_time=end)
    return end


def review_span(tracer: Any, review: Any, actor: Any = None) -> None:
    """The span of a review from its submission to its decision."""
    submitted, decided = nanos(review.submitted_at), nanos(review.decided_at or dt.datetime.now(dt.timezone.utc))
    approved = review.status == "approved"
    span = tracer.start_span("review", context=otel_context.Context(), kind=SpanKind.INTERNAL,
                             start_time=min(submitted, decided), attributes=without_none({
                                 "plan_studio.review.id": text(review.id, 64),
                                 "plan_studio.review.agent": text(review.agent, 128),
                                 "plan_studio.review.status": text(review.status, 32),
                                 "plan_studio.review.submitted_by": text(review.submitted_by)
                                 if review.submitted_by else None,
                                 "plan_studio.plan.goal": text(review.goal),
                                 "plan_studio.plan.id": review.plan_id,
                                 "plan_studio.plan.version": review.version,
                                 "plan_studio.review.step_decisions": len(review.decisions),
                                 "plan_studio.decision.approved": approved,
                                 "plan_studio.decision.actor.id": text(actor.id) if actor is not None else None,
                                 "plan_studio.decision.actor.kind": getattr(actor, "kind", None),
                                 "plan_studio.decision.actor.name": text(actor.name) if actor is not None else None,
                             }))
    span.add_event("plan_studio.review.submitted", timestamp=submitted)
    span.add_event("plan_studio.review.decided", {"plan_studio.decision.approved": approved}, timestamp=decided)
    span.end(end_time=max(submitted, decided))


def _total(attempts: list[dict[str, Any]], key: str) -> int | None:
    values = [entry[key] for entry in attempts if isinstance(entry.get(key), int)]
    return sum(values) if values else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

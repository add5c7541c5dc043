"""Reviews as agents see them: a submission read and stored, a review shown back as JSON.

The HTTP API and the MCP server both go through here, so both read submissions the same way
and answer with the same fields:

    review = submit_review(services, {"plan": {...}, "format": "native", "agent": "my-agent"})
    view = review_view(services, services.store.get_review(review.id))  # status, plan, problems, ...

A submission is ``plan`` (the plan's text, or for a JSON format the JSON itself), optional
``format`` (default: worked out from the content), ``agent`` (who sent it), ``goal`` (when the
plan carries none) and ``tools`` (the agent's own tool definitions, as MCP lists them). What
cannot be read raises ``ReviewRequestError`` naming the field; a plan with a step the policy
certainly denies, ``PolicyDenied`` naming each such step and its rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core import (FORMATS, LOCAL_ACTOR, Actor, PlanError, Role, require, ReviewRequestError, ToolRegistry, Validator, dump_plan,
                  parse_tool_definitions, with_declared_tools)
from core.access import ActorKind
from core.formats import detect_and_load
from core.policy import check_plan

from core.access import Actor

from ._agent_callbacks import callback_fields
from ._audit import record
from ._services import Services

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import Review

__all__ = ["submitting_agent", "MAX_AGENT_NAME", "MAX_WAIT_SECONDS", "REVIEWS_URL_PATH", "registry_for", "review_link", "review_view",
           "submission_answer", "submit_review"]

MAX_AGENT_NAME = 200
MAX_WAIT_SECONDS = 600.0  # the longest an agent may wait for a decision in one call (HTTP or MCP)
REVIEWS_URL_PATH = "reviews"  # the Reviews page's URL path; a review's link opens it there
_FIELDS = {"plan", "format", "agent", "goal", "tools", "callback_url", "callback_secret"}


def _text_field(body: dict[str, Any], name: str, default: str, limit: int) -> str:
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ReviewRequestError(name, f"must be a string, not {type(value).__name__}")
    if len(value) > limit:
        raise ReviewRequestError(name, f"is {len(value)} characters long; at most {limit} are taken")
    return value.strip() or default


def _plan_text(body: dict[str, Any], fmt: str | None) -> str:
    if "plan" not in body or body["plan"] is None:
        raise ReviewRequestError("plan", "is required: the plan's text, or for a JSON format the plan itself")
    plan = body["plan"]
    if isinstance(plan, str):
        if not plan.strip():
            raise ReviewRequestError("plan", "is empty")
        return plan
    if isinstance(plan, (dict, list)):
        if fmt is not None and FORMATS[fmt].suffix != ".json":
            raise ReviewRequestError("plan", f"the {FORMATS[fmt].label} is text: send it as a string")
        return json.dumps(plan, ensure_ascii=False, indent=2)
    raise ReviewRequestError("plan", f"must be a string or a JSON object, not {type(plan).__name__}")


def _format(body: dict[str, Any]) -> str | None:
    fmt = body.get("format")
    if fmt is None:
        return None
    readable = [name for name, f in FORMATS.items() if f.load is not None]
    if not isinstance(fmt, str) or fmt not in readable:
        raise ReviewRequestError("format", f"unknown format {fmt!r}; one of: {', '.join(readable)}")
    return fmt


def review_link(studio_url: str, review_id: str) -> str:
    """The link that opens review ``review_id`` on the Reviews page of the studio at ``studio_url``."""
    return f"{studio_url.rstrip('/')}/{REVIEWS_URL_PATH}?review={review_id}"


def registry_for(services: Services, tools: list[dict[str, Any]] | None) -> ToolRegistry:
    """The tools a review's plan is checked against: the studio's and the agent's own."""
    if not tools:
        return services.registry
    return with_declared_tools(services.registry, parse_tool_definitions(tools))


def submitting_agent(agent: Actor | str | None) -> Actor | None:
    """The submitting agent as an actor: an ``Actor`` as it is; a review's agent name (until
    agents sign in with their own tokens) as ``agent:<name>``."""
    if agent is None or isinstance(agent, Actor):
        return agent
    if agent.startswith(("agent:", "user:")):  # an actor's id, as a run keeps who submitted it
        kind: ActorKind = "agent" if agent.startswith("agent:") else "person"
        return Actor(id=agent, name=agent.partition(":")[2], kind=kind, role=Role.reviewer)
    return Actor(id=f"agent:{agent}", name=agent, kind="agent", role=Role.reviewer)


def submit_review(services: Services, body: Any, *, actor: Actor = LOCAL_ACTOR, channel: str = "") -> Review:
    """Read ``body`` (a submission, as decoded JSON) and store it as a pending review, recording
    ``actor`` as who submitted it (an approver may not approve their own), on record in the
    audit with ``channel``."""
    require(actor, Role.reviewer, "submit a plan for review")
    if not isinstance(body, dict):
        raise ReviewRequestError("body", f"must be a JSON object, not {type(body).__name__}")
    unknown = sorted(set(body) - _FIELDS)
    if unknown:
        raise ReviewRequestError(unknown[0], f"is not a field of a review request; the fields are "
                                             f"{', '.join(sorted(_FIELDS))}")
    fmt = _format(body)
    text = _plan_text(body, fmt)
    agent = _text_field(body, "agent", "agent", MAX_AGENT_NAME)
    goal = _text_field(body, "goal", "", 10_000)
    callback_url, callback_secret, _made_here = callback_fields(body)
    definitions = parse_tool_definitions(body.get("tools"))
    tools = [d.as_json() for d in definitions] or None
    registry = registry_for(services, tools)
    try:
        plan, fmt = detect_and_load(Path("submitted"), text, fmt, registry)
    except PlanError as exc:
        raise ReviewRequestError("plan", str(exc)) from exc
    if goal and not plan.goal:
        plan = plan.model_copy(update={"goal": goal})
    # Refused before it is stored: a plan the policy denies a step of never waits for a review.
    check_plan(services.executor.limits.rules, plan, registry,
               actor if actor.kind == "agent" else submitting_agent(agent))
    try:
        review = services.store.submit_review(plan, agent=agent, fmt=fmt, original_text=text, tools=tools,
                                              submitted_by=actor.id, callback_url=callback_url,
                                              callback_secret=callback_secret)
    except PlanError as exc:  # read, but past a bound the store keeps plans within
        raise ReviewRequestError("plan", str(exc)) from exc
    if services.notifier is not None:  # the admin's webhook, with a signed link (``_webhooks``)
        services.notifier.review_submitted(review)
    record(services, actor, "review.submitted", {"review": review.id, "agent": agent},
           {"goal": plan.goal, "format": fmt, "steps": len(plan.steps),
            "tools": sorted({step.tool for step in plan.steps}), "own_tools": len(tools or [])}, channel=channel)
    return review


def submission_answer(review: Review, body: Any, url: str) -> dict[str, Any]:
    """What submission ``body`` answers, over HTTP and MCP alike: ``review_id`` (``id``, its
    older name, too), ``status`` and ``url``; and the callback secret when the studio made it
    (the one time it is told)."""
    answer: dict[str, Any] = {"review_id": review.id, "id": review.id, "status": review.status, "url": url}
    if review.callback_url and isinstance(body, dict) and body.get("callback_secret") is None:
        answer["callback_secret"] = review.callback_secret
    return answer


def review_view(services: Services, review: Review, *, url: str | None = None,
                actor: Actor = LOCAL_ACTOR) -> dict[str, Any]:
    """The review as the API answers it: status, the plan as approved (edits included) or as
    sent while pending or rejected, the comment, a decision per step, and the problems the
    validator finds in that plan against the studio's tools and the agent's."""
    require(actor, Role.viewer, "read a review")
    plan = review.approved_plan or review.plan
    registry = registry_for(services, review.tools)
    problems = Validator(registry).validate(plan)
    fmt = review.format if FORMATS[review.format].dump is not None else "native"
    view: dict[str, Any] = {
        "review_id": review.id,
        "id": review.id,  # the older name of review_id, kept for clients written before it
        "status": review.status,
        "agent": review.agent,
        "goal": review.goal,
        "submitted_at": review.submitted_at.isoformat(),
        "submitted_by": review.submitted_by,
        "callback_url": review.callback_url,
        "decided_at": review.decided_at.isoformat() if review.decided_at else None,
        "comment": review.comment,
        "decisions": [{"step_id": d.step_id, "decision": d.decision} for d in review.decisions],
        "plan": json.loads(dump_plan(plan, "native")),
        "format": fmt,
        "plan_text": dump_plan(plan, fmt, registry),
        "problems": [{"severity": p.severity, "step_index": p.step_index, "step_id": p.step_id,
                      "field": p.field, "message": p.message} for p in problems],
        "approved_version": ({"plan_id": review.plan_id, "version": review.version}
                             if review.plan_id is not None else None),
    }
    if url is not None:
        view["url"] = url
    return view

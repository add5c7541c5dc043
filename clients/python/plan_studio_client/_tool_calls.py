"""What the adapters share: an agent's pending tool calls sent as one plan for review, and the
review's decision read back per call (run as is, run with the reviewer's edited arguments, or
not run, with the reviewer's comment for the model).

Each call is one step (its id made from the call's id); steps the reviewer added are not calls
the agent made, so they are not run. A review still pending when the wait runs out is
withdrawn and every call denied: nothing runs without a person's yes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._client import AsyncReviewClient, ReviewClient
from ._models import Review

__all__ = ["ToolCall", "Verdict", "areview_calls", "review_calls"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_NO_DECISION = "no decision in time"


@dataclass(frozen=True)
class ToolCall:
    call_id: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """What to do with one call: ``approved``; ``arguments`` the reviewer's edit (None: as
    called); ``message`` for the model when it is not run."""

    call: ToolCall
    approved: bool
    arguments: dict[str, Any] | None = None
    message: str = ""


def _step_ids(calls: list[ToolCall]) -> list[str]:
    ids: list[str] = []
    for n, call in enumerate(calls, 1):
        candidate = _UNSAFE.sub("_", call.call_id)[:64].lstrip("-") or f"call{n}"
        ids.append(candidate if candidate not in ids else f"{candidate}_{n}")
    return ids


def _submission(calls: list[ToolCall], goal: str | None, tools: list[dict[str, Any]] | None) -> dict[str, Any]:
    ids = _step_ids(calls)
    plan = {"goal": goal or "Tool calls an agent asks to make",
            "steps": [{"id": i, "tool": c.tool, "params": c.arguments} for i, c in zip(ids, calls)]}
    if tools is None:  # the agent's own tools, as far as the calls show them
        tools = [{"name": name, "description": f"{name} (a tool of the agent)",
                  "inputSchema": {"type": "object"}} for name in dict.fromkeys(c.tool for c in calls)]
    return {"plan": plan, "format": "native", "goal": goal, "tools": tools}


def _verdicts(review: Review, calls: list[ToolCall]) -> list[Verdict]:
    ids = _step_ids(calls)
    if not review.approved:
        why = review.comment or (f"the reviewer {review.status} the plan" if review.decided else _NO_DECISION)
        return [Verdict(c, False, message=f"Not run: {why}.") for c in calls]
    verdicts, params = review.verdicts(), review.step_params()
    out: list[Verdict] = []
    for step_id, call in zip(ids, calls):
        decision = verdicts.get(step_id, "approved")
        if decision in ("removed", "rejected") or step_id not in params:
            out.append(Verdict(call, False, message="Not run: the reviewer removed this call"
                                                    + (f" ({review.comment})." if review.comment else ".")))
        elif decision == "edited" or params[step_id] != call.arguments:
            out.append(Verdict(call, True, arguments=params[step_id]))
        else:
            out.append(Verdict(call, True))
    return out


def review_calls(client: ReviewClient, calls: list[ToolCall], *, agent: str, goal: str | None = None,
                 tools: list[dict[str, Any]] | None = None, timeout: float = 600.0) -> tuple[Review, list[Verdict]]:
    """Send ``calls`` for review, wait for the decision, and read it back per call."""
    body = _submission(calls, goal, tools)
    review = client.wait(client.submit(body["plan"], agent=agent, format="native", goal=body["goal"],
                                       tools=body["tools"]), timeout=timeout)
    if not review.decided:
        review = client.withdraw(review, _NO_DECISION)
    return review, _verdicts(review, calls)


async def areview_calls(client: AsyncReviewClient, calls: list[ToolCall], *, agent: str, goal: str | None = None,
                        tools: list[dict[str, Any]] | None = None,
                        timeout: float = 600.0) -> tuple[Review, list[Verdict]]:
    """``review_calls`` for asyncio."""
    body = _submission(calls, goal, tools)
    review = await client.wait(await client.submit(body["plan"], agent=agent, format="native", goal=body["goal"],
                                                   tools=body["tools"]), timeout=timeout)
    if not review.decided:
        review = await client.withdraw(review, _NO_DECISION)
    return review, _verdicts(review, calls)

"""pydantic-ai: answer an agent's deferred tool requests (tools with ``requires_approval=True``)
from a person's review in Plan Studio.

    agent = Agent(model, output_type=[str, DeferredToolRequests])
    result = agent.run_sync("...")
    if isinstance(result.output, DeferredToolRequests):
        answers = review_deferred(client, result.output, goal="...")
        result = agent.run_sync(message_history=result.all_messages(), deferred_tool_results=answers)

Approved calls run (with the reviewer's edited arguments, if any: ``ToolApproved(override_args)``);
removed or rejected ones are denied with the reviewer's comment (``ToolDenied``).
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied

from ._client import AsyncReviewClient, ReviewClient
from ._tool_calls import ToolCall, Verdict, areview_calls, review_calls

__all__ = ["areview_deferred", "review_deferred"]


def _calls(requests: DeferredToolRequests) -> list[ToolCall]:
    return [ToolCall(part.tool_call_id, part.tool_name, part.args_as_dict()) for part in requests.approvals]


def _results(verdicts: list[Verdict]) -> DeferredToolResults:
    approvals: dict[str, Any] = {}
    for v in verdicts:
        approvals[v.call.call_id] = (ToolApproved(override_args=v.arguments) if v.approved
                                     else ToolDenied(v.message))
    return DeferredToolResults(approvals=approvals)


def review_deferred(client: ReviewClient, requests: DeferredToolRequests, *, agent: str = "pydantic-ai",
                    goal: str | None = None, tools: list[dict[str, Any]] | None = None,
                    timeout: float = 600.0) -> DeferredToolResults:
    """The answers to ``requests``' approvals, as a person decided them in the studio."""
    _, verdicts = review_calls(client, _calls(requests), agent=agent, goal=goal, tools=tools, timeout=timeout)
    return _results(verdicts)


async def areview_deferred(client: AsyncReviewClient, requests: DeferredToolRequests, *, agent: str = "pydantic-ai",
                           goal: str | None = None, tools: list[dict[str, Any]] | None = None,
                           timeout: float = 600.0) -> DeferredToolResults:
    """``review_deferred`` for asyncio."""
    _, verdicts = await areview_calls(client, _calls(requests), agent=agent, goal=goal, tools=tools, timeout=timeout)
    return _results(verdicts)

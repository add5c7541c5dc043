"""OpenAI Agents SDK: answer a run's tool approval requests (tools with ``needs_approval=True``)
from a person's review in Plan Studio.

    result = await Runner.run(agent, "...")
    if result.interruptions:
        result = await Runner.run(agent, await areview_interruptions(client, result, goal="..."))

Approved calls run; removed or rejected ones are rejected with the reviewer's comment for the
model. The SDK runs an approved call with the arguments the model gave: a call the reviewer
edited is rejected with a message naming the edited arguments, so the model can call again
with them (and that call is reviewed in turn).
"""

from __future__ import annotations

import json
from typing import Any

from agents import RunState

from ._client import AsyncReviewClient, ReviewClient
from ._tool_calls import ToolCall, Verdict, areview_calls, review_calls

__all__ = ["areview_interruptions", "review_interruptions"]


def _calls(result: Any) -> list[ToolCall]:
    calls = []
    for n, item in enumerate(result.interruptions, 1):
        try:
            arguments = json.loads(item.arguments or "{}")
        except ValueError:
            arguments = {"arguments": item.arguments}
        calls.append(ToolCall(item.call_id or f"call{n}", item.name or "tool",
                              arguments if isinstance(arguments, dict) else {"arguments": arguments}))
    return calls


def _state(result: Any, verdicts: list[Verdict]) -> RunState[Any]:
    state = result.to_state()
    for item, verdict in zip(result.interruptions, verdicts):
        if verdict.approved and verdict.arguments is None:
            state.approve(item)
        elif verdict.approved:
            state.reject(item, rejection_message=("The reviewer changed the arguments; call the tool again "
                                                  f"with exactly these: {json.dumps(verdict.arguments)}"))
        else:
            state.reject(item, rejection_message=verdict.message)
    return state


def review_interruptions(client: ReviewClient, result: Any, *, agent: str = "openai-agents", goal: str | None = None,
                         tools: list[dict[str, Any]] | None = None, timeout: float = 600.0) -> RunState[Any]:
    """The run's state with each pending approval answered as a person decided it; pass it to
    ``Runner.run(agent, state)`` to go on."""
    _, verdicts = review_calls(client, _calls(result), agent=agent, goal=goal, tools=tools, timeout=timeout)
    return _state(result, verdicts)


async def areview_interruptions(client: AsyncReviewClient, result: Any, *, agent: str = "openai-agents",
                                goal: str | None = None, tools: list[dict[str, Any]] | None = None,
                                timeout: float = 600.0) -> RunState[Any]:
    """``review_interruptions`` for asyncio."""
    _, verdicts = await areview_calls(client, _calls(result), agent=agent, goal=goal, tools=tools, timeout=timeout)
    return _state(result, verdicts)

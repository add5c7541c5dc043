"""LangGraph: a node that sends the plan in the graph's state for a person's review in Plan
Studio and goes on with the plan as approved, the reviewer's edits included.

    graph.add_node("review", review_node(client))      # state: {"plan": ..., "review": ...}

The node waits for the decision (``AsyncReviewClient``: an async node, for ``ainvoke``). It
answers ``{"plan": <as approved, or as sent when not>, "review": {review_id, status, comment}}``;
route on ``state["review"]["status"]``. A review still pending when ``timeout`` runs out is
withdrawn (status ``withdrawn``).
"""

from __future__ import annotations

from typing import Any, Callable

from ._client import AsyncReviewClient, ReviewClient
from ._models import Review

__all__ = ["review_node"]

_NO_DECISION = "no decision in time"


def _update(review: Review, sent: Any, plan_key: str, review_key: str) -> dict[str, Any]:
    plan = review.plan if review.approved else sent
    return {plan_key: plan, review_key: {"review_id": review.review_id, "status": review.status,
                                         "comment": review.comment, "url": review.url}}


def review_node(client: ReviewClient | AsyncReviewClient, *, plan_key: str = "plan", review_key: str = "review",
                agent: str = "langgraph", tools: list[dict[str, Any]] | None = None,
                timeout: float = 600.0) -> Callable[[dict[str, Any]], Any]:
    """A graph node reviewing ``state[plan_key]`` (a plan: a dict or its text)."""
    if isinstance(client, AsyncReviewClient):
        async def areview(state: dict[str, Any]) -> dict[str, Any]:
            sent = state[plan_key]
            review = await client.wait(await client.submit(sent, agent=agent, tools=tools), timeout=timeout)
            if not review.decided:
                review = await client.withdraw(review, _NO_DECISION)
            return _update(review, sent, plan_key, review_key)
        return areview

    def review(state: dict[str, Any]) -> dict[str, Any]:
        sent = state[plan_key]
        found = client.wait(client.submit(sent, agent=agent, tools=tools), timeout=timeout)
        if not found.decided:
            found = client.withdraw(found, _NO_DECISION)
        return _update(found, sent, plan_key, review_key)
    return review

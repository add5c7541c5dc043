"""The review API's clients: ``ReviewClient`` (blocking) and ``AsyncReviewClient`` (asyncio),
the same calls with the same names.

    client = ReviewClient("http://127.0.0.1:8501", token=TOKEN)   # or PLAN_STUDIO_URL / PLAN_STUDIO_TOKEN
    review = client.submit(plan, agent="my-agent")                 # a dict, the plan's text, or core.Plan
    review = client.wait(review, timeout=600)                      # approved, rejected or withdrawn, or pending
    client.withdraw(review)                                        # no longer waiting for it
    step = client.waiting(run_id).waiting[0]; client.approve(run_id, step)
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from ._calls import (NETWORK_SLACK, SERVER_WAIT_LIMIT, Call, decision_call, error_of, review_id, submit_call,
                     token_from, url_from, wait_call, withdraw_call)
from ._models import DecisionResult, Review, ReviewServiceError, Waiting, WaitingStep

__all__ = ["AsyncReviewClient", "ReviewClient"]

_CONFLICT = 409  # a decision that could not apply: answered as a DecisionResult saying why


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Accept": "application/json", "User-Agent": "plan-studio-client"}


def _answer(response: httpx.Response, *, conflict_ok: bool = False) -> dict[str, Any]:
    if response.is_success or (conflict_ok and response.status_code == _CONFLICT):
        return response.json()
    raise error_of(response)


def _unreachable(url: str, exc: Exception) -> ReviewServiceError:
    return ReviewServiceError(0, f"cannot reach the studio at {url}: {exc}")


class ReviewClient:
    """Talks to one studio's review API, blocking. Use as a context manager, or ``close()``."""

    def __init__(self, url: str | None = None, token: str | None = None, *, timeout: float = 30.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.url = url_from(url)
        self._http = httpx.Client(base_url=self.url, headers=_headers(token_from(token)), timeout=timeout,
                                  transport=transport)

    def __enter__(self) -> "ReviewClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, call: Call, *, conflict_ok: bool = False) -> dict[str, Any]:
        timeout = None if not call.wait else call.wait + NETWORK_SLACK
        try:
            response = self._http.request(call.method, call.path, json=call.body,
                                          **({"timeout": timeout} if timeout else {}))
        except httpx.HTTPError as exc:
            raise _unreachable(self.url, exc) from None
        return _answer(response, conflict_ok=conflict_ok)

    def submit(self, plan: Any, *, agent: str = "python-client", format: str | None = None, goal: str | None = None,
               tools: list[dict[str, Any]] | None = None, callback_url: str | None = None,
               callback_secret: str | None = None) -> Review:
        """Send ``plan`` for review. ``tools``: your own tools' definitions as MCP lists them;
        ``callback_url``: where the studio posts (signed) once it is decided."""
        return Review.model_validate(self._send(submit_call(plan, agent=agent, format=format, goal=goal, tools=tools,
                                                            callback_url=callback_url,
                                                            callback_secret=callback_secret)))

    def get(self, review: Review | str) -> Review:
        return Review.model_validate(self._send(Call("GET", f"/api/reviews/{review_id(review)}")))

    def wait(self, review: Review | str, timeout: float = 600.0) -> Review:
        """The review once decided (approved, rejected or withdrawn), or as it is after
        ``timeout`` seconds (still ``pending``)."""
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            left = max(deadline - time.monotonic(), 0.0)
            chunk = min(left, SERVER_WAIT_LIMIT)
            found = Review.model_validate(self._send(wait_call(review, chunk)))
            if found.decided or left <= chunk:
                return found

    def withdraw(self, review: Review | str, reason: str = "") -> Review:
        """Withdraw your pending review: nobody can approve it any more."""
        return Review.model_validate(self._send(withdraw_call(review, reason)))

    def waiting(self, run_id: str) -> Waiting:
        """The steps of studio run ``run_id`` that wait for a person."""
        return Waiting.model_validate(self._send(Call("GET", f"/api/runs/{review_id(run_id)}/waiting")))

    def decide(self, run_id: str, step: WaitingStep | str, approve: bool, *, shown_hash: str | None = None,
               arguments: dict[str, Any] | None = None, grant: Any = None) -> DecisionResult:
        """Approve or reject a waiting step for exactly what was shown (its ``shown_hash``);
        ``arguments`` is an edit the step then runs with. A decision that cannot apply (stale,
        decided already) answers ``decided`` False with ``why``."""
        call = decision_call(run_id, step, approve, shown_hash=shown_hash, arguments=arguments, grant=grant)
        return DecisionResult.model_validate(self._send(call, conflict_ok=True))

    def approve(self, run_id: str, step: WaitingStep | str, **kwargs: Any) -> DecisionResult:
        return self.decide(run_id, step, True, **kwargs)

    def reject(self, run_id: str, step: WaitingStep | str, **kwargs: Any) -> DecisionResult:
        return self.decide(run_id, step, False, **kwargs)


class AsyncReviewClient:
    """``ReviewClient``'s calls for asyncio. Use with ``async with``, or ``await aclose()``."""

    def __init__(self, url: str | None = None, token: str | None = None, *, timeout: float = 30.0,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.url = url_from(url)
        self._http = httpx.AsyncClient(base_url=self.url, headers=_headers(token_from(token)), timeout=timeout,
                                       transport=transport)

    async def __aenter__(self) -> "AsyncReviewClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, call: Call, *, conflict_ok: bool = False) -> dict[str, Any]:
        timeout = None if not call.wait else call.wait + NETWORK_SLACK
        try:
            response = await self._http.request(call.method, call.path, json=call.body,
                                                **({"timeout": timeout} if timeout else {}))
        except httpx.HTTPError as exc:
            raise _unreachable(self.url, exc) from None
        return _answer(response, conflict_ok=conflict_ok)

    async def submit(self, plan: Any, *, agent: str = "python-client", format: str | None = None,
                     goal: str | None = None, tools: list[dict[str, Any]] | None = None,
                     callback_url: str | None = None, callback_secret: str | None = None) -> Review:
        return Review.model_validate(await self._send(submit_call(
            plan, agent=agent, format=format, goal=goal, tools=tools, callback_url=callback_url,
            callback_secret=callback_secret)))

    async def get(self, review: Review | str) -> Review:
        return Review.model_validate(await self._send(Call("GET", f"/api/reviews/{review_id(review)}")))

    async def wait(self, review: Review | str, timeout: float = 600.0) -> Review:
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            left = max(deadline - time.monotonic(), 0.0)
            chunk = min(left, SERVER_WAIT_LIMIT)
            found = Review.model_validate(await self._send(wait_call(review, chunk)))
            if found.decided or left <= chunk:
                return found

    async def withdraw(self, review: Review | str, reason: str = "") -> Review:
        return Review.model_validate(await self._send(withdraw_call(review, reason)))

    async def waiting(self, run_id: str) -> Waiting:
        return Waiting.model_validate(await self._send(Call("GET", f"/api/runs/{review_id(run_id)}/waiting")))

    async def decide(self, run_id: str, step: WaitingStep | str, approve: bool, *, shown_hash: str | None = None,
                     arguments: dict[str, Any] | None = None, grant: Any = None) -> DecisionResult:
        call = decision_call(run_id, step, approve, shown_hash=shown_hash, arguments=arguments, grant=grant)
        return DecisionResult.model_validate(await self._send(call, conflict_ok=True))

    async def approve(self, run_id: str, step: WaitingStep | str, **kwargs: Any) -> DecisionResult:
        return await self.decide(run_id, step, True, **kwargs)

    async def reject(self, run_id: str, step: WaitingStep | str, **kwargs: Any) -> DecisionResult:
        return await self.decide(run_id, step, False, **kwargs)

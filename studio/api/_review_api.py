"""The review API, served on the studio's own port beside the app (see ``asgi.py``).

    POST /api/reviews                          submit a plan   -> 201 {id, status, url}
    GET  /api/reviews/{id}                     the review      -> 200 {status, plan, comment, decisions, problems, ...}
    GET  /api/reviews/{id}/wait?timeout=S      the same, once decided or after S seconds (long poll)
    GET  /api/reviews?status=&agent=&limit=    the reviews, pending first -> 200 {reviews: [...]}
    POST /api/reviews/{id}/withdraw            (or DELETE /api/reviews/{id}) -> 200 the review, withdrawn

Every call needs ``Authorization: Bearer TOKEN``, an agent's own token (``plan-studio token
create NAME``); without it, or with an unknown one, the answer is 401 with the same message
whatever was asked, so nothing about reviews leaks (a revoked token is told it was revoked).
Submitting needs the reviewer role, reading the viewer role; else 403 naming the role. Bodies over
``MAX_BODY_BYTES`` are refused with 413; a submission that cannot be read gets 400 naming the
field (``plan``, ``format``, ``tools[2].inputSchema``, ...).
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import ReviewRequestError, Role, Settings, require

from ..workbench._api_token import ensure_token
from ..workbench import (MAX_WAIT_SECONDS, review_link, review_view, submission_answer, submit_review,
                         withdraw_review)
from ..workbench._services import Services
from ._http import ServicesSource, actor, guarded, read_body
from ._tcp_nodelay import nodelay_listening_sockets

__all__ = ["DEFAULT_WAIT_SECONDS", "api_routes", "make_token"]

DEFAULT_WAIT_SECONDS = 30.0
# How often a waiting request looks at the review's status: one indexed lookup in a thread.
_POLL_SECONDS = 0.25


def _link(request: Request, review_id: str) -> str:
    return review_link(str(request.base_url), review_id)


async def _submit(request: Request, services: Services) -> Response:
    body = await read_body(request)  # over the limit: 413 (``guarded``)
    review = await run_in_threadpool(lambda: submit_review(services, body, actor=actor(request), channel="api"))
    return JSONResponse(submission_answer(review, body, _link(request, review.id)), status_code=201)


async def _view(request: Request, services: Services, review_id: str) -> Response:
    def build() -> dict[str, Any]:
        return review_view(services, services.store.get_review(review_id), url=_link(request, review_id),
                           actor=actor(request))
    return JSONResponse(await run_in_threadpool(build))


async def _get(request: Request, services: Services) -> Response:
    return await _view(request, services, request.path_params["review_id"])


_LIST_LIMIT = 500
_STATUSES = ("pending", "approved", "rejected", "withdrawn")


async def _list(request: Request, services: Services) -> Response:
    """The reviews, pending first then newest first: ``status``, ``agent`` and ``limit`` keep some."""
    require(actor(request), Role.viewer, "list reviews")
    status = request.query_params.get("status") or None
    if status is not None and status not in _STATUSES:
        raise ReviewRequestError("status", f"must be one of {', '.join(_STATUSES)}, not {status!r}")
    text = request.query_params.get("limit", "100")
    if not text.isdigit() or not 1 <= int(text) <= _LIST_LIMIT:
        raise ReviewRequestError("limit", f"must be a whole number from 1 to {_LIST_LIMIT}, not {text!r}")
    found = await run_in_threadpool(services.store.list_reviews, status, agent=request.query_params.get("agent") or None,
                                    limit=int(text))
    return JSONResponse({"reviews": [
        {"review_id": r.id, "id": r.id, "status": r.status, "agent": r.agent, "goal": r.goal,
         "steps": r.step_count, "submitted_at": r.submitted_at.isoformat(),
         "decided_at": r.decided_at.isoformat() if r.decided_at else None, "url": _link(request, r.id)}
        for r in found]})


async def _withdraw(request: Request, services: Services) -> Response:
    """Withdraw a pending review: its submitter or an admin; 409 once it is decided."""
    review_id = request.path_params["review_id"]
    reason = ""
    if request.method == "POST" and request.headers.get("content-length", "0") != "0":
        body = await read_body(request)
        if not isinstance(body, dict):
            raise ReviewRequestError("body", "must be a JSON object like {\"reason\": \"...\"}")
        reason = body.get("reason", "")
    await run_in_threadpool(lambda: withdraw_review(services, review_id, actor=actor(request), channel="api",
                                                    reason=reason))
    return await _view(request, services, review_id)


def _timeout(request: Request) -> float:
    text = request.query_params.get("timeout")
    if text is None:
        return DEFAULT_WAIT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        raise ReviewRequestError("timeout", f"must be a number of seconds, not {text!r}") from None
    if not 0 <= seconds <= MAX_WAIT_SECONDS:  # also refuses nan
        raise ReviewRequestError("timeout", f"must be between 0 and {MAX_WAIT_SECONDS:g} seconds, not {text}")
    return seconds


async def _wait(request: Request, services: Services) -> Response:
    """The review once decided, or as it is when ``timeout`` runs out (then still pending).

    Polls the status (cheap) rather than waiting on this process alone: the decision may be
    made by another studio process or the MCP server writing to the same store."""
    review_id = request.path_params["review_id"]
    require(actor(request), Role.viewer, "read a review")
    deadline = time.monotonic() + _timeout(request)
    while True:
        status = await run_in_threadpool(services.store.review_status, review_id)
        left = deadline - time.monotonic()
        if status != "pending" or left <= 0 or await request.is_disconnected():
            return await _view(request, services, review_id)
        await asyncio.sleep(min(_POLL_SECONDS, left))


def api_routes(services: ServicesSource) -> list[Route]:
    """The review routes, each answering with the ``Services`` that ``services()`` gives."""
    return [
        Route("/api/reviews", guarded(_submit, services), methods=["POST"]),
        Route("/api/reviews", guarded(_list, services), methods=["GET"]),
        Route("/api/reviews/{review_id}", guarded(_get, services), methods=["GET"]),
        Route("/api/reviews/{review_id}", guarded(_withdraw, services), methods=["DELETE"]),
        Route("/api/reviews/{review_id}/withdraw", guarded(_withdraw, services), methods=["POST"]),
        Route("/api/reviews/{review_id}/wait", guarded(_wait, services), methods=["GET"]),
    ]


@asynccontextmanager
async def make_token(_app: object) -> AsyncIterator[None]:
    """The server's lifespan: the token exists from the first start, for Settings to show; the
    port, bound by now, answers without Nagle's delay (see ``_tcp_nodelay``)."""
    ensure_token(Settings.from_env().data_dir)
    nodelay_listening_sockets()
    yield None

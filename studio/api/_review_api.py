"""The review API, served on the studio's own port beside the app (see ``asgi.py``).

    POST /api/reviews                          submit a plan   -> 201 {id, status, url}
    GET  /api/reviews/{id}                     the review      -> 200 {status, plan, comment, decisions, problems, ...}
    GET  /api/reviews/{id}/wait?timeout=S      the same, once decided or after S seconds (long poll)

Every call needs ``Authorization: Bearer TOKEN``; without it, or with another token, the answer
is 401 with the same message whatever was asked, so nothing about reviews leaks. Bodies over
``MAX_BODY_BYTES`` are refused with 413; a submission that cannot be read gets 400 naming the
field (``plan``, ``format``, ``tools[2].inputSchema``, ...).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import NotFound, PlanStudioError, ReviewRequestError, Settings

from ..workbench._api_token import ensure_token, token_matches
from ..workbench import review_view, submit_review
from ..workbench._services import Services
from ._tcp_nodelay import nodelay_listening_sockets

__all__ = ["DEFAULT_WAIT_SECONDS", "MAX_BODY_BYTES", "MAX_WAIT_SECONDS", "REVIEWS_URL_PATH", "api_routes", "make_token"]

MAX_BODY_BYTES = 4 * 1024 * 1024  # a 1000-step plan with its tools is well under 1 MiB
DEFAULT_WAIT_SECONDS = 30.0
MAX_WAIT_SECONDS = 600.0
REVIEWS_URL_PATH = "reviews"  # the Reviews page's URL path; a review's link opens it there
# How often a waiting request looks at the review's status: one indexed lookup in a thread.
_POLL_SECONDS = 0.25
_UNAUTHORIZED = "unauthorized: send the header 'Authorization: Bearer TOKEN' (`plan-studio token` prints it)"

Handler = Callable[[Request, Services], Awaitable[Response]]


def _error(status: int, message: str, field: str | None = None, **headers: str) -> JSONResponse:
    body: dict[str, Any] = {"error": message}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status, headers=headers or None)


def _services() -> Services:
    # The studio's own cached services: the API and the pages share one store and one set of tools.
    from ..ui._session import get_services

    return get_services()


def _guarded(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` behind the token check, with the studio's errors as JSON answers."""
    async def endpoint(request: Request) -> Response:
        try:
            services = await run_in_threadpool(_services)
            token = await run_in_threadpool(ensure_token, services.settings.data_dir)
        except PlanStudioError as exc:
            # Said before the token is checked: the reason (a path, say) goes to the log only.
            print(f"plan-studio: the review API cannot serve: {exc}", file=sys.stderr, flush=True)
            return _error(503, "the studio cannot serve reviews now; its log says why")
        if not token_matches(request.headers.get("authorization"), token):
            return _error(401, _UNAUTHORIZED, **{"WWW-Authenticate": "Bearer"})
        try:
            return await handler(request, services)
        except _TooLarge:
            return _error(413, f"the request body is over {MAX_BODY_BYTES} bytes")
        except ReviewRequestError as exc:
            return _error(400, str(exc), exc.field)
        except NotFound as exc:
            return _error(404, str(exc))
        except PlanStudioError as exc:
            return _error(500, str(exc))
    return endpoint


async def _body(request: Request) -> Any:
    """The request's JSON body; ``ReviewRequestError`` for one that is not JSON, a
    ``_TooLarge`` for one over the limit (read no further than the limit)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise _TooLarge()
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise _TooLarge()
        chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except (ValueError, RecursionError) as exc:
        raise ReviewRequestError("body", f"is not JSON: {exc}") from None


class _TooLarge(Exception):
    pass


def _link(request: Request, review_id: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/{REVIEWS_URL_PATH}?review={review_id}"


async def _submit(request: Request, services: Services) -> Response:
    body = await _body(request)  # over the limit: 413 (``_guarded``)
    review = await run_in_threadpool(submit_review, services, body)
    return JSONResponse({"id": review.id, "status": review.status, "url": _link(request, review.id)},
                        status_code=201)


async def _view(request: Request, services: Services, review_id: str) -> Response:
    def build() -> dict[str, Any]:
        return review_view(services, services.store.get_review(review_id), url=_link(request, review_id))
    return JSONResponse(await run_in_threadpool(build))


async def _get(request: Request, services: Services) -> Response:
    return await _view(request, services, request.path_params["review_id"])


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
    deadline = time.monotonic() + _timeout(request)
    while True:
        status = await run_in_threadpool(services.store.review_status, review_id)
        left = deadline - time.monotonic()
        if status != "pending" or left <= 0 or await request.is_disconnected():
            return await _view(request, services, review_id)
        await asyncio.sleep(min(_POLL_SECONDS, left))


def api_routes() -> list[Route]:
    return [
        Route("/api/reviews", _guarded(_submit), methods=["POST"]),
        Route("/api/reviews/{review_id}", _guarded(_get), methods=["GET"]),
        Route("/api/reviews/{review_id}/wait", _guarded(_wait), methods=["GET"]),
    ]


@asynccontextmanager
async def make_token(_app: object) -> AsyncIterator[None]:
    """The server's lifespan: the token exists from the first start, for Settings to show; the
    port, bound by now, answers without Nagle's delay (see ``_tcp_nodelay``)."""
    ensure_token(Settings.from_env().data_dir)
    nodelay_listening_sockets()
    yield None

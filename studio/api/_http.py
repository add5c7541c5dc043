"""What every route of the review API shares: who calls (an agent's token), the studio's errors
as JSON answers, and a JSON body read no further than ``MAX_BODY_BYTES``.

A route's handler takes the request and the studio's ``Services``; ``guarded(handler,
services)`` puts it behind the token check: the bearer token is resolved to its agent's
``Actor`` (``request.state.actor``; 401 for none, an unknown token or a revoked one, saying
it was revoked), and a use case refusing the actor's role (``core.Forbidden``) is a 403 naming
the role needed. ``services`` is how the API reaches the studio's
own services (``studio/asgi.py`` hands over the pages' cached ones, a test its own), so this
room imports no other interface's modules.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Awaitable, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from core import (Actor, Forbidden, NotFound, PlanStudioError, PolicyDenied, ReviewDecided, ReviewRequestError,
                  Unauthenticated)

from ..workbench._agent_tokens import actor_for_bearer
from ..workbench._services import Services

__all__ = ["Handler", "MAX_BODY_BYTES", "ServicesSource", "actor", "error", "guarded", "read_body"]

MAX_BODY_BYTES = 4 * 1024 * 1024  # a 1000-step plan with its tools is well under 1 MiB

Handler = Callable[[Request, Services], Awaitable[Response]]
ServicesSource = Callable[[], Services]


def error(status: int, message: str, field: str | None = None, **headers: str) -> JSONResponse:
    body: dict[str, Any] = {"error": message}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status, headers=headers or None)


def guarded(handler: Handler, services: ServicesSource) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` behind the token check, with the studio's errors as JSON answers."""
    async def endpoint(request: Request) -> Response:
        header = request.headers.get("authorization")
        try:
            serving = await run_in_threadpool(services)
            request.state.actor = await run_in_threadpool(actor_for_bearer, serving, header)
        except Unauthenticated as exc:
            return error(401, str(exc), **{"WWW-Authenticate": "Bearer"})
        except PlanStudioError as exc:
            # Said before the token is checked: the reason (a path, say) goes to the log only.
            print(f"plan-studio: the review API cannot serve: {exc}", file=sys.stderr, flush=True)
            return error(503, "the studio cannot serve reviews now; its log says why")
        try:
            return await handler(request, serving)
        except Forbidden as exc:
            return JSONResponse({"error": str(exc), "needed": exc.needed}, status_code=403)
        except _TooLarge:
            return error(413, f"the request body is over {MAX_BODY_BYTES} bytes")
        except ReviewRequestError as exc:
            return error(400, str(exc), exc.field)
        except NotFound as exc:
            return error(404, str(exc))
        except ReviewDecided as exc:  # decided or withdrawn already: nothing changes
            return JSONResponse({"error": str(exc), "status": exc.status}, status_code=409)
        except PolicyDenied as exc:  # the policy refuses the plan: named steps and rules
            return JSONResponse({"error": str(exc), "steps": exc.step_ids, "rules": exc.rules}, status_code=403)
        except PlanStudioError as exc:
            return error(500, str(exc))
    return endpoint


def actor(request: Request) -> Actor:
    """Who calls: the agent whose token ``guarded`` checked."""
    return request.state.actor


async def read_body(request: Request) -> Any:
    """The request's JSON body; ``ReviewRequestError`` for one that is not JSON, a 413 answer
    (through ``guarded``) for one over the limit (read no further than the limit)."""
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

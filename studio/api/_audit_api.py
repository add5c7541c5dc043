"""The audit over HTTP: a page of it, filtered, newest first.

    GET /api/audit?agent=&person=&tool=&rule=&action=&since=&until=&limit=&cursor=
        -> 200 {events: [{id, at, actor: {id, kind, name}, channel, action, subject, detail}],
                next_cursor}   (next_cursor: pass it as ``cursor`` for the page after; null: the last)
        -> 400 {error, field} naming a filter that is unknown or does not read

Behind the same token and origin rules as the rest of the review API (``_http.guarded``). Read
only: the audit has no way to be changed, here or anywhere in the studio.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import AuditQueryError

from ..workbench._audit import audit_events, audit_filter
from ..workbench._services import Services
from ._http import ServicesSource, actor, error, guarded

__all__ = ["audit_routes"]

_DEFAULT_LIMIT = 100
_MAX_LIMIT = 1000


def _number(request: Request, name: str, default: int | None, low: int, high: int) -> int | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise AuditQueryError(name, f"must be a whole number from {low} to {high}, not {text[:40]!r}")
    return int(text)


async def _audit(request: Request, services: Services) -> Response:
    try:
        limit = _number(request, "limit", _DEFAULT_LIMIT, 1, _MAX_LIMIT)
        cursor = _number(request, "cursor", None, 1, 2**63 - 1)
        given = {k: v for k, v in request.query_params.items() if k not in ("limit", "cursor")}
        filters = audit_filter(given)
    except AuditQueryError as exc:
        return error(400, str(exc), exc.field)
    # Until each token names its agent (issue 27, item 1), a caller with the token reads as the local user.
    who = actor(request)
    page = await run_in_threadpool(lambda: audit_events(services, who, filters, limit=limit or _DEFAULT_LIMIT,
                                                        cursor=cursor))
    return JSONResponse({"events": [event.as_json() for event in page.events], "next_cursor": page.next_cursor})


def audit_routes(services: ServicesSource) -> list[Route]:
    """``GET /api/audit``, answering with the ``Services`` that ``services()`` gives."""
    return [Route("/api/audit", guarded(_audit, services), methods=["GET"])]

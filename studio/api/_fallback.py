"""Every path under ``/api/`` answers JSON, never the app's page: a path no route serves is 404,
a method a path does not take is 405 with ``Allow`` (both ``{error}``), behind the same token
check as every other call (``_http.guarded``), so an unknown path tells a caller without a
token nothing more than a known one.

``api_fallback(routes)`` is the last route of the studio: it sees the request only when no
route before it matched in full.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Route

from ._http import ServicesSource, error, guarded
from ..workbench._services import Services

__all__ = ["api_fallback"]

_EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def api_fallback(routes: list[BaseRoute], services: ServicesSource) -> Route:
    """The catch-all of ``/api/...``, after ``routes`` (the API's own)."""
    async def answer(request: Request, _services: Services) -> Response:
        allowed = sorted({method for route in routes if isinstance(route, Route) and route.methods
                          and route.matches(request.scope)[0] is Match.PARTIAL for method in route.methods})
        if allowed:
            return error(405, f"{request.method} is not taken by {request.url.path}; it takes "
                              f"{', '.join(allowed)}", Allow=", ".join(allowed))
        return error(404, f"no API call {request.method} {request.url.path}; the calls are listed in "
                          "docs/review-api.md")
    # Every method named: a function endpoint would otherwise take only GET (and POST would be
    # answered by Starlette's plain-text 405).
    return Route("/api/{rest:path}", guarded(answer, services), methods=_EVERY_METHOD)

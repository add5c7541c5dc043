"""Liveness and readiness of the studio, for a container's healthcheck or an orchestrator:

    GET /healthz  -> 200 {"status": "ok"}                      the process serves requests
    GET /readyz   -> 200 {"status": "ready", "checks": {"store": "ok", "durable": "ok"}}
                     503 {"status": "not ready", "checks": {... "unavailable"}}

No token and no sign-in (``_sign_in_guard``), any ``Host`` (``_origin_guard``): they say ok or
not and nothing more (``workbench._health``).
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ._http import ServicesSource
from ..workbench._health import readiness

__all__ = ["health_routes"]

_NOT_STORED = {"cache-control": "no-store"}


def health_routes(services: ServicesSource) -> list[Route]:
    async def healthz(_request: Request) -> Response:
        return JSONResponse({"status": "ok"}, headers=_NOT_STORED)

    async def readyz(_request: Request) -> Response:
        try:
            checks = await run_in_threadpool(lambda: readiness(services()))
        except Exception:  # the services themselves cannot be made (a bad setting): not ready
            checks = {"services": "unavailable"}
        ready = all(v == "ok" for v in checks.values())
        return JSONResponse({"status": "ready" if ready else "not ready", "checks": checks},
                            status_code=200 if ready else 503, headers=_NOT_STORED)

    return [Route("/healthz", healthz, methods=["GET", "HEAD"]), Route("/readyz", readyz, methods=["GET", "HEAD"])]

"""The review API's grants: the scoped approvals kept in the studio, listed and revoked.

    GET    /api/grants            -> 200 {grants: [{id, tool, scope, run_id, arguments_hash, arguments,
                                          granted_by, granted_by_name, channel, created_at, expires_at}]}
                                     (live ones; ?all=1 with the revoked and expired too)
    DELETE /api/grants/{id}       -> 200 {revoked, notices}; 404 no such grant; 403 not allowed

Behind the review API's token and origin rules (``_http.guarded``).
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import Forbidden

from ._http import ServicesSource, actor, error, guarded
from ..workbench._services import Services
from ..workbench import list_grants, revoke_grant

__all__ = ["grant_routes"]


async def _listed(request: Request, services: Services) -> Response:
    everything = request.query_params.get("all") in ("1", "true")
    try:
        grants = await run_in_threadpool(lambda: list_grants(services, actor=actor(request), active_only=not everything))
    except Forbidden as exc:
        return error(403, str(exc))
    return JSONResponse({"grants": [g.model_dump(mode="json") for g in grants]})


async def _revoked(request: Request, services: Services) -> Response:
    grant_id = request.path_params["grant_id"]
    out = await run_in_threadpool(lambda: revoke_grant(services, grant_id, actor=actor(request)))
    if out.ok:
        return JSONResponse({"revoked": True, "notices": out.notices_json()})
    status = {"not_found": 404, "forbidden": 403}.get(out.refusal, 500)
    return error(status, out.notices[0].text if out.notices else "not revoked")


def grant_routes(services: ServicesSource) -> list[Route]:
    return [
        Route("/api/grants", guarded(_listed, services), methods=["GET"]),
        Route("/api/grants/{grant_id}", guarded(_revoked, services), methods=["DELETE"]),
    ]

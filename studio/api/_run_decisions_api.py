"""The review API's part for a pause for a person: a run's waiting steps and a decision on one.

    GET  /api/runs/{id}/waiting                  -> 200 {run_id, status, waiting: [{step_id, label,
                                                    tool, effects, reason, arguments, arguments_hash}]}
    POST /api/runs/{id}/steps/{step}/decision    {"approve": true|false, "arguments_hash": "..."}
                                                 -> 200 {decided, notices}; 409 when it cannot apply

Behind the same token and origin rules as the rest of the review API (``_http.guarded``,
the studio's origin guard). ``arguments_hash`` is the hash the caller was shown with the
arguments: a decision holds for exactly those (omit it only to decide on whatever they are).
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import ReviewRequestError, Role, require

from ._http import ServicesSource, actor, error, guarded, read_body
from ..workbench._services import Services
from ..workbench import decide_step, waiting_run, waiting_view

__all__ = ["run_routes"]


def _no_run(run_id: str) -> Response:
    return error(404, f"no run {run_id!r} waits for a decision here")


async def _waiting(request: Request, services: Services) -> Response:
    run_id = request.path_params["run_id"]
    require(actor(request), Role.viewer, "see the steps that wait")
    run = await run_in_threadpool(waiting_run, services, run_id)  # held here, or stored (after a restart)
    if run is None:
        return _no_run(run_id)

    def build() -> dict[str, Any]:
        return {"run_id": run.id, "status": run.status,
                "waiting": [w.as_json() for w in waiting_view(run, services.registry)]}
    return JSONResponse(await run_in_threadpool(build))


async def _decision(request: Request, services: Services) -> Response:
    run_id, step_id = request.path_params["run_id"], request.path_params["step_id"]
    body = await read_body(request)  # over the limit: 413 (``guarded``)
    if not isinstance(body, dict):
        raise ReviewRequestError("body", "must be a JSON object like {\"approve\": true, \"arguments_hash\": \"...\"}")
    approve = body.get("approve")
    if not isinstance(approve, bool):
        raise ReviewRequestError("approve", "must be true or false")
    seen = body.get("arguments_hash")
    if seen is not None and not isinstance(seen, str):
        raise ReviewRequestError("arguments_hash", "must be the string GET .../waiting gave")
    # Until decide_step takes the actor itself (the ``decide`` work), the role is checked here.
    who = actor(request)
    require(who, Role.approver, "decide on a waiting step")
    if await run_in_threadpool(waiting_run, services, run_id) is None:
        return _no_run(run_id)
    out = await run_in_threadpool(lambda: decide_step(services, run_id, step_id, approve, seen_hash=seen, by="api"))
    body_out = {"decided": out.ok, "notices": out.notices_json()}
    return JSONResponse(body_out, status_code=200 if out.ok else 409)


def run_routes(services: ServicesSource) -> list[Route]:
    return [
        Route("/api/runs/{run_id}/waiting", guarded(_waiting, services), methods=["GET"]),
        Route("/api/runs/{run_id}/steps/{step_id}/decision", guarded(_decision, services), methods=["POST"]),
    ]

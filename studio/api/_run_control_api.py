"""The review API's part for resuming and cancelling a run the studio stored.

    POST /api/runs/{id}/resume   {"decisions": {"STEP": "again" | "failed"}}  (body optional)
                                 -> 202 {run_id, resumed, again: [{step_id, label, tool, writes, in_doubt}],
                                    notices}; 409 when it cannot (finished, being run, a step in
                                    doubt without a decision: ``again`` lists them); 404 unknown id;
                                    503 (``why``: nobody) when nobody can carry it on (its worker gone)
    POST /api/runs/{id}/cancel   -> 200 {run_id, cancelled, notices}; 409 when this studio does
                                    not run it now; 404 unknown id

Behind the same token and origin rules as the rest of the review API (``_http.guarded``,
the studio's origin guard). The resumed run goes on in the studio, in the store as it goes; a
run a ``plan-studio worker`` holds goes on there, the decisions sent to it (``workbench._handing``).
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import ReviewRequestError

from ._http import ServicesSource, actor, error, guarded, read_body
from ..workbench._services import Services
from ..workbench import cancel_stored_run, resume_stored_run
from ..workbench._run_control import RunControl

__all__ = ["run_control_routes"]

_MAX_DECISIONS = 1000  # a plan has at most 1,000 steps


def _answer(run_id: str, control: RunControl, done: str, ok_status: int) -> Response:
    notices = control.outcome.notices_json()
    if not control.found:
        return error(404, notices[0]["text"] if notices else f"no run {run_id!r}")
    body: dict[str, Any] = {"run_id": run_id, done: control.outcome.ok, "notices": notices}
    if done == "resumed":
        body["again"] = [line.as_json() for line in control.again]
    if control.nobody:
        body["why"] = "nobody"
    return JSONResponse(body, status_code=ok_status if control.outcome.ok else 503 if control.nobody else 409)


async def _decisions(request: Request) -> dict[str, str]:
    empty = request.headers.get("content-length") in (None, "0") and "transfer-encoding" not in request.headers
    body = {} if empty else await read_body(request)  # read no further than the limit
    if not isinstance(body, dict):
        raise ReviewRequestError("body", "must be a JSON object like {\"decisions\": {\"step-id\": \"again\"}}")
    decisions = body.get("decisions", {})
    if not isinstance(decisions, dict) or len(decisions) > _MAX_DECISIONS:
        raise ReviewRequestError("decisions", "must be an object of step id to \"again\" or \"failed\"")
    for step, decision in decisions.items():
        if decision not in ("again", "failed"):
            raise ReviewRequestError(f"decisions.{step[:100]}", "must be \"again\" or \"failed\"")
    return decisions


async def _resume(request: Request, services: Services) -> Response:
    run_id = request.path_params["run_id"]
    decisions = await _decisions(request)  # over the limit: 413 (``guarded``)
    control = await run_in_threadpool(lambda: resume_stored_run(services, run_id, decisions, actor=actor(request)))
    return _answer(run_id, control, "resumed", 202)


async def _cancel(request: Request, services: Services) -> Response:
    run_id = request.path_params["run_id"]
    control = await run_in_threadpool(lambda: cancel_stored_run(services, run_id, actor=actor(request)))
    return _answer(run_id, control, "cancelled", 200)


def run_control_routes(services: ServicesSource) -> list[Route]:
    return [
        Route("/api/runs/{run_id}/resume", guarded(_resume, services), methods=["POST"]),
        Route("/api/runs/{run_id}/cancel", guarded(_cancel, services), methods=["POST"]),
    ]

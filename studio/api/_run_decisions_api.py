"""The review API's part for a pause for a person: a run's waiting steps and a decision on one.

    GET  /api/runs/{id}/waiting                  -> 200 {run_id, status, waiting: [{step_id, label,
                                                    tool, effects, reason, arguments, arguments_hash,
                                                    shown_hash, approvals_needed, approvals: [...], rule}]}
    POST /api/runs/{id}/steps/{step}/decision    {"approve": true|false, "shown_hash": "...",
                                                  "arguments": {...}?, "grant": "once"|"run"|"always"|
                                                  {"scope": ..., "expires_in_hours": n}?}
                                                 -> 200 {decided, settled, approvals, approvals_needed, notices}
                                                 400 no hash / bad edit (``field``), 403 not allowed,
                                                 409 stale, replayed or not waiting (``why``),
                                                 503 nobody can carry the run on (its worker gone)

Behind the same token and origin rules as the rest of the review API (``_http.guarded``,
the studio's origin guard). A decision must name what it decides on: ``shown_hash`` (tool,
resolved arguments and effects, as GET .../waiting gave them) or, from older clients,
``arguments_hash``; without either it is refused (400): before issue 27 ``{"approve": true}``
alone was taken. Who decides: the request's actor, the agent or person its token names
(``_http.actor``).
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import NotFound, ReviewRequestError, Role, require

from ._http import ServicesSource, actor, error, guarded, read_body
from ..workbench._services import Services
from ..workbench import approval_json, decide_step, grant_from_json, waiting_run, waiting_view

__all__ = ["run_routes"]

_CHANNELS = ("api", "mcp")  # the MCP server decides through this API and says so
_STATUS = {"forbidden": 403, "unnamed": 400, "arguments": 400, "no_run": 404, "nobody": 503}


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


def _request(body: Any) -> tuple[bool, str, dict[str, Any] | None, Any, str]:
    if not isinstance(body, dict):
        raise ReviewRequestError("body", "must be a JSON object like {\"approve\": true, \"shown_hash\": \"...\"}")
    approve = body.get("approve")
    if not isinstance(approve, bool):
        raise ReviewRequestError("approve", "must be true or false")
    seen = body.get("shown_hash", body.get("arguments_hash"))
    if not isinstance(seen, str) or not seen:
        raise ReviewRequestError("shown_hash", "a decision must name what it decides on: the shown_hash (or "
                                               "arguments_hash) GET .../waiting gave with the step")
    arguments = body.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise ReviewRequestError("arguments", "must be a JSON object: the step's arguments as edited")
    try:
        grant = grant_from_json(body.get("grant"))
    except ValueError as exc:
        raise ReviewRequestError("grant", str(exc)) from None
    channel = body.get("channel", "api")
    if channel not in _CHANNELS:
        raise ReviewRequestError("channel", f"must be one of {', '.join(_CHANNELS)}")
    return approve, seen, arguments, grant, channel


async def _decision(request: Request, services: Services) -> Response:
    run_id, step_id = request.path_params["run_id"], request.path_params["step_id"]
    who = actor(request)  # the token's agent or person (``guarded``)
    require(who, Role.approver, "decide on a waiting step")  # before anything of the run is told
    body = await read_body(request)  # over the limit: 413 (``guarded``)
    approve, seen, arguments, grant, channel = _request(body)
    if await run_in_threadpool(waiting_run, services, run_id) is None:
        try:
            await run_in_threadpool(services.store.load_run, run_id)
        except NotFound:
            return _no_run(run_id)
        return JSONResponse({"decided": False, "why": "not_waiting", "notices": [
            {"kind": "error", "text": f"Run {run_id} waits for no decision now: it runs on, or finished "
                                      "(another decision may have come first)."}]}, status_code=409)
    out = await run_in_threadpool(lambda: decide_step(services, run_id, step_id, approve, actor=who, channel=channel,
                                                      seen_hash=seen, arguments=arguments, grant=grant))
    answer: dict[str, Any] = {"decided": out.ok, "notices": out.notices_json(), "settled": out.settled,
                              "approvals_needed": out.needed, "approvals": [approval_json(a) for a in out.approvals]}
    if not out.ok:
        answer["why"] = out.refusal
        if out.field:
            answer["field"] = out.field
    return JSONResponse(answer, status_code=200 if out.ok else _STATUS.get(out.refusal, 409))


def run_routes(services: ServicesSource) -> list[Route]:
    return [
        Route("/api/runs/{run_id}/waiting", guarded(_waiting, services), methods=["GET"]),
        Route("/api/runs/{run_id}/steps/{step_id}/decision", guarded(_decision, services), methods=["POST"]),
    ]

"""The review API's part for retry and rerun from a step.

    POST /api/runs/{id}/rerun   {"from": STEP_ID} or {"retry": true}, optional "dry_run": true
        dry run -> 200 {parent_id, run_id: null, retry, from, from_label, steps: [{step_id, label,
                        again, effects, writes}]}
        started -> 201 the same, run_id the new run (linked to its parent; it runs in the studio)
        refused -> 409 {error, notices} (still going, no such step, nothing failed, tools changed)

Behind the same token and origin rules as the rest of the review API (``_http.guarded``,
the studio's origin guard). ``steps[].writes``: the step's tool may write, so running it again
repeats its effect.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import ReviewRequestError

from ._http import ServicesSource, actor, guarded, read_body
from ..workbench._services import Services
from ..workbench import preview_rerun, start_rerun

__all__ = ["rerun_routes"]

_SHAPE = 'must be a JSON object like {"from": "STEP_ID"} or {"retry": true}, with "dry_run": true to only look'


def _asked(body: Any) -> tuple[str | None, bool, bool]:
    """(from step, retry, dry run) out of the request's body; ``ReviewRequestError`` naming the field."""
    if not isinstance(body, dict):
        raise ReviewRequestError("body", _SHAPE)
    from_step, retry, dry_run = body.get("from"), body.get("retry", False), body.get("dry_run", False)
    if from_step is not None and not isinstance(from_step, str):
        raise ReviewRequestError("from", "must be a step id (a string)")
    if not isinstance(retry, bool):
        raise ReviewRequestError("retry", "must be true or false")
    if not isinstance(dry_run, bool):
        raise ReviewRequestError("dry_run", "must be true or false")
    if (from_step is None) == (not retry):
        raise ReviewRequestError("from", "give either a step to rerun from or \"retry\": true, not "
                                         + ("both" if retry else "neither"))
    return from_step, retry, dry_run


async def _rerun(request: Request, services: Services) -> Response:
    run_id = request.path_params["run_id"]
    body = await read_body(request)  # over the limit: 413 (``guarded``)
    from_step, retry, dry_run = _asked(body)
    await run_in_threadpool(services.store.records.where, run_id)  # NotFound: 404
    use_case = preview_rerun if dry_run else start_rerun
    out, preview = await run_in_threadpool(lambda: use_case(services, run_id, from_step=from_step, retry=retry,
                                                            actor=actor(request)))
    notices = out.notices_json()
    if preview is None:
        errors = [n.text for n in out.notices if n.kind == "error"] or ["the rerun could not start"]
        return JSONResponse({"error": errors[0], "notices": notices}, status_code=409)
    return JSONResponse({**preview.as_json(), "notices": notices}, status_code=200 if dry_run else 201)


def rerun_routes(services: ServicesSource) -> list[Route]:
    return [Route("/api/runs/{run_id}/rerun", guarded(_rerun, services), methods=["POST"])]

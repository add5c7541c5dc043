"""The review API's calls as data (method, path, body), shared by the sync and async clients,
and the answers' errors as ``ReviewServiceError``."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from ._models import Review, ReviewServiceError, WaitingStep

__all__ = ["Call", "DEFAULT_URL", "SERVER_WAIT_LIMIT", "TOKEN_VARIABLE", "URL_VARIABLE", "Call", "decision_call",
           "error_of", "plan_body", "review_id", "submit_call", "token_from", "url_from", "withdraw_call"]

TOKEN_VARIABLE = "PLAN_STUDIO_TOKEN"
URL_VARIABLE = "PLAN_STUDIO_URL"
DEFAULT_URL = "http://127.0.0.1:8501"
SERVER_WAIT_LIMIT = 600.0  # the longest one wait call is held by the studio; longer waits are several
NETWORK_SLACK = 15.0


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: Any = None
    wait: float = 0.0  # seconds the studio may hold the answer (a long poll)


def url_from(url: str | None) -> str:
    return (url or os.environ.get(URL_VARIABLE) or DEFAULT_URL).rstrip("/")


def token_from(token: str | None) -> str:
    token = token or os.environ.get(TOKEN_VARIABLE)
    if not token:
        raise ReviewServiceError(0, f"no API token: pass token= or set {TOKEN_VARIABLE} "
                                    "(`plan-studio token create NAME` makes one)")
    return token


def review_id(review: Review | str) -> str:
    return quote(review.review_id if isinstance(review, Review) else review, safe="")


def plan_body(plan: Any) -> tuple[Any, str | None]:
    """A plan as the API takes it: a dict or text as is; a pydantic model (``core.Plan``) as its
    JSON, in the native format."""
    if isinstance(plan, (dict, list, str)):
        return plan, None
    if hasattr(plan, "model_dump_json"):
        return json.loads(plan.model_dump_json(exclude_none=True)), "native"
    raise TypeError(f"a plan is a dict, its text or a pydantic model, not {type(plan).__name__}")


def submit_call(plan: Any, *, agent: str, format: str | None, goal: str | None, tools: list[dict[str, Any]] | None,
                callback_url: str | None, callback_secret: str | None) -> Call:
    sent, worked_out = plan_body(plan)
    body: dict[str, Any] = {"plan": sent, "agent": agent}
    for name, value in (("format", format or worked_out), ("goal", goal), ("tools", tools),
                        ("callback_url", callback_url), ("callback_secret", callback_secret)):
        if value is not None:
            body[name] = value
    return Call("POST", "/api/reviews", body)


def wait_call(review: Review | str, seconds: float) -> Call:
    return Call("GET", f"/api/reviews/{review_id(review)}/wait?{urlencode({'timeout': f'{seconds:.3f}'})}",
                wait=seconds)


def withdraw_call(review: Review | str, reason: str) -> Call:
    return Call("POST", f"/api/reviews/{review_id(review)}/withdraw", {"reason": reason} if reason else None)


def decision_call(run_id: str, step: WaitingStep | str, approve: bool, *, shown_hash: str | None,
                  arguments: dict[str, Any] | None, grant: Any) -> Call:
    if isinstance(step, WaitingStep):
        step_id, shown_hash = step.step_id, shown_hash or step.shown_hash
    else:
        step_id = step
    if not shown_hash:
        raise ReviewServiceError(0, "a decision names what it decides on: pass the WaitingStep from waiting(), "
                                    "or shown_hash=", field="shown_hash")
    body: dict[str, Any] = {"approve": approve, "shown_hash": shown_hash}
    if arguments is not None:
        body["arguments"] = arguments
    if grant is not None:
        body["grant"] = grant
    return Call("POST", f"/api/runs/{quote(run_id, safe='')}/steps/{quote(step_id, safe='')}/decision", body)


def error_of(response: httpx.Response) -> ReviewServiceError:
    """The studio's refusal as an error naming the status, the field and the message."""
    try:
        data = response.json()
    except ValueError:
        data = {}
    data = data if isinstance(data, dict) else {}
    text = data.get("error") or response.reason_phrase
    field = data.get("field")
    return ReviewServiceError(response.status_code, f"HTTP {response.status_code}: " +
                              (f"{field}: {text}" if field and not str(text).startswith(field) else str(text)),
                              field=field, data=data)

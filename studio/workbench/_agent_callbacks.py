"""Webhooks to the submitting agent: it is told at its own URL when its review is decided or a
waiting step of its run is, so it need not poll.

A submission may carry ``callback_url`` (http or https) and ``callback_secret`` (the agent's own,
so one secret can serve all its reviews); without a secret the studio makes one per review and
answers it once, in the submission's answer. What is posted is JSON signed with HMAC-SHA256:

    X-Plan-Studio-Timestamp: 1767225600
    X-Plan-Studio-Signature: sha256=<hex of HMAC(secret, "<timestamp>." + body)>
    X-Plan-Studio-Delivery:  <one id per event, the same on every retry>

Bodies: ``{"kind": "review.decided", "review_id", "status", "comment", "decided_at"}`` and
``{"kind": "step.decided", "run_id", "step_id", "approved", "settled", "actor_id", "decided_at"}``.
A run's steps are told to the callback of the latest review its submitter sent with one. The
posts go through the studio's webhook sender (``_webhooks.Notifier.post_signed``): retried with
backoff on its own thread, never blocking nor failing a decision.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from typing import TYPE_CHECKING, Any

from core import ReviewRequestError, Run, StepDecision

from ._messages import log
from ._services import Services

if TYPE_CHECKING:
    from core.storage import Review

__all__ = ["DELIVERY_HEADER", "SIGNATURE_HEADER", "TIMESTAMP_HEADER", "callback_fields", "signature",
           "tell_review_decided", "tell_step_decided"]

SIGNATURE_HEADER = "X-Plan-Studio-Signature"
TIMESTAMP_HEADER = "X-Plan-Studio-Timestamp"
DELIVERY_HEADER = "X-Plan-Studio-Delivery"
_MAX_URL = 2000
_SECRET_LENGTHS = (16, 200)
_HTTP_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$", re.IGNORECASE)


def callback_fields(body: dict[str, Any]) -> tuple[str | None, str | None, bool]:
    """The submission's callback URL and secret, and whether the secret was made here (then the
    answer tells it once); ``ReviewRequestError`` naming the field that does not read."""
    url, secret = body.get("callback_url"), body.get("callback_secret")
    if url is None:
        if secret is not None:
            raise ReviewRequestError("callback_secret", "is given without a callback_url")
        return None, None, False
    if not isinstance(url, str) or len(url) > _MAX_URL or not _HTTP_URL.match(url.strip()):
        raise ReviewRequestError("callback_url", f"must be an http:// or https:// URL with a host "
                                                 f"(at most {_MAX_URL} characters)")
    if secret is None:
        return url.strip(), secrets.token_urlsafe(32), True
    low, high = _SECRET_LENGTHS
    if not isinstance(secret, str) or not low <= len(secret) <= high:
        raise ReviewRequestError("callback_secret", f"must be a string of {low} to {high} characters")
    return url.strip(), secret, False


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The signature header's value for ``body`` posted at ``timestamp`` (Unix seconds, text)."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def _post(services: Services, url: str, secret: str, payload: dict[str, Any], subject: str) -> None:
    if services.notifier is None:
        return
    body = json.dumps(payload, ensure_ascii=False).encode()
    stamp = str(int(time.time()))
    headers = {TIMESTAMP_HEADER: stamp, SIGNATURE_HEADER: signature(secret, stamp, body),
               DELIVERY_HEADER: secrets.token_hex(12)}
    services.notifier.post_signed(url, body, headers, kind=payload["kind"], subject=subject)


def tell_review_decided(services: Services, review: Review) -> None:
    """Tell ``review``'s agent, at its callback URL if it gave one, that the review is decided."""
    if not review.callback_url:
        return
    try:
        _post(services, review.callback_url, review.callback_secret or "", {
            "kind": "review.decided", "review_id": review.id, "status": review.status, "comment": review.comment,
            "decided_at": review.decided_at.isoformat() if review.decided_at else None}, review.id)
    except Exception as exc:  # the decision is made; telling of it never undoes it
        log.warning("could not tell the agent of review %s: %s", review.id, exc)


def tell_step_decided(services: Services, run: Run, step_id: str, decision: StepDecision | None,
                      settled: bool) -> None:
    """Tell the agent that submitted ``run`` (at the callback of its latest review with one)
    that waiting step ``step_id`` was decided."""
    if decision is None or not (run.submitted_by or "").startswith("agent:"):
        return
    try:
        found = services.store.review_callback(run.submitted_by or "")
        if found is None:
            return
        url, secret = found
        _post(services, url, secret, {
            "kind": "step.decided", "run_id": run.id, "step_id": step_id, "approved": decision.approved,
            "settled": settled, "actor_id": decision.actor_id, "decided_at": decision.decided_at.isoformat()},
            run.id)
    except Exception as exc:
        log.warning("could not tell the agent of step %s of run %s: %s", step_id, run.id, exc)

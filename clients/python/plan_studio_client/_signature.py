"""Check what the studio posts to your callback URL: an HMAC-SHA256 of ``"<timestamp>." + body``
with your callback secret, in ``X-Plan-Studio-Signature`` (``sha256=<hex>``)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any, Mapping

__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "verify_callback"]

SIGNATURE_HEADER = "X-Plan-Studio-Signature"
TIMESTAMP_HEADER = "X-Plan-Studio-Timestamp"


def verify_callback(secret: str, body: bytes, headers: Mapping[str, str], *, tolerance: float = 300.0) -> dict[str, Any]:
    """The posted JSON once its signature checks out; ``ValueError`` saying why not (no or a
    wrong signature, a timestamp more than ``tolerance`` seconds away: a replay)."""
    lower = {k.lower(): v for k, v in headers.items()}
    stamp, sent = lower.get(TIMESTAMP_HEADER.lower()), lower.get(SIGNATURE_HEADER.lower())
    if not stamp or not sent:
        raise ValueError(f"not signed: no {SIGNATURE_HEADER} or {TIMESTAMP_HEADER} header")
    try:
        at = float(stamp)
    except ValueError:
        raise ValueError(f"{TIMESTAMP_HEADER} is not a number of seconds: {stamp!r}") from None
    if abs(time.time() - at) > tolerance:
        raise ValueError(f"signed {abs(time.time() - at):.0f} s from now: more than {tolerance:g} s (a replay?)")
    expected = "sha256=" + hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, sent):
        raise ValueError("the signature does not match: another secret, or the body was changed")
    return json.loads(body)

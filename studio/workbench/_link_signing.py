"""Signed links' tokens: what a link names, signed with HMAC-SHA256 by a secret of the data folder.

A token is ``BODY.SIGNATURE``, both URL-safe base64 without padding: ``BODY`` is compact JSON
naming the link's kind (``step`` or ``review``), its subject (the run id or the review id), the
step id (a step's link), the hash of exactly what it shows (``shown``: tool, resolved arguments
and effects for a step; the plan that runs for a review), when it expires (Unix seconds) and a
random nonce; ``SIGNATURE`` is HMAC-SHA256 of ``BODY`` under the secret. Anybody can read a
token; nobody without the secret can make or change one.

The secret is made on first use, 32 random bytes kept in ``link-secret`` in the data folder,
mode 0600, made in a private temporary file and linked into place (two processes starting at
once agree on one). Deleting the file makes every link made so far read as forged.

This module checks the signature and the expiry only; that a link is unused and that what it
shows has not changed is ``_links``' to check, against the store and the run.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from core import LinkRefused, StorageError, private_secret

__all__ = ["SECRET_FILE", "LinkKind", "SignedLink", "ensure_link_secret", "read_token", "sign_token"]

SECRET_FILE = "link-secret"
_SECRET_BYTES = 32
_NONCE_BYTES = 16
_MAX_TOKEN = 2048  # a token the studio made is ~300 characters; anything far longer is not one

LinkKind = Literal["step", "review"]


@dataclass(frozen=True)
class SignedLink:
    """What a link's token names, once its signature was checked."""

    kind: LinkKind
    subject: str  # the run id (a step) or the review id
    step_id: str  # "" for a review
    shown: str  # the hash of what it shows
    expires: float  # Unix seconds
    nonce: str


def ensure_link_secret(data_dir: Path) -> bytes:
    """The link secret kept in ``data_dir``, made (mode 0600) if there is none yet."""
    path = Path(data_dir).expanduser() / SECRET_FILE
    text = private_secret(path, lambda: secrets.token_hex(_SECRET_BYTES), "the link secret")
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) < 16:
        raise StorageError(f"the link secret {path} is damaged: delete it (links made so far stop working)")
    return secret


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(secret: bytes, body: str) -> str:
    return _b64(hmac.new(secret, body.encode("ascii"), hashlib.sha256).digest())


def sign_token(secret: bytes, kind: LinkKind, subject: str, shown: str, *, step_id: str = "",
               expires_in: float, now: float | None = None) -> tuple[str, SignedLink]:
    """A token for a link of ``kind`` to ``subject`` (and ``step_id``) showing what hashes to
    ``shown``, usable for ``expires_in`` seconds from ``now``; and what it names."""
    link = SignedLink(kind, subject, step_id, shown, round((time.time() if now is None else now) + expires_in, 3),
                      secrets.token_urlsafe(_NONCE_BYTES))
    fields = {"k": link.kind, "r": link.subject, "s": link.step_id, "h": link.shown, "e": link.expires,
              "n": link.nonce}
    body = _b64(json.dumps(fields, separators=(",", ":"), sort_keys=True).encode())
    return f"{body}.{_signature(secret, body)}", link


def read_token(secret: bytes, token: str, *, now: float | None = None) -> SignedLink:
    """What ``token`` names; ``LinkRefused`` with ``why`` "forged" (not signed by this studio,
    or changed since) or "expired"."""
    forged = LinkRefused("This link is not one this studio signed, or it was changed (a character "
                         "differs): nothing was decided. Ask for the decision to be sent again.", why="forged")
    if not isinstance(token, str) or len(token) > _MAX_TOKEN or token.count(".") != 1:
        raise forged
    body, signature = token.split(".")
    try:
        body.encode("ascii")
        signature.encode("ascii")
    except UnicodeEncodeError:
        raise forged from None
    if not hmac.compare_digest(signature.encode("ascii"), _signature(secret, body).encode("ascii")):
        raise forged
    try:
        fields: dict[str, Any] = json.loads(_unb64(body))
        link = SignedLink(fields["k"], str(fields["r"]), str(fields["s"]), str(fields["h"]), float(fields["e"]),
                          str(fields["n"]))
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise forged from None  # signed by us, yet unreadable: never made by this version
    if link.kind not in ("step", "review"):
        raise forged
    if (time.time() if now is None else now) >= link.expires:
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(link.expires))
        raise LinkRefused(f"This link expired at {when}: nothing was decided. Open the studio to decide, or "
                          "ask for a new link.", why="expired")
    return link

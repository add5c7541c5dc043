"""The review API's token: made once per data folder, kept in a file only its owner can read.

Every call to ``/api/...`` must carry ``Authorization: Bearer TOKEN``. The token is made on the
studio's first start (or by ``plan-studio token``), shown on the Settings page, and compared in
constant time.
"""

from __future__ import annotations

import hmac
import secrets
from pathlib import Path

from core import StorageError, private_secret

__all__ = ["TOKEN_FILE", "ensure_token", "token_matches"]

TOKEN_FILE = "api-token"
_TOKEN_BYTES = 32


def ensure_token(data_dir: Path) -> str:
    """The token kept in ``data_dir``, made (file mode 0600) if there is none yet; two processes
    starting at once agree on one token (``core.private_secret``)."""
    path = Path(data_dir).expanduser() / TOKEN_FILE
    token = private_secret(path, lambda: secrets.token_urlsafe(_TOKEN_BYTES), "the API token")
    if not token:
        raise StorageError(f"the API token file {path} is empty: delete it and start the studio again")
    return token


def token_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token``; constant time in its content."""
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode("utf-8", "replace"), token.encode("ascii"))

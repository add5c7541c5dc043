"""The review API's token: made once per data folder, kept in a file only its owner can read.

Every call to ``/api/...`` must carry ``Authorization: Bearer TOKEN``. The token is made on the
studio's first start (or by ``plan-studio token``), shown on the Settings page, and compared in
constant time.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from core import StorageError, private_folder, tighten_file

__all__ = ["TOKEN_FILE", "ensure_token", "token_matches"]

TOKEN_FILE = "api-token"
_TOKEN_BYTES = 32


def ensure_token(data_dir: Path) -> str:
    """The token kept in ``data_dir``, made (file mode 0600) if there is none yet.

    Made in a private temporary file and linked into place, so two processes starting at
    once agree on one token and nobody ever reads a half-written one.
    """
    path = Path(data_dir).expanduser() / TOKEN_FILE
    try:
        token = _read(path)
        tighten_file(path)  # one an older version, or a copy, left readable by others
        return token
    except FileNotFoundError:
        pass
    try:
        private_folder(path.parent, tighten_files=False)
        draft = path.with_name(f".{TOKEN_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secrets.token_urlsafe(_TOKEN_BYTES) + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first: theirs is the token
        finally:
            draft.unlink()
        return _read(path)
    except OSError as exc:
        raise StorageError(f"cannot make the API token in {path.parent}: {exc.strerror or exc}") from exc


def _read(path: Path) -> str:
    try:
        token = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read the API token {path}: {exc}") from exc
    if not token:
        raise StorageError(f"the API token file {path} is empty: delete it and start the studio again")
    return token


def token_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token``; constant time in its content."""
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode("utf-8", "replace"), token.encode("ascii"))

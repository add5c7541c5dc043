"""Signed links' tokens (studio/workbench/_link_signing.py): a token names what it decides and
is refused as forged when any character changes, as expired after its time; each has its own
nonce; the hash of what it shows is part of what is signed; the secret is private and shared."""

from __future__ import annotations

import base64
import json
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core import LinkRefused
from studio.workbench._link_signing import SECRET_FILE, ensure_link_secret, read_token, sign_token

NOW = 1_800_000_000.0
SECRET = b"k" * 32


def _token(**kwargs) -> str:
    args = {"expires_in": 3600, "now": NOW, "step_id": "s2"} | kwargs
    return sign_token(SECRET, "step", "run1", "a" * 64, **args)[0]


def _refused(token: str, secret: bytes = SECRET, now: float = NOW + 1) -> str:
    with pytest.raises(LinkRefused) as caught:
        read_token(secret, token, now=now)
    return caught.value.why


def test_a_token_reads_back_what_it_was_signed_for() -> None:
    token, made = sign_token(SECRET, "step", "run1", "a" * 64, step_id="s2", expires_in=3600, now=NOW)
    read = read_token(SECRET, token, now=NOW + 10)
    assert read == made
    assert (read.kind, read.subject, read.step_id, read.shown, read.expires) == ("step", "run1", "s2", "a" * 64,
                                                                                 NOW + 3600)


def test_any_one_character_changed_makes_it_forged() -> None:
    token = _token()
    for index in range(len(token)):
        if token[index] == ".":
            continue
        changed = token[:index] + ("A" if token[index] != "A" else "B") + token[index + 1:]
        assert _refused(changed) == "forged", index


def test_another_studios_secret_or_garbage_is_forged_never_a_crash() -> None:
    assert _refused(_token(), secret=b"o" * 32) == "forged"
    for garbage in ["", ".", "abc", "a.b.c", "é.é", "x" * 5000, _token() + "."]:
        assert _refused(garbage) == "forged"


def test_the_hash_of_what_it_shows_is_signed() -> None:
    body, signature = _token().split(".")
    fields = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    fields["h"] = "b" * 64  # other arguments, same signature
    other = base64.urlsafe_b64encode(json.dumps(fields).encode()).rstrip(b"=").decode()
    assert _refused(f"{other}.{signature}") == "forged"


def test_it_expires_at_its_time() -> None:
    token = _token(expires_in=60)
    assert read_token(SECRET, token, now=NOW + 59.9).subject == "run1"
    assert _refused(token, now=NOW + 60) == "expired"
    with pytest.raises(LinkRefused, match="expired at"):
        read_token(SECRET, token, now=NOW + 3600)


def test_each_link_has_its_own_nonce() -> None:
    nonces = {read_token(SECRET, _token(), now=NOW).nonce for _ in range(50)}
    assert len(nonces) == 50


def test_the_secret_is_made_once_private_and_shared(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with ThreadPoolExecutor(8) as pool:
        secrets = set(pool.map(lambda _: ensure_link_secret(folder), range(16)))
    assert len(secrets) == 1 and len(secrets.pop()) == 32
    assert stat.S_IMODE((folder / SECRET_FILE).stat().st_mode) == 0o600
    assert [p.name for p in folder.iterdir()] == [SECRET_FILE]  # no draft left behind
    (folder / SECRET_FILE).chmod(0o644)
    ensure_link_secret(folder)
    assert stat.S_IMODE((folder / SECRET_FILE).stat().st_mode) == 0o600

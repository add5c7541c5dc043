"""A real OpenID Connect issuer for tests: an HTTP server on 127.0.0.1 speaking the part of the
protocol Streamlit's ``st.login`` (Authlib's Starlette client) uses, so a test signs in through
the same redirects, token exchange and signature checks as with Google or Okta.

- ``/.well-known/openid-configuration``: where the rest is, RS256, PKCE S256;
- ``/authorize``: checks the client, its redirect URI, ``state``, ``nonce`` and the PKCE
  challenge, then shows a tiny form with a **Sign in as NAME** button per test user (or, with
  ``auto_user`` set, sends that user straight back) to the redirect URI with a one-use code;
- ``/token``: the code for tokens (client secret by Basic auth or form, PKCE verifier checked),
  the ``id_token`` signed with this issuer's RSA key (made per issuer, never written anywhere)
  and holding iss, aud, sub, email, name, groups, nonce, iat and exp;
- ``/jwks``: the public key.

It refuses what a real provider refuses (a wrong secret, a reused code, a bad verifier) with
OAuth's error JSON, and keeps what it was asked (``exchanged``) for the test to check.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from urllib.parse import parse_qs, urlencode, urlparse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

__all__ = ["Issuer", "IssuerUser", "issuer"]


@dataclass(frozen=True)
class IssuerUser:
    sub: str
    email: str
    name: str
    groups: tuple[str, ...] = ()


@dataclass
class _Grant:
    user: IssuerUser
    client_id: str
    redirect_uri: str
    nonce: str
    challenge: str
    method: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _int_b64(number: int) -> str:
    return _b64(number.to_bytes((number.bit_length() + 7) // 8, "big"))


@dataclass
class Issuer:
    client_id: str
    client_secret: str
    users: list[IssuerUser]
    auto_user: str | None = None  # a user's sub: sent straight back, no form
    # A test makes the next id_tokens wrong as an attacker's would be: "key" (signed with another
    # key), "nonce" (another sign-in's nonce), "audience" (for another client), "expired".
    forge: str | None = None
    exchanged: list[str] = field(default_factory=list)  # the subs whose codes were exchanged, in order
    _grants: dict[str, _Grant] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._kid = secrets.token_hex(8)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def metadata_url(self) -> str:
        return f"{self.url}/.well-known/openid-configuration"

    def metadata(self) -> dict[str, Any]:
        return {"issuer": self.url, "authorization_endpoint": f"{self.url}/authorize",
                "token_endpoint": f"{self.url}/token", "jwks_uri": f"{self.url}/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                "scopes_supported": ["openid", "email", "profile"]}

    def jwks(self) -> dict[str, Any]:
        numbers = self._key.public_key().public_numbers()
        return {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self._kid,
                          "n": _int_b64(numbers.n), "e": _int_b64(numbers.e)}]}

    def id_token(self, user: IssuerUser, *, audience: str, nonce: str) -> str:
        issued = int(time.time()) - (3600 if self.forge == "expired" else 0)
        claims = {"iss": self.url, "aud": "another-client" if self.forge == "audience" else audience,
                  "sub": user.sub, "email": user.email, "email_verified": True, "name": user.name,
                  "groups": list(user.groups), "nonce": secrets.token_urlsafe(8) if self.forge == "nonce" else nonce,
                  "iat": issued, "exp": issued + 600}
        header = {"alg": "RS256", "typ": "JWT", "kid": self._kid}
        signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}".encode()
        key = self._other_key if self.forge == "key" else self._key
        signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        return f"{signing_input.decode()}.{_b64(signature)}"

    # -- the endpoints' decisions (the handler does the HTTP) -------------------------------------
    def authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], str]:
        """(status, headers, body) for ``/authorize`` with ``query``; ``sub`` picks the user."""
        if query.get("client_id") != self.client_id:
            return 400, {}, "unknown client_id"
        if query.get("response_type") != "code" or "openid" not in query.get("scope", "").split():
            return 400, {}, "response_type must be code and scope must hold openid"
        for needed in ("redirect_uri", "state", "nonce", "code_challenge"):
            if not query.get(needed):
                return 400, {}, f"{needed} is missing"
        chosen = query.get("sub") or self.auto_user
        if chosen is None:
            return 200, {"Content-Type": "text/html; charset=utf-8"}, self._form(query)
        user = next((u for u in self.users if u.sub == chosen), None)
        if user is None:
            return 400, {}, "no such user"
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._grants[code] = _Grant(user, self.client_id, query["redirect_uri"], query["nonce"],
                                        query["code_challenge"], query.get("code_challenge_method", "plain"))
        back = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"
        return 302, {"Location": back}, ""

    def _form(self, query: dict[str, str]) -> str:
        hidden = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                         for k, v in query.items())
        buttons = "".join(f'<button name="sub" value="{html.escape(u.sub)}">Sign in as {html.escape(u.name)}</button>'
                          for u in self.users)
        return (f"<!doctype html><title>Test issuer</title><h1>Test issuer</h1>"
                f'<form method="get" action="/authorize">{hidden}{buttons}</form>')

    def token(self, form: dict[str, str], authorization: str) -> tuple[int, dict[str, Any]]:
        client_id, client_secret = form.get("client_id", ""), form.get("client_secret", "")
        if authorization.startswith("Basic "):
            client_id, _, client_secret = base64.b64decode(authorization[6:]).decode().partition(":")
        if client_id != self.client_id or not secrets.compare_digest(client_secret, self.client_secret):
            return 401, {"error": "invalid_client"}
        if form.get("grant_type") != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        with self._lock:
            grant = self._grants.pop(form.get("code", ""), None)  # one use
        if grant is None or grant.redirect_uri != form.get("redirect_uri"):
            return 400, {"error": "invalid_grant"}
        verifier = form.get("code_verifier", "")
        expected = _b64(hashlib.sha256(verifier.encode()).digest()) if grant.method == "S256" else verifier
        if not verifier or not secrets.compare_digest(expected, grant.challenge):
            return 400, {"error": "invalid_grant", "error_description": "PKCE verifier does not match"}
        self.exchanged.append(grant.user.sub)
        return 200, {"access_token": secrets.token_urlsafe(24), "token_type": "Bearer", "expires_in": 600,
                     "scope": "openid email profile",
                     "id_token": self.id_token(grant.user, audience=client_id, nonce=grant.nonce)}


def _handler(issuer: Issuer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, headers: dict[str, str], body: str) -> None:
            data = body.encode()
            self.send_response(status)
            for name, value in {"Content-Type": "text/plain; charset=utf-8", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            self._send(status, {"Content-Type": "application/json"}, json.dumps(payload))

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            url = urlparse(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                self._json(200, issuer.metadata())
            elif url.path == "/jwks":
                self._json(200, issuer.jwks())
            elif url.path == "/authorize":
                self._send(*issuer.authorize(query))
            else:
                self._send(404, {}, "not found")

        def do_POST(self) -> None:  # noqa: N802
            if urlparse(self.path).path != "/token":
                self._send(404, {}, "not found")
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            form = {k: v[-1] for k, v in parse_qs(body).items()}
            self._json(*issuer.token(form, self.headers.get("Authorization", "")))

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def issuer(users: list[IssuerUser], *, client_id: str = "plan-studio-test",
           client_secret: str | None = None, auto_user: str | None = None) -> Iterator[Issuer]:
    """An issuer serving on a thread until the block ends."""
    running = Issuer(client_id, client_secret or secrets.token_urlsafe(24), users, auto_user)
    thread = threading.Thread(target=running.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield running
    finally:
        running.server.shutdown()
        running.server.server_close()
        thread.join(timeout=10)

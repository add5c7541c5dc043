"""Only the person who started the studio may drive its page: a per-start secret, as Jupyter does.

Listening on 127.0.0.1 keeps other machines out, not other users of this one: any local
program that knows the port could open the app's WebSocket (``/_stcore/stream``), or
Streamlit's agent routes, and drive the page. So ``plan-studio`` makes a secret at every start
(kept in the server's memory, handed over in its own environment, never written to a file) and
prints ``http://127.0.0.1:PORT/?token=SECRET``. The first request with it is answered with a
cookie (HttpOnly, SameSite=Strict, named after the port) and sent on to the same address
without the token; afterwards the cookie is enough. Any other request to the app is refused
with 403 and a one-line reason, but for

- the paths the page needs before it can carry the cookie, which hold nothing of the user's:
  ``/_stcore/health``, the health probes ``/healthz`` and ``/readyz`` (``_health_api``), and
  Streamlit's own script and style files (``/static/...``, the icon);
- ``/api/...``, the review API, which checks the caller's own bearer token (``_http.guarded``).

Behind a reverse proxy (``PLAN_STUDIO_USER_HEADER`` with ``PLAN_STUDIO_TRUSTED_PROXIES``), a
request from a trusted proxy address that names a user in that header passes: the proxy
signed them in. The header is removed from every other request, so nobody else can claim a
name with it. When OIDC sign-in is configured the secret is not asked for (``secret`` None):
the page asks everyone to sign in.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import sys
from typing import Any, Iterable
from urllib.parse import parse_qsl, urlencode

from ._origin_guard import ASGIApp, Receive, Scope, Send, refuse

__all__ = ["SignInGuard", "cookie_name", "sign_in_guard"]

_OPEN_PATHS = ("/_stcore/health", "/healthz", "/readyz", "/favicon.png", "/manifest.json")
_OPEN_PREFIXES = ("/static/", "/api/")
_QUERY_KEY = "token"


def cookie_name(port: int | None) -> str:
    """The cookie of the studio on ``port``: cookies are per host, not per port."""
    return f"plan_studio_{port or 0}"


def _cookie_value(secret: str) -> str:
    # Not the secret itself: the URL's token and the cookie are told apart.
    return hmac.new(secret.encode(), b"plan-studio page cookie", hashlib.sha256).hexdigest()


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    jar: dict[str, str] = {}
    for part in headers.get("cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name:
            jar.setdefault(name, value)
    return jar


class SignInGuard:
    """ASGI middleware: the app's paths need the per-start secret (or its cookie), or a trusted
    proxy's user header."""

    def __init__(self, app: ASGIApp, *, secret: str | None, user_header: str | None = None,
                 trusted_proxies: Iterable[str] = ()) -> None:
        self.app = app
        self._secret = secret
        self._cookie = _cookie_value(secret) if secret else ""
        self._header = user_header.lower().encode("latin-1") if user_header else None
        self._proxies = [ipaddress.ip_network(p, strict=False) for p in trusted_proxies]

    def _from_proxy(self, scope: Scope) -> bool:
        client = scope.get("client")
        if not client or not self._proxies:
            return False
        try:
            address = ipaddress.ip_address(client[0])
        except ValueError:
            return False
        return any(address in network for network in self._proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self._header is not None:
            named = any(k.lower() == self._header and v.strip() for k, v in scope.get("headers", []))
            if self._from_proxy(scope):
                if named:
                    await self.app(scope, receive, send)  # the proxy signed them in
                    return
            elif named or any(k.lower() == self._header for k, v in scope.get("headers", [])):
                # Nobody but a trusted proxy may name a user: the claim is dropped, not believed.
                scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k.lower() != self._header]}
        path = scope.get("path", "")
        if self._secret is None or path in _OPEN_PATHS or path.startswith(_OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        port = (scope.get("server") or (None, None))[1]
        name = cookie_name(port)
        if hmac.compare_digest(_cookies(headers).get(name, "").encode("latin-1", "replace"), self._cookie.encode()):
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = next((v for k, v in query if k == _QUERY_KEY), "")
        if given and hmac.compare_digest(given.encode("utf-8", "replace"), self._secret.encode()):
            if scope["type"] == "websocket":
                await self.app(scope, receive, send)
            else:  # the browser keeps the cookie; the token leaves the address bar
                await _signed_in(send, path, [(k, v) for k, v in query if k != _QUERY_KEY], name, self._cookie)
            return
        reason = ("open the studio with the address plan-studio printed when it started "
                  "(http://127.0.0.1:PORT/?token=...): this request has neither its token nor its cookie")
        kind = "WebSocket" if scope["type"] == "websocket" else scope.get("method", "HTTP")
        print(f"plan-studio: refused {kind} {path[:120]!r}: no start token", file=sys.stderr, flush=True)
        await refuse(scope, receive, send, reason, framing=False)


async def _signed_in(send: Send, path: str, query: list[tuple[str, str]], name: str, value: str) -> None:
    location = path + (f"?{urlencode(query)}" if query else "")
    cookie = f"{name}={value}; Path=/; HttpOnly; SameSite=Strict"
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode("latin-1", "replace")), (b"set-cookie", cookie.encode()),
                            (b"content-length", b"0"), (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": b""})


def sign_in_guard(**options: Any) -> Any:
    """The guard as a Starlette ``Middleware`` for ``st.App(middleware=[...])``."""
    from starlette.middleware import Middleware

    return Middleware(SignInGuard, **options)

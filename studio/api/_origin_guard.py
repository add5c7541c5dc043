"""Only the studio's own origin and host names may talk to it; nothing may frame it.

Listening on 127.0.0.1 keeps other machines out, not other web pages: any page the user opens
can make the browser connect to 127.0.0.1. So every HTTP request and WebSocket handshake
(the app's ``/_stcore/stream`` above all: it drives the session) must show

- a ``Host`` the studio is reached by: ``127.0.0.1``, ``localhost`` or ``[::1]`` on the port it
  serves, or a host of an allowed origin. This stops DNS rebinding, where an attacker's name
  is made to resolve to 127.0.0.1 and its page then counts as "same origin";
- and, when there is an ``Origin`` (browsers always send one on a WebSocket and on a
  cross-origin request), one of those names on that port, or an allowed origin. Streamlit's
  own check accepts ``localhost`` on any port, so a page on another local port passed it.

Programs (the review client, curl, MCP) send no ``Origin`` and pass on ``Host`` alone. The health
probes (``GET /healthz``, ``/readyz``) pass by any ``Host``: an orchestrator names the studio by its
own address, and they answer only ok or not.
Allowed origins (``--allowed-origin``, ``PLAN_STUDIO_ALLOWED_ORIGINS``) are for a reverse proxy
in front of the studio. A refusal is 403 with a one-line reason, and a line in the log naming
the path, ``Host`` and ``Origin`` (never a query string or any other header).

Every HTTP answer also says ``X-Frame-Options: DENY`` and ``frame-ancestors 'none'``, so no page
can show the studio in a frame and trick a click on Approve.
"""

from __future__ import annotations

import ipaddress
import sys
from typing import Any, Awaitable, Callable, Iterable, MutableMapping
from urllib.parse import urlsplit

__all__ = ["FRAMING_HEADERS", "HEALTH_PATHS", "OWN_HOST_NAMES", "exposure_warning", "loopback", "OriginGuard", "origin_guard", "refuse"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

OWN_HOST_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
HEALTH_PATHS = ("/healthz", "/readyz")  # answered to anyone: they say ok or not, nothing else
FRAMING_HEADERS = ((b"x-frame-options", b"DENY"), (b"content-security-policy", b"frame-ancestors 'none'"))
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}
_SHOWN_CHARS = 120  # of a header value in a refusal: enough to recognise, never a flood


def loopback(host: str) -> bool:
    """Whether listening on ``host`` keeps other machines out (127.0.0.1, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a name: it may resolve to any address
        return False


def exposure_warning(host: str, *, signs_in: bool) -> str | None:
    """What to say at start when the studio listens on ``host`` beyond this machine while nobody
    signs in (``signs_in``: OIDC or a proxy's user header); None when there is nothing to say."""
    if loopback(host) or signs_in:
        return None
    return (f"listening on {host} (other machines can reach it) and nobody signs in: whoever has the address "
            "below, with its token, acts as the local user (an admin). Configure sign-in (OIDC: [auth] in "
            ".streamlit/secrets.toml; or a proxy's PLAN_STUDIO_USER_HEADER) before sharing it beyond people you trust.")


def _address(scheme: str, netloc: str) -> tuple[str, int | None] | None:
    """``(host name, port)`` of ``host[:port]``, the port defaulted by ``scheme``; None if unreadable."""
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.username is not None or parts.password is not None:
        return None
    return parts.hostname, port if port is not None else _DEFAULT_PORTS.get(scheme)


def _origin(text: str) -> tuple[str, str, int | None] | None:
    """``(scheme, host name, port)`` of an origin; None for ``null`` or anything else unreadable."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    address = _address(parts.scheme, parts.netloc)
    return None if address is None else (parts.scheme, *address)


def _shown(value: str) -> str:
    return repr(value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "…")


class OriginGuard:
    """ASGI middleware: refuse requests from other origins and host names; forbid framing."""

    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self._origins: set[tuple[str, str, int | None]] = set()
        for text in allowed_origins:
            origin = _origin(text)
            if origin is None:
                raise ValueError(f"{text!r} is not an origin like https://studio.example.com")
            self._origins.add(origin)
        self._hosts = {(host, port) for _scheme, host, port in self._origins}

    def _proxied(self, host_header: str) -> bool:
        """Whether ``Host`` names an allowed origin's host. A proxy in front passes the public
        name on, with the public port or (the scheme's default) none; the scheme the studio
        sees is the proxy's, not the browser's, so a missing port matches any."""
        host = _address("", host_header)
        return host is not None and any(host[0] == name and host[1] in (None, port) for name, port in self._hosts)

    def refusal(self, scope: Scope) -> str | None:
        """Why this request may not reach the studio, or None when it may."""
        if scope["type"] == "http" and scope.get("path") in HEALTH_PATHS and scope.get("method") in ("GET", "HEAD"):
            return None  # a liveness or readiness probe: by any name (an orchestrator's), nothing in it
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        server = scope.get("server") or (None, None)
        port = server[1]  # the port the studio serves; None on a Unix socket

        def own(host: str, host_port: int | None) -> bool:
            return host in OWN_HOST_NAMES and (port is None or host_port == port)

        scheme = scope.get("scheme", "http")
        host_header = headers.get("host")
        if host_header is None:
            return "the request has no Host header"
        host = _address(scheme, host_header)
        if host is None or not (own(*host) or self._proxied(host_header)):
            return (f"Host {_shown(host_header)} is not a name of this studio "
                    "(a proxy's origin can be allowed with --allowed-origin)")
        origin_header = headers.get("origin")
        if origin_header is None:
            return None  # a program, not a web page
        origin = _origin(origin_header)
        if origin is None or not (own(origin[1], origin[2]) or origin in self._origins):
            return (f"Origin {_shown(origin_header)} is not this studio's "
                    "(a proxy's origin can be allowed with --allowed-origin)")
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        reason = self.refusal(scope)
        if reason is not None:
            kind = "WebSocket" if scope["type"] == "websocket" else scope.get("method", "HTTP")
            print(f"plan-studio: refused {kind} {_shown(scope.get('path', ''))}: {reason}", file=sys.stderr, flush=True)
            await refuse(scope, receive, send, reason)
            return

        async def send_unframeable(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                message = {**message, "headers": [*message.get("headers", []), *FRAMING_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_unframeable)


async def refuse(scope: Scope, receive: Receive, send: Send, reason: str, *, framing: bool = True) -> None:
    """Answer 403 with ``reason`` (a WebSocket handshake too, where the server can); ``framing``
    False for a middleware inside this guard, which adds those headers itself."""
    body = f"Forbidden: {reason}\n".encode()
    # The reason quotes the request's own headers: plain text, and never sniffed as anything else.
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
               (b"x-content-type-options", b"nosniff"), *(FRAMING_HEADERS if framing else ())]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    elif "websocket.http.response" in scope.get("extensions", {}):
        await send({"type": "websocket.http.response.start", "status": 403, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
    else:  # a server that cannot answer a handshake with a page: close it before it opens
        await send({"type": "websocket.close", "code": 1008, "reason": reason[:120]})


def origin_guard(allowed_origins: Iterable[str]) -> Any:
    """The guard as a Starlette ``Middleware`` for ``st.App(middleware=[...])``."""
    from starlette.middleware import Middleware

    return Middleware(OriginGuard, allowed_origins=list(allowed_origins))

"""Only the studio's own origin and host names may talk to it.

Against the real studio (``plan-studio`` on a free port) with a raw HTTP client, so the
headers are exactly what an attacker's page or a DNS-rebinding page would make a browser send:
a page on another localhost port (``Origin: http://localhost:9999``) and a rebinding name
(``Host: rebind.example:PORT``) are refused on the WebSocket and on HTTP, with 403 and a
one-line reason; the studio's own names are served; every answer forbids framing.
The reverse-proxy allow-list is checked on the middleware itself (no second studio needed).
"""

from __future__ import annotations

import base64
import http.client
import os
import socket
from pathlib import Path
from typing import Iterator
from urllib.parse import urlparse

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from conftest import Studio, start_studio

FOREIGN_ORIGIN = "http://localhost:9999"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("origin-guard"))


def _port(studio: Studio) -> int:
    return urlparse(studio.url).port


def _handshake(studio: Studio, host: str, origin: str | None, *, cookie: str | None = None,
               token: str | None = None) -> tuple[int, str]:
    """Open the app's WebSocket as a browser would (with the studio's ``cookie``, or the start
    ``token`` in the address); the status and body of the answer."""
    key = base64.b64encode(os.urandom(16)).decode()
    path = "/_stcore/stream" + (f"?token={token}" if token is not None else "")
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    if cookie is not None:
        lines.append(f"Cookie: {cookie}")
    with socket.create_connection(("127.0.0.1", _port(studio)), timeout=30) as conn:
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = conn.recv(4096)
            if not chunk:
                break
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        if status != 101:
            conn.settimeout(5)
            try:
                while chunk := conn.recv(4096):
                    body += chunk
            except TimeoutError:
                pass
    return status, body.decode(errors="replace")


def _request(studio: Studio, method: str, path: str, headers: dict[str, str],
             body: bytes | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", _port(studio), timeout=30)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for name, value in headers.items():
        conn.putheader(name, value)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    response = conn.getresponse()
    response.read_body = response.read()  # type: ignore[attr-defined]
    conn.close()
    return response


def _own_host(studio: Studio) -> str:
    return f"127.0.0.1:{_port(studio)}"


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_the_studios_own_page_opens_its_websocket(served: Studio, name: str) -> None:
    host = f"{name}:{_port(served)}"
    assert _handshake(served, host, f"http://{host}", token=served.token)[0] == 101


def test_a_page_on_another_localhost_port_cannot_open_the_websocket(served: Studio) -> None:
    status, body = _handshake(served, _own_host(served), FOREIGN_ORIGIN)
    assert status == 403
    assert "http://localhost:9999" in body and "\n" not in body.strip()


def test_a_rebinding_host_cannot_open_the_websocket(served: Studio) -> None:
    # DNS rebinding: the attacker's name now points at 127.0.0.1, so the browser sees one origin.
    host = f"rebind.example:{_port(served)}"
    status, body = _handshake(served, host, f"http://{host}")
    assert status == 403
    assert "rebind.example" in body


def test_a_rebinding_host_gets_no_page_and_no_api(served: Studio) -> None:
    host = f"rebind.example:{_port(served)}"
    for method, path in (("GET", "/"), ("GET", "/settings"), ("POST", "/api/reviews")):
        response = _request(served, method, path, {"Host": host}, b"{}" if method == "POST" else None)
        assert response.status == 403, (method, path)
        assert b"rebind.example" in response.read_body


def test_a_foreign_origin_cannot_call_the_review_api_even_with_the_token(served: Studio) -> None:
    token = (served.data_dir / "api-token").read_text().strip()
    response = _request(served, "POST", "/api/reviews",
                        {"Host": _own_host(served), "Origin": FOREIGN_ORIGIN, "Authorization": f"Bearer {token}",
                         "Content-Type": "application/json"}, b'{"plan": {"goal": "x", "steps": []}}')
    assert response.status == 403
    assert token.encode() not in response.read_body
    assert token not in served.log.read_text(errors="replace")  # refusals are logged without secrets
    assert "localhost:9999" in served.log.read_text(errors="replace")


def test_programs_without_an_origin_still_use_the_api(served: Studio) -> None:
    token = (served.data_dir / "api-token").read_text().strip()
    response = _request(served, "POST", "/api/reviews",
                        {"Host": _own_host(served), "Authorization": f"Bearer {token}",
                         "Content-Type": "application/json"},
                        b'{"plan": {"goal": "x", "steps": [{"id": "a", "tool": "facilities_list"}]}}')
    assert response.status == 201, response.read_body


@pytest.mark.parametrize("path", ["/", "/_stcore/health", "/api/reviews/nope", "/app/static/vis-network.min.js"])
def test_every_answer_forbids_framing(served: Studio, path: str) -> None:
    response = _request(served, "GET", path, {"Host": _own_host(served)})
    assert response.getheader("X-Frame-Options") == "DENY", path
    assert "frame-ancestors 'none'" in (response.getheader("Content-Security-Policy") or ""), path


# -- the allow-list for a reverse proxy, on the middleware itself ------------------------------

async def _hello(_request: object) -> PlainTextResponse:
    return PlainTextResponse("hello")


async def _echo(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_text("hello")
    await websocket.close()


def _client(allowed: list[str], port: int = 8501) -> TestClient:
    from studio.api._origin_guard import OriginGuard

    app = Starlette(routes=[Route("/", _hello), WebSocketRoute("/ws", _echo)],
                    middleware=[Middleware(OriginGuard, allowed_origins=allowed)])
    return TestClient(app, base_url=f"http://127.0.0.1:{port}")


def test_a_proxys_origin_is_accepted_once_allowed() -> None:
    proxy = "https://studio.example.com"
    headers = {"Host": "studio.example.com", "Origin": proxy}
    assert _client([]).get("/", headers=headers).status_code == 403
    assert _client([proxy]).get("/", headers=headers).text == "hello"
    with _client([proxy]).websocket_connect("/ws", headers=headers) as ws:
        assert ws.receive_text() == "hello"
    # A proxy that passes the studio's own Host on, with the public origin.
    assert _client([proxy]).get("/", headers={"Host": "127.0.0.1:8501", "Origin": proxy}).text == "hello"
    # Allowing the proxy allows nothing else.
    assert _client([proxy]).get("/", headers={"Host": "127.0.0.1:8501", "Origin": FOREIGN_ORIGIN}).status_code == 403
    assert _client([proxy]).get("/", headers={"Host": "other.example.com"}).status_code == 403


def test_the_guard_knows_the_port_it_serves() -> None:
    client = _client([], port=8502)
    assert client.get("/", headers={"Host": "localhost:8502", "Origin": "http://localhost:8502"}).text == "hello"
    assert client.get("/", headers={"Host": "[::1]:8502", "Origin": "http://[::1]:8502"}).text == "hello"
    assert client.get("/", headers={"Host": "localhost:8502", "Origin": "http://localhost:8501"}).status_code == 403
    assert client.get("/", headers={"Host": "localhost:8501"}).status_code == 403
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/ws", headers={"Host": "localhost:8502", "Origin": "null"}) as ws:
            ws.receive_text()


# -- the setting ---------------------------------------------------------------------------------

def test_a_bad_allowed_origin_is_a_setup_error_before_the_studio_starts(monkeypatch, capsys) -> None:
    from studio.cli._main import main

    for name in ("PLAN_STUDIO_ALLOWED_ORIGINS", "PLAN_STUDIO_FROM_OPTIONS"):
        monkeypatch.setenv(name, "")  # put back as it was after the test
    assert main(["--allowed-origin", "https://studio.example.com/app"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "allowed_origins" in error and "studio.example.com/app" in error


def test_an_allowed_origin_reaches_the_setting_and_streamlits_own_check(monkeypatch) -> None:
    from core import Settings
    from studio.cli._studio_options import studio_argv as _studio_argv

    monkeypatch.setenv("PLAN_STUDIO_ALLOWED_ORIGINS", "https://studio.example.com, http://10.0.0.5:8501/")
    origins = Settings.from_env().allowed_origins
    assert origins == ["https://studio.example.com", "http://10.0.0.5:8501"]
    assert "--server.corsAllowedOrigins=https://studio.example.com" in _studio_argv(8501, origins)

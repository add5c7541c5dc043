"""Hole 3: a program of another local user that knows the port must not drive the page.

Against the real studio (``plan-studio`` on a free port) with raw sockets: without the per-start
secret the app's WebSocket, its pages and Streamlit's agent routes are refused (403, one line);
the address plan-studio printed signs a client in with a cookie (HttpOnly, SameSite=Strict) and
takes the token out of the address; health and Streamlit's own files stay open; the secret is
in no file. The trusted proxy header is checked on the middleware itself.
"""

from __future__ import annotations

import http.client
from pathlib import Path
from typing import Iterator
from urllib.parse import urlparse

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from conftest import Studio, start_studio
from test_origin_guard import _handshake

from studio.api._sign_in_guard import SignInGuard, cookie_name


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("sign-in-guard"))


def _host(studio: Studio) -> str:
    return f"127.0.0.1:{urlparse(studio.url).port}"


def _get(studio: Studio, path: str, cookie: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", urlparse(studio.url).port, timeout=30)
    headers = {"Cookie": cookie} if cookie else {}
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    response.read_body = response.read()  # type: ignore[attr-defined]
    conn.close()
    return response


def _cookie(studio: Studio) -> str:
    signed_in = _get(studio, f"/?token={studio.token}")
    return signed_in.getheader("Set-Cookie").split(";")[0]


def test_without_the_secret_the_websocket_is_refused(served: Studio) -> None:
    host = _host(served)
    status, body = _handshake(served, host, f"http://{host}")
    assert status == 403
    assert "token" in body and "\n" not in body.strip()
    assert _handshake(served, host, f"http://{host}", token="guessed")[0] == 403
    assert _handshake(served, host, None)[0] == 403  # a program sends no Origin: still refused


def test_with_the_secret_or_its_cookie_the_websocket_opens(served: Studio) -> None:
    host = _host(served)
    assert _handshake(served, host, f"http://{host}", token=served.token)[0] == 101
    assert _handshake(served, host, f"http://{host}", cookie=_cookie(served))[0] == 101
    assert _handshake(served, host, f"http://{host}", cookie=f"{cookie_name(urlparse(served.url).port)}=forged")[0] == 403


def test_the_printed_address_sets_a_strict_cookie_and_drops_the_token(served: Studio) -> None:
    first = _get(served, f"/settings?token={served.token}&x=1")
    assert first.status == 303
    assert first.getheader("Location") == "/settings?x=1"
    cookie = first.getheader("Set-Cookie")
    assert cookie.startswith(cookie_name(urlparse(served.url).port) + "=")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and served.token not in cookie
    assert _get(served, "/", cookie=cookie.split(";")[0]).status == 200


@pytest.mark.parametrize("path", ["/", "/settings", "/_stcore/host-config", "/_stcore/agent/openapi.json",
                                  "/app/static/vis-network.min.js"])
def test_the_app_is_refused_without_the_secret(served: Studio, path: str) -> None:
    response = _get(served, path)
    assert response.status == 403, path
    assert b"token" in response.read_body


def test_health_and_streamlits_own_files_stay_open(served: Studio) -> None:
    assert _get(served, "/_stcore/health").status == 200
    page = _get(served, "/", cookie=_cookie(served)).read_body.decode()
    script = page.split('src="', 1)[1].split('"', 1)[0]  # the page's script: Streamlit's, no user data
    assert script.startswith("./static/") or script.startswith("/static/")
    assert _get(served, "/" + script.removeprefix("./").lstrip("/")).status == 200


def test_the_secret_is_in_no_file_of_the_data_folder(served: Studio) -> None:
    for path in Path(served.data_dir).rglob("*"):
        if path.is_file():
            assert served.token.encode() not in path.read_bytes(), path


# -- a trusted reverse proxy's user header, on the middleware ----------------------------------

async def _who(request: Request) -> PlainTextResponse:
    return PlainTextResponse(request.headers.get("x-forwarded-user", "nobody"))


def _proxied(client: str) -> TestClient:
    app = Starlette(routes=[Route("/", _who)])
    guarded = SignInGuard(app, secret="s3cret", user_header="X-Forwarded-User", trusted_proxies=["10.0.0.0/8"])
    return TestClient(guarded, client=(client, 5000))


def test_the_user_header_counts_only_from_a_trusted_proxy() -> None:
    assert _proxied("10.1.2.3").get("/", headers={"X-Forwarded-User": "ann"}).text == "ann"
    # Anyone else naming a user is refused without the secret, and with it the claim is dropped.
    assert _proxied("127.0.0.1").get("/", headers={"X-Forwarded-User": "ann"}).status_code == 403
    stranger = _proxied("127.0.0.1").get("/?token=s3cret", headers={"X-Forwarded-User": "ann"},
                                         follow_redirects=True)
    assert stranger.text == "nobody"
    # The proxy itself, naming nobody, is no one.
    assert _proxied("10.1.2.3").get("/").status_code == 403

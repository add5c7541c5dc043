"""In Chromium: a page from another origin cannot use the studio, frame it, or read its token.

The attacker is a real second origin: a page served by another server on another localhost
port (``http://localhost:OTHER``), as any local program or dev server could serve one. It tries
what issue 15 showed working: open the studio's WebSocket (which drives the session and shows
Settings, token included), post to the review API, and show the studio in a frame to get a
click on Approve. The studio's own page still works, and sends the token only on Reveal.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, WebSocket, expect

from browser_helpers import click, open_studio, screenshot
from conftest import Studio, start_studio

pytestmark = pytest.mark.browser

_ATTACK = """<!doctype html><title>another site</title><body><script>
window.attack = (async () => {
  const studio = "%(studio)s";
  const socket = await new Promise(done => {
    const ws = new WebSocket(studio.replace("http", "ws") + "/_stcore/stream");
    ws.binaryType = "arraybuffer";
    ws.onopen = () => done("open");
    ws.onerror = () => done("refused");
  });
  // A simple request (no preflight): the page cannot read the answer, but the studio gets it.
  await fetch(studio + "/api/reviews", {method: "POST", mode: "no-cors", body: '{"plan": {"steps": []}}',
                                        headers: {"Content-Type": "text/plain"}}).catch(() => null);
  return socket;
})();
</script></body>"""

_FRAME = """<!doctype html><title>win a prize</title><body>
<p>Click the blue button to win!</p>
<iframe id="studio" src="%(studio)s/" width="1200" height="800"></iframe>
</body>"""


class _Attacker:
    """Pages on another origin: ``http://localhost:PORT/<name>``."""

    def __init__(self, pages: dict[str, str]) -> None:
        body = {f"/{name}": html.encode() for name, html in pages.items()}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                page = body.get(self.path)
                self.send_response(200 if page else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(page or b"")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://localhost:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("browser-security"))


@pytest.fixture
def attacker(served: Studio) -> Iterator[_Attacker]:
    pages = _Attacker({"attack": _ATTACK % {"studio": served.url}, "frame": _FRAME % {"studio": served.url}})
    try:
        yield pages
    finally:
        pages.close()


def test_a_page_on_another_localhost_port_cannot_open_the_socket_or_reach_the_api(
        page: Page, served: Studio, attacker: _Attacker) -> None:
    page.goto(f"{attacker.origin}/attack")
    assert page.evaluate("window.attack") == "refused"
    log = served.log.read_text(errors="replace")
    assert f"refused WebSocket '/_stcore/stream': Origin '{attacker.origin}'" in log
    assert f"refused POST '/api/reviews': Origin '{attacker.origin}'" in log


def test_a_page_framing_the_studio_shows_nothing_of_it(page: Page, served: Studio, attacker: _Attacker) -> None:
    with page.expect_response(lambda r: r.url == f"{served.url}/") as framed:
        page.goto(f"{attacker.origin}/frame")  # returns once the page and its frame have loaded
    screenshot(page, "framed-studio.png")
    # Chromium refuses to show the studio inside the frame: the frame holds its error page.
    inner = [f.url for f in page.frames if f != page.main_frame]
    assert len(inner) == 1 and not inner[0].startswith(served.url), inner
    expect(page.frame_locator("#studio").locator("[data-testid=stApp]")).to_have_count(0)
    assert framed.value.headers.get("x-frame-options") == "DENY"


def test_settings_sends_the_token_only_after_reveal(page: Page, served: Studio) -> None:
    token = (served.data_dir / "api-token").read_text().strip()
    received: list[bytes] = []

    def watch(socket: WebSocket) -> None:
        socket.on("framereceived", lambda payload: received.append(
            payload if isinstance(payload, bytes) else payload.encode()))

    page.on("websocket", watch)
    open_studio(page, served.url)
    click(page.get_by_role("link", name="Settings"))
    expect(page.get_by_role("heading", name="Review API")).to_be_visible()
    assert received, "the studio's socket was not watched"
    assert not any(token.encode() in frame for frame in received)
    assert token not in page.content()
    section = page.locator(".st-key-settings-token")
    expect(section).to_contain_text("Reveal token")
    screenshot(page, "settings-token-hidden.png")

    click(section.get_by_role("button", name="Reveal token"))
    expect(section.get_by_text(token)).to_be_visible()
    assert any(token.encode() in frame for frame in received)
    screenshot(page, "settings-token-shown.png")

    click(section.get_by_role("button", name="Hide token"))
    expect(section).to_contain_text("Reveal token")
    assert token not in page.content()

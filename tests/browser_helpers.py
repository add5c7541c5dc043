"""Driving the studio in Chromium without racing it: every action that reruns the page waits
until the browser has drawn the run it caused.

Why: after a click, Streamlit reruns the page on the server and streams the new elements in;
until then the old ones stay on screen (and old expanders, buttons and options stay clickable).
A test that asserts or clicks in between acts on the page as it was before its own action.

How the wait knows, without guessing (no sleeps, no "wait a little, then poll the state"):

1. The server's word. Python reads the app's websocket (``/_stcore/stream``) through Playwright
   and decodes each message with Streamlit's own protobuf classes. A run that ends for good sends
   ``script_finished`` (not ``FINISHED_EARLY_FOR_RERUN``, which a ``st.switch_page`` run sends
   before the run that follows) and then ``session_status_changed`` with ``script_is_running``
   false. ``reruns()`` notes how many runs had ended before the action and waits, frame by
   frame, for one more: a run that began after the action. Checking and waiting happen with no
   Playwright call between them, so no frame can slip by unseen.
2. The page's word. An init script counts the messages the page's own socket handed to the app
   (its listener is added first, so it runs in the same task just before the app's) and keeps the
   app's React root, which React reports on every commit through the DevTools hook (production
   builds call it too). The wait ends when the page has handed the app every message up to that
   run's last one *and* React has no update left to commit (``pendingLanes == 0``). Streamlit's
   frontend turns each message into a React update within the task that delivered it, so by
   then the DOM shows the whole run.

Why not ``[data-test-script-state="notRunning"]`` alone: right after a click it still reads
"notRunning" from the run before, since the rerun has not reached the page yet; and a short run
can go "running" and back between two checks (React may even batch both into one render), so
waiting to see "running" first can hang. Nor at the end, as a check: while a run is live the Plan
page reruns a fragment every half second, and on a loaded machine those runs follow each other with
no gap, so the page may read "running" for as long as the run lasts (a test failed so, waiting 30 s
after Run all). The fragment's runs end with ``FINISHED_FRAGMENT_RUN_SUCCESSFULLY``: not counted.

Use ``open_studio`` instead of ``page.goto`` (the watcher must be in place before the socket
opens), then ``click``, ``enter`` and ``choose`` for anything that reruns the page. Clicks that
do not rerun it (an expander's header, a selectbox opening) are plain ``.click()`` followed by
an ``expect`` on what they show.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlparse

from playwright.sync_api import BrowserContext, Locator, Page, WebSocket, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

__all__ = ["ARTIFACTS", "TIMEOUT_MS", "arrives", "choose", "click", "enter", "graph", "graph_nodes", "offsite",
           "open_studio", "reload", "reruns", "screenshot"]

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
TIMEOUT_MS = 30_000
_STREAM = "/_stcore/stream"
_FINAL = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR}

_PAGE_WATCH = """
(() => {
  const watch = window.__studioWatch = { frames: 0, root: null, said: [] };
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    isDisabled: false, supportsFiber: true, renderers: new Map(),
    inject() { return 1; }, checkDCE() {}, onCommitFiberUnmount() {}, onPostCommitFiberRoot() {},
    onCommitFiberRoot(id, root) {
      if (root && root.containerInfo && root.containerInfo.id === "root") watch.root = root;
    },
  };
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      if (new URL(url, location.href).pathname.endsWith("%s")) {
        watch.frames = 0;
        this.addEventListener("message", () => { watch.frames += 1; });
        // What the socket did, for the message of a wait that timed out (the last few only).
        const note = (what) => { watch.said = [...watch.said.slice(-9), `${what} at ${Math.round(performance.now())} ms`]; };
        this.addEventListener("close", (event) => note(`closed (${event.code})`));
        const send = this.send.bind(this);
        this.send = (data) => { note(`sent a message (socket state ${this.readyState})`); return send(data); };
      }
    }
  };
})();
""" % _STREAM

_DRAWN = """n => {
  const watch = window.__studioWatch;
  return watch.frames >= n && watch.root !== null && watch.root.pendingLanes === 0;
}"""


class _Runs:
    """The script runs of one page, as its websocket reports them (see the module docstring)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.socket: WebSocket | None = None
        self.frames = 0
        self.ended: list[int] = []  # for each run that ended for good: the number of its last frame
        self._finishing = False
        page.add_init_script(_PAGE_WATCH)
        page.on("websocket", self._on_socket)

    def _on_socket(self, socket: WebSocket) -> None:
        if urlparse(socket.url).path.endswith(_STREAM):
            self.socket, self.frames, self.ended, self._finishing = socket, 0, [], False
            socket.on("framereceived", lambda payload: self._on_frame(socket, payload))

    def _on_frame(self, socket: WebSocket, payload: bytes | str) -> None:
        if socket is not self.socket or isinstance(payload, str):
            return
        self.frames += 1
        message = ForwardMsg.FromString(payload)
        kind = message.WhichOneof("type")
        if kind == "script_finished":
            self._finishing = message.script_finished in _FINAL
        elif kind == "session_status_changed" and not message.session_status_changed.script_is_running:
            if self._finishing:
                self.ended.append(self.frames)
            self._finishing = False

    def wait_until_drawn(self, ended_before: int, timeout_ms: float = TIMEOUT_MS) -> None:
        """Wait for a run that ended after ``ended_before`` runs had, then for the page to draw it."""
        if self.socket is None:
            self.page.wait_for_event("websocket", timeout=timeout_ms)
        while len(self.ended) <= ended_before:
            assert self.socket is not None, "the studio's websocket never opened"
            # Any frame wakes the loop; the condition is checked before the next wait.
            try:
                self.socket.wait_for_event("framereceived", timeout=timeout_ms)
            except PlaywrightTimeoutError:
                raise AssertionError(f"the studio sent nothing for {timeout_ms / 1000:.0f} s while a run was due; "
                                     f"{self._said()}") from None
        self.page.wait_for_function(_DRAWN, arg=self.ended[-1], timeout=timeout_ms)
        expect(self.page.get_by_test_id("stSkeleton")).to_have_count(0)

    def _said(self) -> str:
        """What the page's socket did last (sent, closed) and what this side saw: whether the
        action reached the studio, to tell a lost click from a silent studio."""
        try:
            said = self.page.evaluate("() => [window.__studioWatch.said, Math.round(performance.now())]")
        except Exception as exc:  # the page itself is gone
            return f"the page could not be asked ({exc})"
        return (f"the page's socket, last: {'; '.join(said[0]) or 'nothing'} (now {said[1]} ms); "
                f"{self.frames} frames received, {len(self.ended)} runs ended")


_RUNS: dict[Page, _Runs] = {}


# How a browser context signs in to the studio a URL belongs to, as its owner does (one visit to
# the address plan-studio printed): the tests' conftest knows the studios it started and adds it.
SIGN_IN: list[Callable[[BrowserContext, str], None]] = []


def open_studio(page: Page, url: str) -> None:
    """Go to the studio with its runs watched, and wait until its first run is drawn. A context
    of its own (another browser, a reviewer opening a link) signs in first, unless ``url`` is the
    printed address itself."""
    if "token=" not in url:
        for sign_in in SIGN_IN:
            sign_in(page.context, url)
    _RUNS[page] = _Runs(page)
    with reruns(page):
        page.goto(url)


def reload(page: Page) -> None:
    """Reload the tab (a new Streamlit session on a new socket) and wait until its first run is drawn."""
    runs = _RUNS[page]
    with page.expect_websocket(lambda socket: urlparse(socket.url).path.endswith(_STREAM)):
        page.reload()
    runs.wait_until_drawn(0)  # the new socket's runs count from none


@contextmanager
def arrives(page: Page) -> Iterator[None]:
    """Wrap an action that takes the tab away and back to the studio (a sign-in at an OIDC
    provider, a sign-out): on leaving, the studio's new session has drawn its first run."""
    runs = _RUNS[page]
    with page.expect_websocket(lambda socket: urlparse(socket.url).path.endswith(_STREAM),
                               timeout=TIMEOUT_MS):
        yield
    runs.wait_until_drawn(0)  # the new socket's runs count from none


@contextmanager
def reruns(page: Page) -> Iterator[None]:
    """Wrap an action that reruns the page: on leaving, the run it caused is on screen."""
    runs = _RUNS[page]
    ended_before = len(runs.ended)
    yield
    runs.wait_until_drawn(ended_before)


def click(target: Locator) -> None:
    """Click a button or link that reruns the page, and wait until the rerun is drawn."""
    with reruns(target.page):
        target.click()


def enter(field: Locator, text: str) -> None:
    """Type ``text`` and commit it as Streamlit does on Enter (Ctrl+Enter in a text area), then
    wait until the rerun it causes is drawn. ``text`` must differ from the field's value: an
    unchanged value commits nothing, so no run would come. A field in a form (the goal box) is
    only filled: the form's button pressed next (Plan) sends it, as Enter there would."""
    if field.evaluate("e => e.closest('[data-testid=stForm]') !== null"):
        field.fill(text)
        return
    with reruns(field.page):
        field.fill(text)
        field.press("Enter" if field.evaluate("e => e.tagName") == "INPUT" else "Control+Enter")


def choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` in the selectbox labelled ``label``: open the list, wait until it is open
    (a click right after its expander opened may not open it), pick, wait for the rerun."""
    box = page.get_by_role("combobox", name=label)
    box.click()
    expect(box).to_have_attribute("aria-expanded", "true")
    click(page.get_by_role("option", name=option))


def drawn_by_an_ended_run(page: Page, element: Locator) -> None:
    """Wait until ``element`` is on the page and the script run that drew it has ended. For what
    the page draws on its own, not after an action: a background run that pauses reruns the page
    to collect it, and a widget used while that run still draws may be drawn anew under the
    click or key (a selectbox's list shut again). Only where no timer reruns the page back to
    back (a live run's progress does)."""
    expect(element).to_be_visible()
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning")


def graph(page: Page, statuses: str) -> Locator:
    """The drawn graph once its steps show ``statuses`` (space-separated, in plan order)."""
    drawn = page.locator("[data-testid=plan-graph][data-ready=true]")
    expect(drawn).to_have_attribute("data-statuses", statuses)
    return drawn


def graph_nodes(drawn: Locator) -> list[dict]:
    """The nodes vis-network holds (the component lives in a shadow root; locators reach it)."""
    return drawn.evaluate("el => el.__network.body.data.nodes.get()")


def screenshot(page: Page, name: str) -> Path:
    """The whole page into ``test-artifacts/name``: Streamlit scrolls inside its own container,
    so the viewport grows to fit first, and is put back after."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    size = page.viewport_size
    height = page.evaluate("() => Math.max(...[...document.querySelectorAll('*')].map(e => e.scrollHeight))")
    page.set_viewport_size({"width": size["width"], "height": min(height + 40, 6000)})
    # The graph redraws its canvas after a resize; wait until it has.
    for drawn in page.locator("[data-testid=plan-graph]").all():
        expect(drawn).to_have_attribute("data-ready", "true")
    # vis-network and the tables repaint their canvases in animation frames after a resize.
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)
    return path


def offsite(urls: list[str]) -> list[str]:
    """The URLs that left 127.0.0.1 (data: and blob: URLs never leave the browser)."""
    return [u for u in urls if urlparse(u).scheme not in ("data", "blob") and urlparse(u).hostname != "127.0.0.1"]

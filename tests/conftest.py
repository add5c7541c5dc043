"""Shared fixtures. Each fixture says which tests it serves; keep them small."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pytest

# The studios, CLIs, workers and MCP servers the tests start are processes as a user runs them, and
# a user's Python caches bytecode: where the environment says not to (PYTHONDONTWRITEBYTECODE),
# each of those hundreds of processes compiled streamlit, DBOS and the project again from source,
# 5.3 s of CPU to start instead of 2.0 s. Set before the parallel workers start, so all inherit it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

from streamlit.testing.v1 import AppTest

import browser_helpers
from apptest_helpers import APP as APP_SCRIPT
from llm_server import LLMServer

# The suite's folders are its layers; each test is marked with its folder's name, so
# `pytest -m unit` (or `-m "not browser"`) picks a layer without a list of files.
LAYERS = ("unit", "app", "store", "durable", "ui", "browser", "docs")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        layer = item.path.parent.name
        if layer in LAYERS:
            item.add_marker(layer)


if TYPE_CHECKING:
    from postgres_server import PostgresServer

# Looks like a real key on purpose: tests assert it never leaks into messages, logs or data.
TEST_API_KEY = "sk-test-secret-5f2c9a7e41d8b3a6"


@pytest.fixture
def llm_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1; the SDK's env vars point at it."""
    server = LLMServer().start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", TEST_API_KEY)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def ctrl_c_as_in_a_terminal() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as in a program started from a terminal. A test run
    started in the background (a CI job, ``cmd &``) inherits SIGINT ignored, and Python then
    leaves it ignored: a test sending the user's Ctrl-C would see nothing happen."""
    import asyncio.events
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    # Nor does a terminal's command run inside an event loop; the browser tests before leave
    # Playwright's loop marked running on this thread, which would send durable runs to a
    # thread of their own, out of the Ctrl-C's reach.
    loop = asyncio.events._get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(loop)
        signal.signal(signal.SIGINT, previous)


@pytest.fixture(autouse=True)
def _writes_run_without_asking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most tests run plans of ad-hoc tools that declare no effects (so "may write"); the pause
    for a person (on by default) has its own tests, which turn it back on."""
    monkeypatch.setenv("PLAN_STUDIO_APPROVE_WRITES", "false")


# -- the studio through AppTest (tests/apptest_helpers.py) -----------------------------------------

@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAN_STUDIO_PLANNER", "PLAN_STUDIO_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    at = AppTest.from_file(str(APP_SCRIPT), default_timeout=60)
    return at.run()


# -- browser tests (tests/browser/test_browser.py) ---------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                 "--disable-dev-shm-usage"]
STUDIO_TODAY = "2025-10-12"
_STUDIO_START_SECONDS = 90


@pytest.fixture(scope="session", autouse=True)
def _patient_expect() -> None:
    """Playwright's ``expect`` waits 5 s by default; a studio's first page on a cold machine
    (imports, demo data) can take longer, and CI runs on cold machines."""
    from playwright.sync_api import expect

    expect.set_options(timeout=_STUDIO_START_SECONDS * 1000 // 3)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright's launch arguments, pointed at Debian's Chromium (Playwright's own
    browser download does not work here)."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@dataclass
class Studio:
    url: str  # http://127.0.0.1:PORT, for paths (the API, health); the page needs ``open_url`` first
    data_dir: Path
    log: Path
    pid: int = 0  # the studio's process (a test may kill it)
    token: str = ""  # the per-start secret plan-studio printed

    @property
    def open_url(self) -> str:
        """The address plan-studio printed: the first visit with it signs the browser in."""
        return f"{self.url}/?token={self.token}"


_START_LINE = re.compile(r"Plan Studio: open (http://127\.0\.0\.1:\d+)/\?token=([\w-]+)")
_OIDC_LINE = re.compile(r"Plan Studio: open http://127\.0\.0\.1:\d+/ and sign in \(OIDC")
# The studios started and not stopped, and what signs a test's browser in to each (the
# ``_browser_signed_in`` fixture): a studio may start before the browser (module fixtures) or after.
_RUNNING: list[Studio] = []
_SIGN_IN: list[Callable[[Studio], None]] = []
_STARTED_IN_TEST: list[Studio] = []  # kept after they stop: a failed test shows their logs


@pytest.fixture(autouse=True)
def _browser_signed_in(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test with a ``page`` has its browser sign in to every studio it uses, as a person does:
    one visit to the address plan-studio printed, whose answer sets the studio's cookie."""
    if "page" not in request.fixturenames:
        yield
        return
    context = request.getfixturevalue("context")

    def sign_in(studio: Studio) -> None:
        response = context.request.get(studio.open_url)
        assert response.ok, f"signing in to {studio.url} answered {response.status}"

    for running in _RUNNING:
        sign_in(running)
    _SIGN_IN.append(sign_in)
    try:
        yield
    finally:
        _SIGN_IN.remove(sign_in)


def _sign_in_context(context: Any, url: str) -> None:
    """Sign ``context`` in to the running studio ``url`` belongs to (a new context has no cookie)."""
    for studio in _RUNNING:
        if studio.token and (url == studio.url or url.startswith(studio.url + "/")):
            response = context.request.get(studio.open_url)
            assert response.ok, f"signing in to {studio.url} answered {response.status}"


browser_helpers.SIGN_IN.append(_sign_in_context)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _STARTED_IN_TEST.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test shows the log of every studio it had running: what the server said while
    the browser or the client waited is the first clue to why (CI keeps nothing else)."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when == "call":
        for studio in {s.url: s for s in [*_RUNNING, *_STARTED_IN_TEST]}.values():
            text = studio.log.read_text(errors="replace") if studio.log.exists() else "(no log)"
            report.sections.append((f"studio {studio.url} log (last 8,000 characters)", text[-8000:]))


# The failed and errored tests, recorded where the reports arrive (the xdist controller).
_NOT_PASSED: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        _NOT_PASSED.append(f"{report.nodeid} ({report.when})")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Names what failed after pytest's own last line: a CI that keeps only the last line of a
    red run still says which test to look at."""
    if _NOT_PASSED and not hasattr(config, "workerinput"):
        print("not passed: " + "; ".join(_NOT_PASSED), flush=True)


def _start_token(log: Path) -> str:
    found = _START_LINE.search(log.read_text(errors="replace"))
    return found.group(2) if found else ""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start_studio(folder: Path, **env_vars: str) -> Iterator[Studio]:
    """The real studio, started by the ``plan-studio`` command on a free port, with its own
    data folder and today pinned; only ``env_vars`` add model or planner settings."""
    port = _free_port()
    data_dir = folder / "data"
    log = folder / "studio.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
    env.update(PLAN_STUDIO_DATA_DIR=str(data_dir), PLAN_STUDIO_TODAY=STUDIO_TODAY, **env_vars)
    env.setdefault("PLAN_STUDIO_APPROVE_WRITES", "false")  # as _writes_run_without_asking says
    command = Path(sys.executable).with_name("plan-studio")
    argv = [str(command)] if command.exists() else [sys.executable, "-m", "studio.cli._main"]
    # Started outside the project folder, so the command's own flags must be enough.
    with log.open("wb") as out:
        process = subprocess.Popen([*argv, "--port", str(port)], cwd=folder, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + _STUDIO_START_SECONDS
        while not _healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the studio did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.2)
        started = Studio(url=url, data_dir=data_dir, log=log, pid=process.pid, token=_start_token(log))
        # A studio where people sign in with OIDC prints its address without a token.
        assert started.token or _OIDC_LINE.search(log.read_text(errors="replace")), \
            f"the studio printed no address with its token:\n{log.read_text(errors='replace')}"
        _RUNNING.append(started)
        _STARTED_IN_TEST.append(started)
        for sign_in in list(_SIGN_IN):
            sign_in(started)
        yield started
    finally:
        _RUNNING[:] = [s for s in _RUNNING if s.url != url]
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def studio(tmp_path: Path) -> Iterator[Studio]:
    """The studio offline: the embedded planner, no model settings."""
    yield from start_studio(tmp_path)


@pytest.fixture
def llm_studio(tmp_path: Path, llm_server: LLMServer) -> Iterator[Studio]:
    """The studio with the LLM planner, its model being the scripted ``llm_server``."""
    yield from start_studio(tmp_path, PLAN_STUDIO_PLANNER="llm", PLAN_STUDIO_MODEL="test-model",
                            PLAN_STUDIO_TIMEOUT="5", PLAN_STUDIO_FIRST_TIMEOUT="5", PLAN_STUDIO_MAX_RETRIES="2",
                            OPENAI_BASE_URL=llm_server.base_url, OPENAI_API_KEY=TEST_API_KEY)


# -- the store on SQLite and on PostgreSQL (tests/postgres_server.py) ----------------------------

@pytest.fixture(scope="session")
def postgres() -> Iterator["PostgresServer"]:
    """One throwaway PostgreSQL for the whole test session (started on first use, ~2 s)."""
    from postgres_server import PostgresServer

    try:
        server = PostgresServer().start()
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        pytest.fail(f"cannot start PostgreSQL for the tests: {exc} {detail.decode(errors='replace')}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a store is kept: a SQLite file, then a new database on the test PostgreSQL."""
    if request.param == "sqlite":
        return tmp_path / "studio.sqlite3"
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The spans this process makes, kept in memory (the OpenTelemetry SDK's exporter); no OTLP."""
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from core import traces

    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    exporter = InMemorySpanExporter()
    traces.configure(SimpleSpanProcessor(exporter))
    yield exporter
    traces.shutdown()


@pytest.fixture
def stop_durable_runs() -> Iterator[None]:
    """Stops this process's DBOS after a test that started durable runs: its threads must not
    outlive the test's database (a PostgreSQL of the session, a SQLite file in tmp_path)."""
    yield
    from core.durable._runtime import shutdown

    shutdown()

"""The health probes pass the studio's guards and say nothing but ok or not; a worker's probes
follow its beat; the studio warns when it listens beyond this machine while nobody signs in.
(The probes of running studios and workers: tests/durable/test_compose_topology.py.)"""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.error
import urllib.request
from typing import Any

import pytest

from studio.api._origin_guard import OriginGuard, exposure_warning, loopback
from studio.api._sign_in_guard import SignInGuard
from studio.cli._cli_health import WorkerHealth


def _scope(path: str, host: str, method: str = "GET") -> dict[str, Any]:
    return {"type": "http", "path": path, "method": method, "headers": [(b"host", host.encode())],
            "server": ("10.0.0.5", 8501), "client": ("10.0.0.9", 40000), "query_string": b""}


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_a_probe_passes_by_any_host_name_and_needs_no_sign_in(path: str) -> None:
    guard = OriginGuard(lambda *a: None)
    assert guard.refusal(_scope(path, "10.0.0.5:8501")) is None
    assert guard.refusal(_scope(path, "10.0.0.5:8501", method="POST")) is not None
    assert guard.refusal(_scope("/api/reviews", "10.0.0.5:8501")) is not None  # the rest is still guarded
    reached = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    async def call(p: str) -> None:
        async def send(message: Any) -> None:
            pass

        async def receive() -> Any:
            return {"type": "http.request"}
        await SignInGuard(app, secret="s3cret")(_scope(p, "127.0.0.1:8501"), receive, send)

    asyncio.run(call(path))
    asyncio.run(call("/"))  # the page without the token: refused
    assert reached == [path]


def test_only_loopback_addresses_keep_other_machines_out() -> None:
    assert all(loopback(h) for h in ("127.0.0.1", "::1", "[::1]", "localhost", "127.0.0.2"))
    assert not any(loopback(h) for h in ("0.0.0.0", "::", "10.0.0.5", "studio.example.com"))
    assert exposure_warning("127.0.0.1", signs_in=False) is None
    assert exposure_warning("0.0.0.0", signs_in=True) is None
    said = exposure_warning("0.0.0.0", signs_in=False)
    assert said is not None and "0.0.0.0" in said and "nobody signs in" in said and "OIDC" in said


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_workers_probes_follow_its_beat() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    health = WorkerHealth("127.0.0.1", port).start()
    url = f"http://127.0.0.1:{port}"
    try:
        _probe_in_turn(health, url)
    finally:
        health.stop()


def _probe_in_turn(health: WorkerHealth, url: str) -> None:
    assert _get(f"{url}/healthz") == (200, {"status": "ok"})
    assert _get(f"{url}/readyz") == (503, {"status": "not ready", "checks": {"database": "unavailable"}})
    health.beat(True)
    assert _get(f"{url}/readyz") == (200, {"status": "ready", "checks": {"database": "ok"}})
    health.beat(False)
    assert _get(f"{url}/readyz")[0] == 503
    assert _get(f"{url}/other")[0] == 404

"""A worker's health probes (``plan-studio worker --health-port N``), for a container's
healthcheck: ``GET /healthz`` 200 while the process serves; ``GET /readyz`` 200 once its last
beat could use the database (``core.durable.serve_queue``'s ``on_beat``), else 503. JSON, and
nothing in it but ok or not. A small standard-library server on a thread of its own.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["WorkerHealth"]


class WorkerHealth:
    """The probes of one worker, served from ``start`` until the process ends."""

    def __init__(self, host: str, port: int) -> None:
        self.ready = False
        health = self

        class Probe(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                if self.path == "/healthz":
                    self._answer(200, {"status": "ok"})
                elif self.path == "/readyz":
                    ok = health.ready
                    self._answer(200 if ok else 503, {"status": "ready" if ok else "not ready",
                                                      "checks": {"database": "ok" if ok else "unavailable"}})
                else:
                    self._answer(404, {"error": "not found: /healthz or /readyz"})

            def _answer(self, status: int, body: dict[str, object]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("cache-control", "no-store")
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - probes are not logged
                pass

        self._server = ThreadingHTTPServer((host, port), Probe)
        self._server.daemon_threads = True

    def beat(self, well: bool) -> None:
        self.ready = well

    def start(self) -> "WorkerHealth":
        threading.Thread(target=self._server.serve_forever, name="worker-health", daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

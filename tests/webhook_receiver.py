"""A real webhook receiver for tests: an HTTP server on 127.0.0.1 that keeps each POST's JSON
body and answers with the statuses it is given (then 200), so a test can wait for a delivery."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from contextlib import contextmanager

__all__ = ["Receiver", "receiver"]


class Receiver:
    def __init__(self, statuses: list[int] | None = None) -> None:
        self.posts: list[dict[str, Any]] = []  # the JSON bodies, in order
        self.answered: list[int] = []  # the status given to every request, failed ones included
        self.headers: list[dict[str, str]] = []
        self._statuses = list(statuses or [])
        self._changed = threading.Condition()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with outer._changed:
                    status = outer._statuses.pop(0) if outer._statuses else 200
                    outer.answered.append(status)
                    if status == 200:
                        outer.posts.append(json.loads(body))
                        outer.headers.append(dict(self.headers))
                    outer._changed.notify_all()
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def wait_for(self, count: int, timeout: float = 60) -> list[dict[str, Any]]:
        """The bodies once ``count`` were received; AssertionError after ``timeout`` seconds."""
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.posts) >= count, timeout), \
                f"{len(self.posts)} webhook posts came, not {count} (answers: {self.answered})"
            return list(self.posts)


@contextmanager
def receiver(statuses: list[int] | None = None) -> Iterator[Receiver]:
    """A receiver serving on a thread until the block ends."""
    got = Receiver(statuses)
    thread = threading.Thread(target=got.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        got.server.shutdown()
        got.server.server_close()
        thread.join(timeout=10)

"""A real OTLP/HTTP trace receiver for tests: an HTTP server on 127.0.0.1 that takes POSTs of
``/v1/traces`` (protobuf, gzip or not), decodes them with opentelemetry-proto and keeps every
span with its resource, so a test can read what a studio or CLI process exported."""

from __future__ import annotations

import gzip
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (ExportTraceServiceRequest,
                                                                      ExportTraceServiceResponse)

__all__ = ["ReceivedSpan", "TraceReceiver", "trace_receiver"]


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind in ("string_value", "bool_value", "int_value", "double_value") else None


@dataclass
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    events: list[str]
    resource: dict[str, Any]
    start_ns: int
    end_ns: int


class TraceReceiver:
    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.paths: list[str] = []
        self._changed = threading.Condition()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest.FromString(body)
                with outer._changed:
                    outer.paths.append(self.path)
                    for resource_spans in request.resource_spans:
                        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
                        for scope_spans in resource_spans.scope_spans:
                            outer.spans.extend(ReceivedSpan(
                                s.name, s.trace_id.hex(), s.span_id.hex(), s.parent_span_id.hex(),
                                {a.key: _value(a.value) for a in s.attributes}, [e.name for e in s.events],
                                resource, s.start_time_unix_nano, s.end_time_unix_nano)
                                for s in scope_spans.spans)
                    outer._changed.notify_all()
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"

    def wait_for(self, name: str, timeout: float = 60) -> list[ReceivedSpan]:
        """Every span received once one named ``name`` came; AssertionError after ``timeout`` s."""
        with self._changed:
            assert self._changed.wait_for(lambda: any(s.name == name for s in self.spans), timeout), \
                f"no span {name!r} came (received: {sorted(s.name for s in self.spans)})"
            return list(self.spans)


@contextmanager
def trace_receiver() -> Iterator[TraceReceiver]:
    receiver = TraceReceiver()
    thread = threading.Thread(target=receiver.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()

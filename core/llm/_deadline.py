"""One time limit for a whole model request, from connecting to the last byte of the answer.

httpx times each socket operation on its own, so an endpoint that sends a byte now and then
(a stuck proxy, a server trickling header lines or keep-alives) would never time out.
``deadline_transport`` gives each request a budget instead: the time spent waiting for the
endpoint (connecting, sending the request, reading the status line and headers, reading the
body or the stream) may not exceed the request's timeout (the SDK's ``timeout=``). Every
socket operation waits at most what is left of the budget, and past it raises httpx's own
timeout, which the SDK turns into ``APITimeoutError`` for plain and streamed answers alike.
Time the caller spends between two pieces of a stream (drawing them, say) is not the
endpoint's and does not count.

The budget reaches the sockets through a context variable that is set only while this
request's own I/O runs (inside ``handle_request``, and around each read of its body), so a
connection reused by the next request is held to that request's budget. Name resolution is
the one wait outside it (the operating system's resolver has its own limits).

The answer's body is read through ``bounded_body`` (``_body_limit``): decompressed by us, in
bounded pieces, and never more than ``MAX_ANSWER_BYTES``.

This module imports httpx: import it only where the SDK client is made (``core`` must
import fast for the offline path).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
import urllib.request
from typing import Any, Iterable, Iterator

import httpcore2
import httpx2

from ._body_limit import bounded_body

__all__ = ["deadline_transport"]

_ACTIVE: contextvars.ContextVar["_Budget | None"] = contextvars.ContextVar("plan_studio_budget", default=None)


def deadline_transport(base_url: str, limits: httpx2.Limits) -> httpx2.BaseTransport:
    """A transport for ``base_url`` whose requests each get one time limit for everything.

    The proxy the environment names for ``base_url`` (``HTTPS_PROXY``, ``NO_PROXY``...) is
    used here, since the client is told not to build proxy transports of its own (they
    would not be held to the limit).
    """
    inner = httpx2.HTTPTransport(limits=limits, proxy=_environment_proxy(base_url))
    pool = getattr(inner, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if not isinstance(backend, httpcore2.NetworkBackend):  # pragma: no cover - a changed httpx2
        raise RuntimeError("httpx2's transport no longer has a network backend to bound; "
                           "core/llm/_deadline.py needs updating")
    pool._network_backend = _BudgetedBackend(backend)  # type: ignore[union-attr]
    return _DeadlineTransport(inner)


def _environment_proxy(base_url: str) -> str | None:
    url = httpx2.URL(base_url)
    if url.host and urllib.request.proxy_bypass(url.host):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(url.scheme) or proxies.get("all")


class _Budget:
    """Seconds a request may spend waiting for its endpoint, and how many it has spent."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.spent = 0.0

    def left(self) -> float:
        return self.seconds - self.spent

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        token = _ACTIVE.set(self)
        try:
            yield
        finally:
            _ACTIVE.reset(token)

    def wait(self, timeout: float | None, timed_out: type[Exception]) -> tuple[float, float]:
        """The timeout for the next socket operation and when it began; raises ``timed_out``
        when nothing is left."""
        left = self.left()
        if left <= 0:
            raise timed_out(f"no complete answer within {self.seconds:g} s")
        return (left if timeout is None else min(timeout, left)), time.monotonic()

    def spend(self, began: float) -> None:
        self.spent += time.monotonic() - began


class _DeadlineTransport(httpx2.BaseTransport):
    def __init__(self, inner: httpx2.HTTPTransport) -> None:
        self._inner = inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        seconds = (request.extensions.get("timeout") or {}).get("read")
        if seconds is None:  # no timeout asked for: nothing to enforce but the size bound
            response = self._inner.handle_request(request)
            response.stream = bounded_body(response, response.stream)
            return response
        budget = _Budget(seconds)
        with budget.active():
            response = self._inner.handle_request(request)
        response.stream = bounded_body(response, _BudgetedStream(response.stream, budget))
        return response

    def close(self) -> None:
        self._inner.close()


class _BudgetedStream(httpx2.SyncByteStream):
    """The response body, read with the request's budget active."""

    def __init__(self, inner: Iterable[bytes], budget: _Budget) -> None:
        self._inner = inner
        self._budget = budget

    def __iter__(self) -> Iterator[bytes]:
        pieces = iter(self._inner)
        while True:
            with self._budget.active():
                try:
                    piece = next(pieces)
                except StopIteration:
                    return
            yield piece

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()


class _BudgetedBackend(httpcore2.NetworkBackend):
    """Opens connections whose every wait is cut to what the active request has left."""

    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> httpcore2.NetworkStream:
        budget = _ACTIVE.get()
        if budget is None:
            stream = self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        else:
            timeout, began = budget.wait(timeout, httpcore2.ConnectTimeout)
            try:
                stream = self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
            finally:
                budget.spend(began)
        return _BudgetedSocket(stream)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore2.NetworkStream:
        return _BudgetedSocket(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _within_budget(operation: Any, argument: Any, timeout: float | None, timeout_error: type[Exception]) -> Any:
    """``operation(argument, timeout)`` with its wait cut to what the request's budget has left."""
    budget = _ACTIVE.get()
    if budget is None:
        return operation(argument, timeout)
    timeout, began = budget.wait(timeout, timeout_error)
    try:
        return operation(argument, timeout)
    finally:
        budget.spend(began)


class _BudgetedSocket(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _within_budget(self._inner.read, max_bytes, timeout, httpcore2.ReadTimeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        return _within_budget(self._inner.write, buffer, timeout, httpcore2.WriteTimeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        budget = _ACTIVE.get()
        if budget is None:
            return _BudgetedSocket(self._inner.start_tls(ssl_context, server_hostname, timeout))
        timeout, began = budget.wait(timeout, httpcore2.ConnectTimeout)
        try:
            return _BudgetedSocket(self._inner.start_tls(ssl_context, server_hostname, timeout))
        finally:
            budget.spend(began)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)

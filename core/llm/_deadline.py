"""A total time limit for one model request, on top of httpx's per-read timeout.

httpx times each read on its own, so an endpoint that sends a byte now and then (a stuck
proxy, a server trickling keep-alives) would never time out. ``deadline_hooks`` gives each
request a budget instead: the time spent waiting for the endpoint, from sending the request
to the last byte of the answer, may not exceed the request's timeout (the SDK's
``timeout=``, which httpx also uses for each read). Past it, the next read raises
httpx's own ``ReadTimeout``, which the SDK turns into ``APITimeoutError`` for plain and
streamed answers alike, and the response is closed. Time the caller spends between two
pieces of a stream (drawing them, say) is not the endpoint's and does not count.

A read that returns nothing at all is ended by the per-read timeout (the same seconds),
so a request never waits more than twice the limit even in the worst case: a trickle that
stops just before the budget is spent. Headers are checked once they are complete.

This module imports httpx: import it only where the SDK client is made (``core`` must
import fast for the offline path).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator

import httpx2

__all__ = ["deadline_hooks"]

_STARTED = "plan_studio.started"  # request extension: when the request was sent


def deadline_hooks() -> dict[str, list[Callable[[Any], None]]]:
    """httpx ``event_hooks`` that end a request once its timeout is spent waiting."""

    def on_request(request: httpx2.Request) -> None:
        request.extensions[_STARTED] = time.monotonic()

    def on_response(response: httpx2.Response) -> None:
        request = response.request
        seconds = (request.extensions.get("timeout") or {}).get("read")
        if seconds is None:  # no timeout asked for: nothing to enforce
            return
        budget = _Budget(seconds, request)
        budget.spend(time.monotonic() - request.extensions.get(_STARTED, time.monotonic()))
        response.stream = _BudgetedStream(response.stream, budget)

    return {"request": [on_request], "response": [on_response]}


class _Budget:
    def __init__(self, seconds: float, request: httpx2.Request) -> None:
        self.seconds = seconds
        self.request = request
        self.spent = 0.0

    def spend(self, elapsed: float) -> None:
        self.spent += elapsed
        if self.spent > self.seconds:
            raise httpx2.ReadTimeout(f"no complete answer within {self.seconds:g} s", request=self.request)


class _BudgetedStream(httpx2.SyncByteStream):
    """The response body, read against the request's budget."""

    def __init__(self, inner: httpx2.SyncByteStream, budget: _Budget) -> None:
        self._inner = inner
        self._budget = budget

    def __iter__(self) -> Iterator[bytes]:
        pieces = iter(self._inner)
        while True:
            began = time.monotonic()
            try:
                piece = next(pieces)
            except StopIteration:
                return
            self._budget.spend(time.monotonic() - began)
            yield piece

    def close(self) -> None:
        self._inner.close()

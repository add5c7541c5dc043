"""Span ids made from what a span is of, so that processes agree on them without talking.

A run's trace id and its root span's id are hashes of the run's id: the worker that runs a
step and the studio where a person decides on it each make their spans under that root, and
the process that sees the run finish makes the root itself. ``RunIds`` is the tracer
provider's id generator: random ids, but the next span made on this thread inside
``chosen_ids(...)`` gets the ids chosen for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from typing import Iterator

from opentelemetry.sdk.trace.id_generator import RandomIdGenerator

__all__ = ["RunIds", "chosen_ids", "run_trace_id", "run_root_span_id"]


def _number(kind: str, key: str, bits: int) -> int:
    digest = hashlib.sha256(f"plan-studio {kind} {key}".encode()).digest()
    return int.from_bytes(digest[: bits // 8], "big") or 1  # zero is the invalid id


def run_trace_id(run_id: str) -> int:
    return _number("run trace", run_id, 128)


def run_root_span_id(run_id: str) -> int:
    return _number("run root", run_id, 64)


class RunIds(RandomIdGenerator):
    """Random ids, unless the thread chose the next span's (``chosen_ids``)."""

    def __init__(self) -> None:
        self._chosen = threading.local()

    def generate_trace_id(self) -> int:
        chosen = getattr(self._chosen, "ids", None)
        return chosen[0] if chosen else super().generate_trace_id()

    def generate_span_id(self) -> int:
        chosen = getattr(self._chosen, "ids", None)
        if chosen:
            self._chosen.ids = None  # one span only
            return chosen[1]
        return super().generate_span_id()

    def is_trace_id_random(self) -> bool:
        return False  # some are hashes (W3C's random flag must not be claimed)

    @contextlib.contextmanager
    def chosen(self, trace_id: int, span_id: int) -> Iterator[None]:
        self._chosen.ids = (trace_id, span_id)
        try:
            yield
        finally:
            self._chosen.ids = None


@contextlib.contextmanager
def chosen_ids(provider: object, trace_id: int, span_id: int) -> Iterator[bool]:
    """The next span this thread starts gets these ids, if ``provider`` makes its ids with
    ``RunIds`` (yields whether it does)."""
    ids = getattr(provider, "id_generator", None)
    if not isinstance(ids, RunIds):
        yield False
        return
    with ids.chosen(trace_id, span_id):
        yield True

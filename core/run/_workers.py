"""Which steps are being run by a live worker of this process: a token per step started."""

from __future__ import annotations

import itertools
import threading

__all__ = ["workers"]


class _Workers:
    """Tokens of the steps being run right now in this process, one per step started."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[str] = set()
        # Unique in this process, which is all a token must be: uuid4 read the OS's random
        # source for every step (~60 µs here, more than the rest of a no-op step).
        self._numbers = itertools.count(1)

    def claim(self) -> str:
        token = f"w{next(self._numbers)}"
        with self._lock:
            self._live.add(token)
        return token

    def release(self, token: str) -> None:
        with self._lock:
            self._live.discard(token)

    def alive(self, token: str | None) -> bool:
        with self._lock:
            return token is not None and token in self._live


workers = _Workers()

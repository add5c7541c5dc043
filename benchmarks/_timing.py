"""How the benchmarks time one piece of work: run it ``repeat`` times and print the median in ms,
beside the fastest run (or, with ``slowest``, the slowest one: what a user may wait)."""

from __future__ import annotations

import statistics
import time
from typing import Callable

__all__ = ["timed"]


def timed(label: str, fn: Callable[[], object], repeat: int = 10, *, width: int = 34, digits: int = 3,
          slowest: bool = False) -> None:
    samples = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - began) * 1000)
    other, value = ("max", max(samples)) if slowest else ("min", min(samples))
    print(f"{label:<{width}} median {statistics.median(samples):8.{digits}f} ms   "
          f"{other} {value:8.{digits}f} ms   n={repeat}")

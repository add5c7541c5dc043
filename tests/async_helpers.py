"""Running a coroutine from a test, whatever already runs on the test's thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

Result = TypeVar("Result")


def run_apart(coroutine: Coroutine[Any, Any, Result]) -> Result:
    """Run ``coroutine`` on its own thread's event loop: Playwright's sync API, used by the
    browser tests in the same pytest process, keeps an event loop running on the main thread,
    where ``asyncio.run`` refuses to start another."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()

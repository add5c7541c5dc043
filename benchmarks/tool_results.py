"""Prints what checking a tool's result as JSON costs (``core.tooling._json_result``), beside pydantic's
own dump alone (what a result cost before it was checked), and what awaiting an ``async def``
tool adds to a call.

    .venv/bin/python benchmarks/tool_results.py

Figures, not assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any, Callable

from pydantic import TypeAdapter

from core import ToolRegistry
from core.tooling._json_result import json_result

from _timing import timed as _timed

ROWS = 10_000


def timed(label: str, work: Callable[[], Any], n: int = 10) -> None:
    _timed(label, work, n, width=52, digits=2)


def main() -> None:
    plain = {"data": [{"id": f"F{i}", "name": "x" * 20, "n": i, "w": i * 1.5, "ok": True} for i in range(ROWS)]}
    dated = {"data": [{"id": f"F{i}", "day": dt.date(2025, 1, 1), "n": i} for i in range(ROWS)]}
    dump = TypeAdapter(Any)
    for name, value in (("plain rows", plain), ("rows with dates", dated)):
        timed(f"{ROWS:,} {name}: pydantic dump only", lambda: dump.dump_python(value, mode="json"))
        timed(f"{ROWS:,} {name}: json_result (checked)", lambda: json_result(value))

    registry = ToolRegistry()

    @registry.register
    def echo(text: str) -> str:
        """Echo.

        Args:
            text: What to echo.
        """
        return text

    @registry.register
    async def echo_async(text: str) -> str:
        """Echo, awaited.

        Args:
            text: What to echo.
        """
        await asyncio.sleep(0)
        return text

    for name in ("echo", "echo_async"):
        tool = registry.get(name)
        timed(f"1,000 calls of {name}", lambda: [tool.call({"text": "hi"}) for _ in range(1000)], n=5)


if __name__ == "__main__":
    main()

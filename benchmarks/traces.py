"""Prints what tracing costs a run: off (the default, no OTEL_EXPORTER_OTLP_ENDPOINT) beside
before it existed, and on.

    .venv/bin/python benchmarks/traces.py [--repeat N] [--sizes 100,1000]

A chain of no-op steps (each depends on the one before) run in memory by ``Executor.execute``
(validation, then the run driven to its end), three ways, their tries interleaved so a busy
machine weighs on each alike:

- before: the trace plugin unregistered, as the studio was before it (the hooks still tell
  the plugins, which no plugin hears);
- off: the trace plugin registered, tracing off (the default): each step's and the run's hook
  returns at its first line;
- on: tracing on, spans to the SDK's in-memory exporter through a simple (synchronous)
  processor, so the cost of making every span is in the figure (a BatchSpanProcessor exports
  on a thread of its own).

Figures are medians of CPU time (``time.process_time``: every thread of the process) and of
wall time over ``--repeat`` tries after one untimed try each; "per step" is the median's
difference from "before", divided by the steps.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
    os.environ.pop(name, None)

from core import Executor, ToolRegistry, hooks, traces  # noqa: E402
from core.formats import plan_from_seed  # noqa: E402
from core.traces import _plugin  # noqa: E402

PLUGIN = "core.traces._plugin"


def registry() -> ToolRegistry:
    tools = ToolRegistry()

    @tools.register(effects="read-only")
    def noop(n: int) -> int:
        """Return n.

        Args:
            n: A number.
        """
        return n

    return tools


def chain(size: int):
    return plan_from_seed([{"tool": "noop", "params": {"n": i}, "depends_on": [i - 1] if i else []}
                           for i in range(size)], goal=f"a chain of {size}")


def setup(way: str) -> object:
    """Set ``way`` up; the exporter spans go to ("on": a new one, as shutting tracing down stops it)."""
    traces.shutdown()
    if way == "before":
        hooks.unregister(PLUGIN)
        return None
    hooks.register(_plugin, PLUGIN)
    if way != "on":
        return None
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    exporter = InMemorySpanExporter()
    traces.configure(SimpleSpanProcessor(exporter))
    return exporter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--sizes", default="100,1000")
    args = parser.parse_args()
    executor = Executor(registry())
    ways = ("before", "off", "on")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; medians of {args.repeat} tries")
    for size in (int(s) for s in args.sizes.split(",")):
        plan = chain(size)
        cpu: dict[str, list[float]] = {w: [] for w in ways}
        wall: dict[str, list[float]] = {w: [] for w in ways}
        for attempt in range(args.repeat + 1):
            for way in ways:
                exporter = setup(way)
                began_cpu, began = time.process_time(), time.perf_counter()
                run = executor.execute(plan)
                spent_cpu, spent = time.process_time() - began_cpu, time.perf_counter() - began
                assert run.status == "succeeded"
                if way == "on":
                    assert len(exporter.get_finished_spans()) == size + 1
                if attempt:  # the first try of each way is untimed
                    cpu[way].append(spent_cpu * 1000)
                    wall[way].append(spent * 1000)
        base = statistics.median(cpu["before"])
        for way in ways:
            median = statistics.median(cpu[way])
            extra = (median - base) / size * 1000
            print(f"{size:>6} steps  {way:<7} cpu {median:9.2f} ms  wall {statistics.median(wall[way]):9.2f} ms  "
                  f"per step vs before {extra:+8.2f} µs ({(median / base - 1) * 100:+5.1f} %)")
    traces.shutdown()
    hooks.register(_plugin, PLUGIN)


if __name__ == "__main__":
    main()

"""Prints how long MCP tools take: starting a server and listing its tools, and one tool call,
for the npm reference server (``npm ci --prefix tests/mcp`` first) and the tests' SDK server;
then how long results of 10 and 50 MB take to come back over stdio (the tests' ``big_text``).

    .venv/bin/python benchmarks/mcp_tools.py [--calls N] [--result-mb 10 50]

Large results, on the 2-core machine of issue 15 (shared): with the SDK's stdio reader, which
copied the unfinished line on every 64 KiB read, 10 MB took 0.5 s and 50 MB 16.6 s (52 s on
the reporter's machine); with the linear reader of ``tools/_mcp_stdio.py``, 10 MB 0.06 s,
50 MB 0.28 s, 100 MB 0.61 s.

Figures, not assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from core import Settings
from tools import LoadNotice, load_tools

ROOT = Path(__file__).resolve().parents[1]
EVERYTHING = ROOT / "tests" / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
SERVERS = {
    "server-everything (node, stdio)": (f"node {EVERYTHING} stdio", "echo", {"message": "hi"}),
    "tests/mcp_test_server.py (Python SDK, stdio)": (f"{sys.executable} {ROOT / 'tests' / 'mcp_test_server.py'} stdio",
                                                     "add", {"a": 1, "b": 2}),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--result-mb", type=int, nargs="*", default=[10, 50])
    options = parser.parse_args()
    calls = options.calls
    with tempfile.TemporaryDirectory() as folder:
        for label, (command, tool, args) in SERVERS.items():
            start = time.perf_counter()
            registry, problems = load_tools(Settings(data_dir=Path(folder), mcp=[command], mcp_timeout=60))
            started = time.perf_counter() - start
            failures = [p for p in problems if not isinstance(p, LoadNotice)]  # notices: skipped tools
            if failures:
                print(f"{label}: {failures[0]}")
                continue
            mcp_tools = [t for t in registry if t.kind == "mcp"]
            times = []
            for _ in range(calls):
                begin = time.perf_counter()
                registry.get(tool).call(args)
                times.append((time.perf_counter() - begin) * 1000)
            print(f"{label}: started and listed {len(mcp_tools)} tools in {started:.2f} s; "
                  f"{tool} call median {statistics.median(times):.1f} ms, max {max(times):.1f} ms ({calls} calls)")
            if tool == "add":  # the tests' server: large results
                for megabytes in options.result_mb:
                    begin = time.perf_counter()
                    text = registry.get("big_text").call({"megabytes": megabytes})
                    print(f"{label}: a {len(text) / 1e6:.0f} MB result in {time.perf_counter() - begin:.2f} s")
            mcp_tools[0].connection.close()


if __name__ == "__main__":
    main()

"""Prints how long MCP tools take: starting a server and listing its tools, and one tool call,
for the npm reference server (``npm ci --prefix tests/mcp`` first) and the tests' SDK server.

    .venv/bin/python benchmarks/mcp_tools.py [--calls N]

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
from tools import McpTool, load_tools

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
    calls = parser.parse_args().calls
    with tempfile.TemporaryDirectory() as folder:
        for label, (command, tool, args) in SERVERS.items():
            start = time.perf_counter()
            registry, problems = load_tools(Settings(data_dir=Path(folder), mcp=[command], mcp_timeout=60))
            started = time.perf_counter() - start
            if problems:
                print(f"{label}: {problems[0]}")
                continue
            mcp_tools = [t for t in registry if isinstance(t, McpTool)]
            times = []
            for _ in range(calls):
                begin = time.perf_counter()
                registry.get(tool).call(args)
                times.append((time.perf_counter() - begin) * 1000)
            print(f"{label}: started and listed {len(mcp_tools)} tools in {started:.2f} s; "
                  f"{tool} call median {statistics.median(times):.1f} ms, max {max(times):.1f} ms ({calls} calls)")
            mcp_tools[0].connection.close()


if __name__ == "__main__":
    main()

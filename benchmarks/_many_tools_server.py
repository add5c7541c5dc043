"""An MCP server listing as many tools as asked, each with a few described parameters, for
``benchmarks/mcp_config.py``: ``python benchmarks/_many_tools_server.py N``."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer(name="many-tools")


def _make(n: int) -> None:
    def tool(city: str, limit: int = 10, unit: str = "metric") -> str:
        return f"tool {n}: {city} {limit} {unit}"

    tool.__name__ = f"lookup_{n:03d}"
    tool.__doc__ = f"Look up record set {n} for a city: the first LIMIT records, in UNIT units."
    server.tool(description=tool.__doc__)(tool)


for _n in range(int(sys.argv[1]) if len(sys.argv) > 1 else 100):
    _make(_n)

if __name__ == "__main__":
    server.run("stdio")

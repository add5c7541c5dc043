"""``plan-studio tools``: the tools in force (``--tools``, ``--mcp``, ``--demo``), one line each
with its effects, group and source (``--json``: one JSON list). Text from tools and servers is
printed with every control character escaped, so a description cannot drive the terminal."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..workbench._services import Services
from ..workbench._tool_listing import tool_rows

__all__ = ["add_tools_command", "cmd_tools"]


def add_tools_command(commands: Any, common: argparse.ArgumentParser) -> None:
    tools = commands.add_parser("tools", parents=[common],
                                help="list the tools (yours, MCP servers', the demo tools) with their effects")
    tools.add_argument("--json", action="store_true", help="one JSON list of the tools, MCP's annotations included")


def _plain(text: str) -> str:
    """``text`` on one line, control characters escaped (json's escapes, without the quotes)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def cmd_tools(args: argparse.Namespace, services: Services) -> int:
    rows = tool_rows(services.registry)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("no tools: give yours with --tools FILE or --mcp COMMAND, or load the demo tools with --demo")
        return 0
    width = max(len(_plain(row["name"])) for row in rows)
    effects = max(len(row["effects"]) for row in rows)
    for row in rows:
        needs = f"  needs {', '.join(map(_plain, row['required']))}" if row["required"] else ""
        print(f"{_plain(row['name']):<{width}}  {row['effects']:<{effects}}  group {_plain(row['group'])}, "
              f"from {_plain(row['source'])}{needs}")
    return 0

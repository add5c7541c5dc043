"""The tools in force, one row each: what the Tools page and ``plan-studio tools`` list.

A row names the tool, its group and source (a file, an MCP server, the demo tools), its effects
as people read them ("read-only", "writes, destructive", "unknown (may write)") and as MCP
annotations, and its required parameters. Nothing here calls a tool or a server.
"""

from __future__ import annotations

from typing import Any

from core import Tool, ToolRegistry

__all__ = ["tool_row", "tool_rows"]


def tool_row(tool: Tool) -> dict[str, Any]:
    """One tool as a row (JSON-ready): name, group, source, kind, effects, annotations, required, description."""
    summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
    return {"name": tool.name, "group": tool.group, "source": tool.source or "built in", "kind": tool.kind,
            "effects": tool.effects.label, "annotations": tool.effects.as_annotations(),
            "required": tool.required, "description": summary}


def tool_rows(registry: ToolRegistry) -> list[dict[str, Any]]:
    """Every tool of ``registry`` as a row, in the order they were loaded."""
    return [tool_row(tool) for tool in registry]

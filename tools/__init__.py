"""Built-in tools, and the loader that gives every tool group the same way in.

A tool group is a module with ``register(registry, settings)``. Built-in groups and
third-party ones are found the same way, through the ``plan_studio.tools`` entry point;
the built-ins are also listed here so a source checkout works before it is installed.
An entry point whose name another group already has is refused, never silently swapped in.

``load_tools`` adds the user's own on top: Python files and modules (``settings.tools``,
see ``_python``) and MCP servers (``settings.mcp``, see ``_mcp``). A source that fails is
one problem line, and every other tool still loads.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Callable

from core import PlanStudioError, Settings, ToolDefinitionError, ToolRegistry

from ._load_notice import LoadNotice
from ._mcp import McpConnection, McpServerSpec, add_mcp_server, connection_of, start_mcp_server
from ._python import load_python_source

__all__ = ["BUILTIN_GROUPS", "build_registry", "load_group", "load_tools", "load_python_source",
           "add_mcp_server", "McpServerSpec", "connection_of", "LoadNotice"]

BUILTIN_GROUPS = {
    "waste": "tools.waste:register",
    "lists": "tools.lists:register",
    "writer": "tools.writer:register",
    "conversation": "tools.conversation:register",
}

Register = Callable[[ToolRegistry, Settings], None]


def load_group(target: str) -> Register:
    module_name, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr or "register")
    except (ImportError, AttributeError) as exc:
        raise ToolDefinitionError(f"tool group {target!r} cannot be loaded: {exc}") from exc


def build_registry(settings: Settings, groups: list[str] | None = None,
                   problems: list[str] | None = None) -> ToolRegistry:
    """A registry holding every installed tool group (or only ``groups``, by name).

    With ``problems``, a group that cannot be loaded is told there and skipped; without, it
    raises ``ToolDefinitionError``."""
    targets = dict(BUILTIN_GROUPS)
    refused: list[str] = []
    for ep in entry_points(group="plan_studio.tools"):
        if targets.get(ep.name, ep.value) != ep.value:
            refused.append(f"tool group {ep.name!r} from {ep.value!r} refused: {targets[ep.name]!r} "
                           "already has that name (entry point group plan_studio.tools)")
        else:
            targets[ep.name] = ep.value
    registry = ToolRegistry()
    for message in refused:
        _report(ToolDefinitionError(message), problems)
    for name, target in targets.items():
        if groups is None or name in groups:
            try:
                load_group(target)(registry, settings)
            except ToolDefinitionError as exc:
                _report(exc, problems)
    return registry


def load_tools(settings: Settings, groups: list[str] | None = None) -> tuple[ToolRegistry, list[str]]:
    """The installed tool groups plus the user's Python sources and MCP servers, and one line
    per source that could not be loaded (the others load regardless)."""
    problems: list[str] = []
    registry = build_registry(settings, groups, problems)
    for source in settings.tools:
        try:
            load_python_source(source, registry, settings)
        except ToolDefinitionError as exc:
            problems.append(str(exc))
    started: list[McpConnection | PlanStudioError] = []
    for server in settings.mcp:  # all start side by side; then each is waited for in order
        try:
            started.append(start_mcp_server(server, settings.mcp_timeout))
        except PlanStudioError as exc:
            started.append(exc)
    for connection in started:
        try:
            if isinstance(connection, PlanStudioError):
                raise connection
            problems += add_mcp_server(registry, connection)
        except PlanStudioError as exc:
            problems.append(str(exc))
    return registry, problems


def _report(exc: ToolDefinitionError, problems: list[str] | None) -> None:
    if problems is None:
        raise exc
    problems.append(str(exc))

"""Built-in tools, and the loader that gives every tool group the same way in.

A tool group is a ``register(registry, settings)`` function. Built-in groups and third-party
ones come the same way, through the ``tool_groups`` hook (``core.hooks``: a plugin of the
``plan_studio`` entry point group, or an entry point of the older ``plan_studio.tools`` group);
the built-ins' plugin (``_plugin``) is also registered here, so a source checkout works before
it is installed. A group whose name another group already has is refused, never silently
swapped in. The groups' words for the planner come through the ``tool_words`` hook.

``load_tools`` adds the user's own on top: Python files and modules (``settings.tools``,
see ``_python``) and MCP servers (``settings.mcp`` and the ``mcpServers`` file
``settings.mcp_config``, see ``_mcp`` and ``_mcp_config``; their tools come from the data
folder's cache of their last listing unless ``settings.refresh_tools``, see ``_mcp_cache``). A source that fails is
one problem line, and every other tool still loads. The built-in groups are the demo domain,
one optional whole (``DEMO_GROUPS``): loaded when the user gives no tools of their own, or when
asked (``settings.demo``); a name of the user's that one of them has is refused only when both
are loaded, naming both sources.
"""

from __future__ import annotations

import importlib
from typing import Callable

from core import PlanStudioError, Settings, ToolDefinitionError, ToolRegistry, hooks

from . import _plugin
from ._load_notice import LoadNotice
from ._mcp import McpConnection, McpServerSpec, add_mcp_server, connection_of, start_mcp_server
from ._mcp_config import read_mcp_config
from ._python import DEMO_SOURCE, load_python_source

__all__ = ["BUILTIN_GROUPS", "DEMO_GROUPS", "DEMO_SOURCE", "build_registry", "load_group", "load_tools",
           "load_python_source", "add_mcp_server", "McpServerSpec", "connection_of", "LoadNotice",
           "read_mcp_config"]

BUILTIN_GROUPS = _plugin.BUILTIN_GROUPS
# The demo domain: the built-in groups, loaded together when no tools of the user's are given or
# when asked (``settings.demo``, ``--demo``); never loaded, they reserve no name.
DEMO_GROUPS = frozenset(BUILTIN_GROUPS)
hooks.register(_plugin, "builtin_tools")

Register = Callable[[ToolRegistry, Settings], None]


def load_group(target: str | Register) -> Register:
    if callable(target):
        return target
    module_name, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr or "register")
    except (ImportError, AttributeError) as exc:
        raise ToolDefinitionError(f"tool group {target!r} cannot be loaded: {exc}") from exc


def build_registry(settings: Settings, groups: list[str] | None = None,
                   problems: list[str] | None = None, *, demo: bool = True) -> ToolRegistry:
    """A registry holding every installed tool group (or only ``groups``, by name); the demo
    tools (``DEMO_GROUPS``) only with ``demo``.

    With ``problems``, a group that cannot be loaded is told there and skipped; without, it
    raises ``ToolDefinitionError``."""
    targets: dict[str, str | Register] = {}
    refused: list[str] = []
    for name, target, plugin in hooks.tool_groups():
        if name not in targets:
            targets[name] = target
        elif _named(targets[name]) != _named(target):
            refused.append(f"tool group {name!r} from {_named(target)!r} refused: {_named(targets[name])!r} "
                           f"already has that name ({_where(plugin)})")
    registry = ToolRegistry()
    for message in [*hooks.load_problems(), *refused]:
        _report(ToolDefinitionError(message), problems)
    for name, target in targets.items():
        if (groups is None or name in groups) and (demo or name not in DEMO_GROUPS):
            try:
                load_group(target)(registry, settings)
            except ToolDefinitionError as exc:
                _report(exc, problems)
    for tool in registry:
        if tool.group in DEMO_GROUPS and not tool.source:
            tool.source = DEMO_SOURCE  # named where a tool of the user's clashes with one, and on the Tools page
    words, loaded = hooks.tool_words(), registry.groups()
    for group in targets:
        if group in words and group in loaded:
            registry.add_words(group, words[group])
    return registry


def _named(target: str | Register) -> str:
    return target if isinstance(target, str) else f"{target.__module__}:{target.__qualname__}"


def _where(plugin: str) -> str:
    group, _, _name = plugin.rpartition(":")
    return f"entry point group {group}" if group == hooks.TOOLS_ENTRY_POINT_GROUP else f"plugin {plugin!r}"


def load_tools(settings: Settings, groups: list[str] | None = None) -> tuple[ToolRegistry, list[str]]:
    """The installed tool groups plus the user's Python sources and MCP servers, and one line
    per source that could not be loaded (the others load regardless)."""
    problems: list[str] = []
    registry = build_registry(settings, groups, problems, demo=settings.demo_tools)
    for source in settings.tools:
        try:
            load_python_source(source, registry, settings)
        except ToolDefinitionError as exc:
            problems.append(str(exc))
    servers: list[str | McpServerSpec] = [*settings.mcp]
    if settings.mcp_config is not None:
        specs, config_problems = read_mcp_config(settings.mcp_config)
        servers += specs
        problems += config_problems
    started: list[McpConnection | PlanStudioError] = []
    for server in servers:  # all start side by side; then each is waited for in order
        try:
            started.append(start_mcp_server(server, settings.mcp_timeout, cache=settings.data_dir,
                                            refresh=settings.refresh_tools))
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

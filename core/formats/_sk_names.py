"""Semantic Kernel names of tools: the plugin a tool group is shown as, and the registered tool
a dotted ``Plugin.Name`` means (Teams plans name tools the same way)."""

from __future__ import annotations

import re

from ..tooling._registry import ToolRegistry

__all__ = ["sk_plugin_name", "match_tool_name"]

_PLUGINS = {
    "writer": "WriterPlugin",
    "lists": "ListPlugin",
    "waste": "WastePlugin",
    "conversation": "ConversationPlugin",
}


def sk_plugin_name(group: str | None) -> str:
    """The SK plugin a tool group is shown as: ``writer`` → ``WriterPlugin``."""
    if not group:
        return "Plugin"
    if group in _PLUGINS:
        return _PLUGINS[group]
    words = [w for w in re.split(r"[^A-Za-z0-9]+", group) if w]
    name = "".join(w[0].upper() + w[1:] for w in words)
    return f"{name}Plugin" if name and not name[0].isdigit() else "Plugin"


def match_tool_name(parts: list[str], registry: ToolRegistry | None) -> str:
    """The registered tool a dotted SK name means: ``Name``, else ``Plugin.Name``,
    ``Plugin_Name`` or ``Plugin-Name`` (a hyphenated name read as Python SK's
    ``Plugin-Function``); exact case first, then ignoring case. Unknown names stay as written,
    for the validator to report."""
    name = parts[-1]
    if registry is None:
        return name
    candidates = [name]
    for k in range(2, len(parts) + 1):
        tail = parts[-k:]
        candidates += [".".join(tail), "_".join(tail), "-".join(tail)]
    for candidate in candidates:
        if candidate in registry:
            return candidate
    lowered: dict[str, str] = {}
    for registered in registry.names():
        lowered.setdefault(registered.lower(), registered)
    for candidate in candidates:
        if candidate.lower() in lowered:
            return lowered[candidate.lower()]
    return name

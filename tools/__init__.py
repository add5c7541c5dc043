"""Built-in tools, and the loader that gives every tool group the same way in.

A tool group is a module with ``register(registry, settings)``. Built-in groups and
third-party ones are found the same way, through the ``plan_studio.tools`` entry point;
the built-ins are also listed here so a source checkout works before it is installed.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Callable

from core import Settings, ToolDefinitionError, ToolRegistry

__all__ = ["BUILTIN_GROUPS", "build_registry", "load_group"]

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


def build_registry(settings: Settings, groups: list[str] | None = None) -> ToolRegistry:
    """A registry holding every installed tool group (or only ``groups``, by name)."""
    targets = dict(BUILTIN_GROUPS)
    targets.update({ep.name: ep.value for ep in entry_points(group="plan_studio.tools")})
    registry = ToolRegistry()
    for name, target in targets.items():
        if groups is None or name in groups:
            load_group(target)(registry, settings)
    return registry

"""Whether a tool may be called a second time for the same step without harm.

A durable run records a step's start before its tool is called and its end right after; a kill
between the two leaves a step that may or may not have had its effect. Such a step runs again
only when its tool says (``tool.effects``) it is read-only or idempotent; any other tool's step,
including one whose tool said nothing (``UNKNOWN``: "may write"), is *in doubt* and waits for
the user.
"""

from __future__ import annotations

from ..tooling._registry import Tool, ToolRegistry

__all__ = ["may_repeat", "may_repeat_named"]


def may_repeat(tool: Tool) -> bool:
    """True when calling ``tool`` again for a step cut off mid-call cannot do harm."""
    effects = tool.effects
    return effects.read_only is True or effects.idempotent is True


def may_repeat_named(registry: ToolRegistry | None, name: str) -> bool:
    """``may_repeat`` of the tool ``registry`` has as ``name``; False for a tool it lacks (or no
    registry): nothing says such a tool's call is harmless."""
    return registry is not None and name in registry and may_repeat(registry.get(name))

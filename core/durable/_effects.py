"""Whether a tool may be called a second time for the same step without harm.

A durable run records a step's start before its tool is called and its end right after; a kill
between the two leaves a step that may or may not have had its effect. Such a step runs again
only when its tool is read-only or idempotent; any other tool's step is *in doubt* and waits for
the user. Until tools declare their effects (read-only, idempotent, destructive), every tool is
taken to "may write": this one function is the switch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["may_repeat"]

_SAFE_EFFECTS = frozenset({"read_only", "read-only", "idempotent"})


def may_repeat(tool: Any) -> bool:
    """True when calling ``tool`` again for a step cut off mid-call cannot do harm."""
    effect = getattr(tool, "effect", None) or getattr(tool, "effects", None)
    return isinstance(effect, str) and effect in _SAFE_EFFECTS

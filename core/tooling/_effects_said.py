"""What a plain Python function says about its own effects: a decorator or a docstring line.

A tools file loaded by ``--tools`` has no ``register()`` call to pass ``effects=`` to, so a
function may say it itself, in MCP's words (``readOnlyHint``, ``idempotentHint``,
``destructiveHint``)::

    from core import tool

    @tool(read_only=True)
    def weather_lookup(city: str) -> dict: ...

or with a line of its docstring, ``Effects: read-only`` (also ``idempotent``, ``destructive``,
``additive``, ``writes``, comma-separated). The registry reads both when it builds the tool
(``effects_said``); effects given to ``registry.register(effects=...)`` win. Contradictory
words (read-only and destructive) are a ``ToolDefinitionError`` naming the tool; a function that
says nothing has ``UNKNOWN`` effects, as before, and its steps wait for a person.
"""

from __future__ import annotations

import re
from typing import Any, Callable, TypeVar

from .._errors import ToolDefinitionError
from ._definition import UNKNOWN, Effects

__all__ = ["tool", "effects_said", "without_effects_line", "EFFECTS_ATTRIBUTE"]

EFFECTS_ATTRIBUTE = "__plan_studio_effects__"
F = TypeVar("F", bound=Callable[..., Any])
# "Effects: read-only, idempotent" on a line of its own (any indent).
_LINE = re.compile(r"^[ \t]*Effects:[ \t]*(?P<words>[^\n]*)$\n?", re.MULTILINE | re.IGNORECASE)
_WORDS = ("read-only", "idempotent", "destructive", "additive", "writes")


def tool(*, read_only: bool | None = None, idempotent: bool | None = None,
         destructive: bool | None = None) -> Callable[[F], F]:
    """Say what calling the decorated function does, as MCP's tool annotations do:
    ``@tool(read_only=True)``, ``@tool(idempotent=True)`` (writes, repeating changes nothing
    more), ``@tool(destructive=True)`` (removes or overwrites), ``@tool(destructive=False)``
    (writes, only adds). The function is returned as it is, marked."""
    hints = {"read_only": read_only, "idempotent": idempotent, "destructive": destructive}
    for key, value in hints.items():
        if value is not None and not isinstance(value, bool):
            raise TypeError(f"tool({key}=...) takes True or False, not {value!r}")
    if not any(v is not None for v in hints.values()):
        raise TypeError("tool() needs read_only=, idempotent= or destructive=")

    def mark(func: F) -> F:
        setattr(func, EFFECTS_ATTRIBUTE, dict(hints))
        return func

    return mark


def _effects(name: str, how: str, read_only: bool | None, idempotent: bool | None,
             destructive: bool | None) -> Effects:
    if read_only and destructive:
        raise ToolDefinitionError(f"tool {name!r}: {how} says both read-only and destructive; a tool that only "
                                  "reads removes nothing: say one")
    if read_only:
        return Effects(read_only=True, destructive=False, idempotent=True if idempotent is None else idempotent)
    # MCP's defaults for a tool that writes: destructive unless it says otherwise.
    return Effects(read_only=False, destructive=destructive, idempotent=idempotent)


def _from_line(name: str, text: str) -> Effects:
    words = [w.strip().lower() for w in re.split(r"[,;]|\band\b", text) if w.strip()]
    words = ["read-only" if w in ("readonly", "read only", "read_only") else w for w in words]
    unknown = [w for w in words if w not in _WORDS]
    if unknown or not words:
        what = f"{unknown[0]!r} is not an effect" if unknown else "it names no effect"
        raise ToolDefinitionError(f"tool {name!r}: docstring line 'Effects: {text.strip()}': {what}; "
                                  f"say {', '.join(_WORDS)}")
    said = set(words)
    if "read-only" in said and said & {"writes", "additive"}:
        raise ToolDefinitionError(f"tool {name!r}: docstring line 'Effects: {text.strip()}' says both read-only "
                                  "and that it writes: say one")
    if {"destructive", "additive"} <= said:
        raise ToolDefinitionError(f"tool {name!r}: docstring line 'Effects: {text.strip()}' says both destructive "
                                  "and additive: say one")
    destructive = True if "destructive" in said else False if "additive" in said else None
    return _effects(name, f"docstring line 'Effects: {text.strip()}'", "read-only" in said,
                    True if "idempotent" in said else None, destructive)


def effects_said(func: Callable[..., Any], name: str) -> Effects:
    """What ``func`` says of its effects (its ``@tool`` mark, its ``Effects:`` line); ``UNKNOWN``
    when it says nothing. ``ToolDefinitionError`` names the tool when what it says contradicts
    itself, or when the mark and the line say different things."""
    marked = getattr(func, EFFECTS_ATTRIBUTE, None)
    by_mark = _effects(name, "@tool(...)", **marked) if isinstance(marked, dict) else None
    lines = _LINE.findall(func.__doc__ or "")
    if len(lines) > 1:
        raise ToolDefinitionError(f"tool {name!r}: its docstring has {len(lines)} 'Effects:' lines; keep one")
    by_line = _from_line(name, lines[0]) if lines else None
    if by_mark is not None and by_line is not None and by_mark.label != by_line.label:
        raise ToolDefinitionError(f"tool {name!r}: @tool(...) says {by_mark.label!r} but its docstring line says "
                                  f"{by_line.label!r}: keep one")
    return by_mark or by_line or UNKNOWN


def without_effects_line(doc: str | None) -> str | None:
    """``doc`` without its ``Effects:`` line: the line is for the studio, not the tool's description."""
    return _LINE.sub("", doc) if doc else doc

"""Controls drawn for what the signed-in person may do: one disabled with a help text naming the
role it needs, rather than a refusal after the click.

Only the drawing: the use cases behind every control still check the role (``workbench._roles``
and ``core.access.require``), which is the boundary; a page that forgets ``role_gate`` still
refuses, it just says so later.
"""

from __future__ import annotations

from typing import Any

from core import Role

from ._state import actor

__all__ = ["lacks", "role_gate", "role_note"]


def lacks(role: Role) -> bool:
    """True when the session's actor does not hold ``role``."""
    return not actor().can(role)


def role_note(role: Role, doing: str) -> str | None:
    """Why ``doing`` is not for the session's actor ("needs the approver role; you are a
    reviewer"), or None when they hold ``role``."""
    if not lacks(role):
        return None
    who = actor()
    return f"Needs the {role.name} role (to {doing}); you, {who.label}, are a {who.role.name}."


def role_gate(role: Role, doing: str, *, disabled: bool = False, help: str | None = None) -> dict[str, Any]:
    """The ``disabled`` and ``help`` of a widget that ``doing`` needs ``role`` for: disabled with
    the role named unless the session's actor holds it, else as the page asked (``disabled``,
    ``help``). Spread into the widget: ``st.button("Save", **role_gate(Role.reviewer, "save"))``."""
    note = role_note(role, doing)
    if note is None:
        return {"disabled": disabled, "help": help}
    return {"disabled": True, "help": note}

"""The built-in tool groups, given through the same hook as a third party's (``core.hooks``).

Installed, this module is the ``builtin_tools`` entry point of the ``plan_studio`` group;
``tools`` also registers it, so a source checkout has its tools before it is installed. Its
groups are asked first (``tryfirst``), so an installed group cannot take a built-in's name.
"""

from __future__ import annotations

from core import ToolWords
from core.hooks import hookimpl

BUILTIN_GROUPS = {
    "waste": "tools.waste:register",
    "lists": "tools.lists:register",
    "writer": "tools.writer:register",
    "conversation": "tools.conversation:register",
}


@hookimpl(tryfirst=True)
def tool_groups() -> dict[str, str]:
    return dict(BUILTIN_GROUPS)


@hookimpl
def tool_words() -> dict[str, ToolWords]:
    from .waste._words import WASTE_WORDS  # here: the group's modules load with the group, not with ``tools``

    return {"waste": WASTE_WORDS}

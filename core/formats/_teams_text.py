"""Teams AI plans that are not a bare plan JSON: a plan object inside a model's prose (the first
one wins, as Teams AI takes the first object that is a plan), and the older text syntax

    DO addItem list="groceries" item=milk THEN SAY Milk is on your list.

which is read into the same commands as the JSON (``{"type": "DO", "action", "parameters"}``,
``{"type": "SAY", "response"}``). Text before the first command is said, as Teams does.
Both scans are linear in the text, whatever it holds.
"""

from __future__ import annotations

import re
from typing import Any

from .._errors import PlanFormatError
from ._base import parse_json

__all__ = ["first_plan_object", "text_commands", "has_text_commands"]

FORMAT = "teams"
# A command starts at DO or SAY (upper case, as Teams writes them), after THEN or not.
_COMMAND = re.compile(r"(?:(?<=\s)|^)(?:THEN\s++)?(DO|SAY)(?=\s|$)")
_ACTION = re.compile(r"\s*+([^\s=\"'`]++)")
_ENTITY = re.compile(r"\s*+([A-Za-z_][\w.\-]*+)=(?:```(.*?)```|\"([^\"]*+)\"|'([^']*+)'|`([^`]*+)`|(\S*+))", re.S)


def _objects(text: str) -> list[tuple[int, int]]:
    """(start, end) of each top-level ``{...}`` in ``text``, strings respected; one pass."""
    spans, depth, start, in_string, escaped = [], 0, 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"' and depth:
            in_string = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


def first_plan_object(text: str) -> Any | None:
    """The first JSON object in ``text`` that is a plan (has ``commands``, or type ``plan``)."""
    for start, end in _objects(text):
        try:
            data = parse_json(text[start:end])
        except ValueError:
            continue
        if isinstance(data, dict) and ("commands" in data or data.get("type") == "plan"):
            return data
    return None


def has_text_commands(text: str) -> bool:
    return _COMMAND.search(text) is not None


def text_commands(text: str) -> list[dict[str, Any]]:
    """The commands of a plan in the text syntax; errors name the command."""
    marks = list(_COMMAND.finditer(text))
    commands: list[dict[str, Any]] = []
    lead = text[:marks[0].start()].strip() if marks else text.strip()
    if lead:
        commands.append({"type": "SAY", "response": lead})
    for k, mark in enumerate(marks):
        body = text[mark.end():marks[k + 1].start() if k + 1 < len(marks) else len(text)]
        where = f"command {len(commands) + 1} ({mark.group(1)})"
        if mark.group(1) == "SAY":
            commands.append({"type": "SAY", "response": body.strip()})
            continue
        action = _ACTION.match(body)
        if action is None:
            raise PlanFormatError(FORMAT, f"{where}: DO needs an action name")
        params: dict[str, str] = {}
        pos = action.end()
        while body[pos:].strip():
            entity = _ENTITY.match(body, pos)
            if entity is None:
                shown = body[pos:].strip()[:40]
                raise PlanFormatError(FORMAT, f"{where}: {shown!r} is not name=value")
            name = entity.group(1)
            value = next(v for v in entity.groups()[1:] if v is not None)
            params[name] = value
            pos = entity.end()
        commands.append({"type": "DO", "action": action.group(1), "parameters": params})
    return commands

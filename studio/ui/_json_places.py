"""Where things are in the Plan JSON text: the line and column of a step's field, and the step
and field a line and column fall in. The code editor marks a problem's line with them, and an
error names both (a line to go to, a step and field to read).

JSON strings never span lines, so one scan with a regex over the text finds every key and
value; the text need not parse (a half-typed plan still has places up to where it breaks).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

__all__ = ["Places", "field_path", "json_places", "line_column", "where_said"]

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*+"|[{}\[\]:,]|[^\s{}\[\]:,"]++')
# "at line 3, column 7" (the json module) or "line 3, column 7:" (core's own messages).
_AT = re.compile(r"line (\d+),? column (\d+)")
_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


@dataclass(frozen=True)
class Places:
    """The offset where each path's value starts (its key, for an object's member), in text
    order; paths are tuples of text (``("steps", "2", "params", "city")``)."""

    text: str
    at: dict[tuple[str, ...], int]

    def find(self, path: tuple[str, ...]) -> tuple[int, int] | None:
        """(line, column), both from 1, of ``path`` or of the nearest enclosing path there is."""
        for n in range(len(path), 0, -1):
            offset = self.at.get(path[:n])
            if offset is not None:
                return line_column(self.text, offset)
        return None

    def path_at(self, line: int, column: int) -> tuple[str, ...]:
        """The path of the last key or value that starts at or before (line, column)."""
        lines = self.text.split("\n")
        offset = sum(len(t) + 1 for t in lines[:line - 1]) + column - 1
        best: tuple[str, ...] = ()
        for path, at in self.at.items():
            if at > offset:
                break
            best = path
        return best


def line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def json_places(text: str) -> Places:
    """Every key's and value's start in ``text`` (see ``Places``)."""
    at: dict[tuple[str, ...], int] = {}
    # Open containers: [is an object, its path, the key or index now, where that key starts]
    stack: list[list] = []
    for m in _TOKEN.finditer(text):
        token, start = m.group(), m.start()
        if token == ":":
            continue
        if token == ",":
            if stack:
                top = stack[-1]
                if top[0]:
                    top[2] = None  # an object: a key comes next
                else:
                    top[2] += 1
            continue
        if token in "}]":
            if stack:
                stack.pop()
            continue
        if stack and stack[-1][0] and stack[-1][2] is None:  # an object's key
            try:
                key = json.loads(token) if token.startswith('"') else token
            except ValueError:
                key = token.strip('"')
            stack[-1][2], stack[-1][3] = str(key), start
            continue
        if stack:
            top = stack[-1]
            path = (*top[1], str(top[2]))
            where = top[3] if top[0] else start
        else:
            path, where = (), start
        at.setdefault(path, where)
        if token == "{":
            stack.append([True, path, None, start])
        elif token == "[":
            stack.append([False, path, 0, start])
    return Places(text, at)


def field_path(step_index: int | None, field: str) -> tuple[str, ...]:
    """A problem's place as a path: ``(1, "params.ids[0]")`` → ``("steps", "1", "params", "ids", "0")``;
    a message's own ``steps.0.tool`` (pydantic's) when there is no step index."""
    parts = tuple(a or b for a, b in _PART.findall(field))
    return parts if step_index is None else ("steps", str(step_index), *parts)


def where_said(message: str) -> tuple[int, int] | None:
    """The (line, column) an error message names, if it names one."""
    m = _AT.search(message)
    return (int(m.group(1)), int(m.group(2))) if m else None


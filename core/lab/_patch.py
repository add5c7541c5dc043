"""An edited description as a change to the tool's own source, for the user to apply.

A Python tool: a unified diff of the file that defines it, its docstring rewritten (the summary
replaced by the new description, each edited parameter's ``Args:`` entry by its new words); the
file is found through ``inspect`` and never written. A tool from an MCP server or an agent has
no file here: its definition as MCP lists it, with the new words. Either is offered for
download; nothing is applied.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import json
import os
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ..tooling._registry import Tool
from ..tooling._overrides import ToolOverride

__all__ = ["Patch", "export_patch"]

_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Return|Yields|Raises|Examples?|Notes?|Attributes|"
                      r"See Also|Warnings?|Todo)\s*:\s*$")


@dataclass(frozen=True)
class Patch:
    filename: str  # a name to download it as
    text: str
    media_type: str


def export_patch(tool: Tool, override: ToolOverride) -> Patch:
    """``override`` of ``tool`` as a patch for its source (see the module's docstring)."""
    func = getattr(tool.runner, "func", None)
    if tool.kind == "python" and func is not None:
        diff = _docstring_diff(func, override)
        if diff is not None:
            return Patch(f"{tool.name}.patch", diff, "text/x-diff")
    definition = tool.definition.with_descriptions(override.description, dict(override.params) or None)
    return Patch(f"{tool.name}.json", json.dumps(definition.as_json(), indent=2, ensure_ascii=False) + "\n",
                 "application/json")


def _docstring_diff(func: object, override: ToolOverride) -> str | None:
    try:
        path = inspect.getsourcefile(func)  # type: ignore[arg-type]
        lines, first = inspect.getsourcelines(func)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return None
    if path is None:
        return None
    node = ast.parse(textwrap.dedent("".join(lines))).body[0]
    body = getattr(node, "body", [])
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        return None
    literal = body[0]
    start, end = first - 1 + literal.lineno - 1, first - 1 + (literal.end_lineno or literal.lineno)
    file_lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    indent = re.match(r"\s*", file_lines[start]).group()  # type: ignore[union-attr]
    doc = _rewritten(inspect.cleandoc(literal.value.value), override)
    new = [f'{indent}"""{doc[0]}\n', *((f"{indent}{line}" if line else "") + "\n" for line in doc[1:])]
    new = [new[0].rstrip("\n") + '"""\n'] if len(doc) == 1 else [*new, f'{indent}"""\n']
    changed = [*file_lines[:start], *new, *file_lines[end:]]
    name = _shown_path(path)
    return "".join(difflib.unified_diff(file_lines, changed, fromfile=f"a/{name}", tofile=f"b/{name}"))


def _rewritten(doc: str, override: ToolOverride) -> list[str]:
    lines = doc.splitlines()
    section = next((n for n, line in enumerate(lines) if _SECTION.match(line.strip()) and not line.startswith(" ")),
                   len(lines))
    head, rest = lines[:section], lines[section:]
    if override.description is not None:
        head = [*_literal(override.description.strip()).splitlines(), *([""] if rest else [])]
    params = {name: _literal(text) for name, text in override.params.items()}
    out: list[str] = []
    in_args, skipping, entry_indent = False, False, 0
    for line in rest:
        stripped = line.strip()
        if _SECTION.match(stripped) and not line.startswith(" "):
            in_args = stripped.rstrip(":").strip() in ("Args", "Arguments", "Parameters")
            skipping = False
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip())
        if skipping and (not stripped or indent > entry_indent):
            if not stripped:
                skipping = False
                out.append(line)
            continue
        skipping = False
        entry = re.match(r"\**(\w+)\s*(\([^)]*\))?\s*:", stripped) if in_args else None
        if entry and entry.group(1) in params:
            text = params.pop(entry.group(1))
            out.append(" " * indent + f"{entry.group(1)}{(' ' + entry.group(2)) if entry.group(2) else ''}: "
                       + " ".join(text.split()))
            skipping, entry_indent = True, indent
            continue
        out.append(line)
    return head + out


def _literal(text: str) -> str:
    """``text`` as it must be written inside a triple-quoted string to read back as itself."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _shown_path(path: str) -> str:
    try:
        return Path(os.path.relpath(path)).as_posix() if not os.path.relpath(path).startswith("..") else path
    except ValueError:  # another drive
        return path

"""Which edited tool words the manual can take: a description edit is refused, naming the tool
and the field, when it is empty, longer than ``core._limits`` allows, holds a lone surrogate
(no file or request can carry it), or has a line starting ``###`` (the manual's heading for a
tool: the model would read a second tool there)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from .._errors import DescriptionRefused
from .._limits import MAX_PARAM_DESCRIPTION, MAX_TOOL_DESCRIPTION, lone_surrogate
from ..tooling._registry import ToolRegistry
from ..tooling._overrides import ToolOverride

__all__ = ["EditProblem", "check_overrides", "ensure_overrides"]

_HEADING = re.compile(r"^\s*###", re.MULTILINE)


@dataclass(frozen=True)
class EditProblem:
    tool: str
    field: str  # "description", "params.<name>", or "tool" (no such tool)
    message: str

    def __str__(self) -> str:
        return f"{self.tool} {self.field} {self.message}"


def _text_problem(text: str, bound: int) -> str | None:
    if not text.strip():
        return "is empty; a model reads nothing there (Reset keeps the tool's own words)"
    if len(text) > bound:
        return f"is {len(text):,} characters long, more than the {bound:,} the manual takes"
    if lone_surrogate(text) is not None:
        return "holds a lone surrogate, which no file or request can carry"
    if _HEADING.search(text):
        return "has a line starting ###, which the manual reads as another tool's heading"
    return None


def check_overrides(registry: ToolRegistry, overrides: Mapping[str, ToolOverride]) -> list[EditProblem]:
    """Every problem with ``overrides`` against ``registry``'s tools, in order."""
    problems: list[EditProblem] = []
    for name, override in overrides.items():
        if name not in registry:
            problems.append(EditProblem(name, "tool", "no such tool"))
            continue
        if override.description is not None:
            said = _text_problem(override.description, MAX_TOOL_DESCRIPTION)
            if said:
                problems.append(EditProblem(name, "description", said))
        known = registry.get(name).param_names
        for param, text in override.params.items():
            said = "no such parameter" if param not in known else _text_problem(text, MAX_PARAM_DESCRIPTION)
            if said:
                problems.append(EditProblem(name, f"params.{param}", said))
    return problems


def ensure_overrides(registry: ToolRegistry, overrides: Mapping[str, ToolOverride]) -> None:
    """Raise ``DescriptionRefused`` when ``check_overrides`` finds anything."""
    problems = check_overrides(registry, overrides)
    if problems:
        raise DescriptionRefused(problems)

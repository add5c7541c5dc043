"""What every plan format provides: a name, and text → ``Plan`` and/or ``Plan`` → text."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from .._errors import PlanFormatError
from .._plan import Plan
from .._registry import ToolRegistry

Loader = Callable[[str, "ToolRegistry | None"], Plan]
Dumper = Callable[[Plan, "ToolRegistry | None"], str]


@dataclass(frozen=True)
class PlanFormat:
    name: str
    label: str
    suffix: str
    load: Loader | None = None  # None: export only
    dump: Dumper | None = None  # None: import only


def load_json(fmt: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanFormatError(fmt, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from exc

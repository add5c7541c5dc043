"""Plan Studio's own JSON: the ``Plan`` model as it is, step ids and notes included."""

from __future__ import annotations

from pydantic import ValidationError

from .._errors import PlanFormatError
from .._plan import Plan
from .._registry import ToolRegistry
from ._base import load_json


def load_native(text: str, registry: ToolRegistry | None = None) -> Plan:
    data = load_json("native", text)
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "plan"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise PlanFormatError("native", f"{where}: {first['msg']}{more}") from exc


def dump_native(plan: Plan, registry: ToolRegistry | None = None) -> str:
    return plan.model_dump_json(indent=2)

"""Plan Studio's own JSON: the ``Plan`` model as it is, step ids and notes included."""

from __future__ import annotations

import json

from pydantic import ValidationError

from .._errors import PlanFormatError
from ..plan._model import Plan, Step
from ..tooling._registry import ToolRegistry
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


# Written only when set: people read and edit this JSON, and most steps use none of them.
_OPTIONAL_STEP_FIELDS = ("note", "locked", "ask_first", "result_key", "format_data")


def dump_native(plan: Plan, registry: ToolRegistry | None = None) -> str:
    data = plan.model_dump(mode="json")
    for step, raw in zip(plan.steps, data["steps"]):
        for name in _OPTIONAL_STEP_FIELDS:
            if getattr(step, name) == Step.model_fields[name].get_default(call_default_factory=True):
                del raw[name]
    return json.dumps(data, indent=2, ensure_ascii=False)

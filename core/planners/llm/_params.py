"""The params of a model's raw seed steps, walked with their tools' schemas: what the studio
checks and fixes in a reply before reading it as a plan (``_llm_dates``, ``_llm_unsaid``)."""

from __future__ import annotations

import re
from typing import Any, Iterator

from ...tooling._registry import Tool, ToolRegistry, schema_alternatives

__all__ = ["ID_PARAM", "step_params", "takes_a_date"]

# A param that takes ids (``id``, ``ids``, ``..._id(s)``): they come from an earlier step's
# output or from the user's words, never from the model's head.
ID_PARAM = re.compile(r"(?:^|_)ids?$", re.IGNORECASE)


def step_params(steps: list[Any], registry: ToolRegistry) -> Iterator[tuple[int, dict[str, Any], Tool, str,
                                                                             dict[str, Any], dict[str, Any]]]:
    """(step number, raw step, tool, param name, param schema, the tool's ``$defs``) for each
    param the step's tool declares, in the steps of known tools whose params are an object.
    The raw step's params may be changed while walking (a param removed or set)."""
    for n, raw in enumerate(steps):
        if not isinstance(raw, dict) or raw.get("tool") not in registry or not isinstance(raw.get("params"), dict):
            continue
        tool = registry.get(raw["tool"])
        defs = tool.parameters.get("$defs", {})
        for name, schema in list((tool.parameters.get("properties") or {}).items()):
            yield n, raw, tool, name, schema, defs


def takes_a_date(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> bool:
    """Whether a param (or an output) of ``schema`` is a date, in any of its alternatives;
    ``defs``: the tool's ``$defs`` (default: the schema's own)."""
    return any(o.get("format") == "date"
               for o in schema_alternatives(schema, schema.get("$defs", {}) if defs is None else defs))

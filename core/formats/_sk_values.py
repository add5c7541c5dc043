"""Param values in Semantic Kernel attributes: an attribute is text, so a non-string value is
written as JSON and decoded on import, with the tool's parameter schema (when known)
deciding when text that looks like JSON is really a string (``location="100"``)."""

from __future__ import annotations

import json
from typing import Any, Callable

from .._limits import MAX_NESTING, value_problem
from ..validation._schema_fit import json_type
from ._base import parse_json

__all__ = ["allowed_types", "attribute_value", "decode_value", "walk_strings"]


def allowed_types(schema: dict[str, Any], defs: dict[str, Any]) -> set[str] | None:
    """JSON types a param schema accepts; ``None`` when it accepts anything."""
    if "$ref" in schema:
        return allowed_types(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            found: set[str] = set()
            for option in schema[key]:
                sub = allowed_types(option, defs)
                if sub is None:
                    return None
                found |= sub
            return found
    kind = schema.get("type")
    if kind is None:
        if "enum" in schema:
            return {json_type(v) for v in schema["enum"]}
        return None
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if "number" in kinds:
        kinds.add("integer")
    return kinds


def decode_value(raw: str, allowed: set[str] | None) -> Any:
    """An attribute value as the param value: JSON lists, objects, numbers and booleans are
    decoded, strings stay strings; ``allowed`` (from the tool's schema) settles doubts. Text
    that is not JSON a plan could hold (NaN, a huge integer, deep nesting) stays text."""
    try:
        value = parse_json(raw, max_depth=MAX_NESTING)
    except ValueError:
        return raw
    if value_problem(value) is not None:  # 1e999 reads as infinity
        return raw
    kind = json_type(value)
    if kind == "string":
        return raw
    if kind == "null":
        return None if allowed is not None and "null" in allowed and "string" not in allowed else raw
    if allowed is not None and kind not in allowed and "string" in allowed:
        return raw
    return value


def attribute_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def walk_strings(value: Any, fn: Callable[[str], Any]) -> Any:
    """``value`` with ``fn`` applied to every string in it, however deep."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [walk_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: walk_strings(v, fn) for k, v in value.items()}
    return value

"""Whether a param value holding references can fit the param, judged before anything runs.

A reference is never evaluated here; its value is known only by the JSON schema that its
path yields from the source tool's return schema (``schema_at_path``). So the rule is:

- A param whose whole value is one reference gets the value at that path: the schema at
  the path (a ``*`` makes it a list of what the rest of the path yields per item).
- A reference inside longer text is interpolated, so the value is a string.
- A list or object holding references is checked part by part; the literal parts as the
  values they are (type, enum, bounds, pattern).
- The value is reported only when nothing it can be fits the param: ``str | None`` into a
  ``str`` param may fit (run time checks the value). Types must match as JSON types, with
  an integer fitting a number; enums must share a value; lists are checked item by item.
- Where either schema is unknown or untyped (a tool without a return type, ``Any``), the
  value is accepted: no report without a schema that rules the value out.
"""

from __future__ import annotations

from typing import Any, Callable

from ..tooling._registry import describe_schema, schema_alternatives
from .._errors import PatternNotChecked
from ..schema._bounded_regex import pattern_search
from .._errors import ReferenceSyntaxError
from ..plan._references import Reference, find_references, parse_reference

__all__ = ["value_schema", "may_fit", "describe_value", "json_type"]

INTERPOLATED = {"type": "string", "x-interpolated": True}


def value_schema(value: Any, schema_of: Callable[[Reference], dict]) -> dict:
    """The schema of what ``value`` becomes once its references are filled in;
    ``schema_of`` gives a reference's schema (``{}`` when unknown)."""
    if isinstance(value, str):
        refs = find_references(value)
        if not refs:
            return {"const": value}
        if len(refs) == 1:
            try:
                return schema_of(parse_reference(value))
            except ReferenceSyntaxError:  # not a whole-value reference: text around it
                pass
        return INTERPOLATED
    if isinstance(value, list):
        return {"type": "array", "prefixItems": [value_schema(v, schema_of) for v in value]}
    if isinstance(value, dict):
        return {"type": "object", "properties": {k: value_schema(v, schema_of) for k, v in value.items()}}
    return {"const": value}


def may_fit(value: dict, param: dict, value_defs: dict | None = None, param_defs: dict | None = None) -> bool:
    """Whether some value of schema ``value`` can be a valid value of schema ``param``."""
    value_defs = value.get("$defs", value_defs or {})
    param_defs = param.get("$defs", param_defs or {})
    values = schema_alternatives(value, value_defs)
    params = schema_alternatives(param, param_defs)
    if any(_unknown(o) for o in values) or any(_unknown(o) for o in params):
        return True
    return any(_one_fits(v, p, value_defs, param_defs) for v in values for p in params)


def describe_value(value: dict, defs: dict | None = None) -> str:
    if value is INTERPOLATED:
        return "text (a reference inside longer text is filled in as text)"
    if "const" in value:
        return repr(value["const"])
    return describe_schema(value, defs or {})


def _unknown(option: dict) -> bool:
    return not any(k in option for k in ("type", "enum", "const", "properties", "items", "prefixItems"))


def json_type(value: Any) -> str:
    """The JSON type name of a JSON-ready Python value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


def _types(option: dict) -> set[str]:
    if "const" in option:
        return {json_type(option["const"])}
    kind = option.get("type")
    if kind is not None:
        return set(kind) if isinstance(kind, list) else {kind}
    if "enum" in option:
        return {json_type(v) for v in option["enum"]}
    return {"object"} if "properties" in option else {"array"}


def _one_fits(value: dict, param: dict, value_defs: dict, param_defs: dict) -> bool:
    if "const" in value:
        return _literal_fits(value["const"], param, param_defs)
    have, want = _types(value), _types(param)
    if "number" in want:
        want = want | {"integer"}
    common = have & want
    if not common:
        return False
    if "enum" in value and "enum" in param and not set(map(repr, value["enum"])) & set(map(repr, param["enum"])):
        return False
    if common == {"array"}:
        items = param.get("items") or {}
        if "prefixItems" in value:
            return all(may_fit(v, items, value_defs, param_defs) for v in value["prefixItems"])
        return may_fit(value.get("items") or {}, items, value_defs, param_defs)
    return True


def _literal_fits(literal: Any, param: dict, defs: dict) -> bool:
    kind = json_type(literal)
    want = _types(param)
    if kind not in want and not (kind == "integer" and "number" in want):
        return False
    if "enum" in param and literal not in param["enum"]:
        return False
    if "const" in param and literal != param["const"]:
        return False
    if kind in ("integer", "number"):
        for key, ok in (("minimum", lambda b: literal >= b), ("maximum", lambda b: literal <= b),
                        ("exclusiveMinimum", lambda b: literal > b), ("exclusiveMaximum", lambda b: literal < b)):
            if key in param and not ok(param[key]):
                return False
    if kind == "string":
        if len(literal) < param.get("minLength", 0) or len(literal) > param.get("maxLength", len(literal)):
            return False
        if "pattern" in param and not _may_match(param["pattern"], literal):
            return False
    return True


def _may_match(pattern: Any, literal: str) -> bool:
    """Whether ``literal`` matches; a pattern that cannot be checked in bounded time rules
    nothing out here (the argument check reports it)."""
    try:
        return not isinstance(pattern, str) or pattern_search(pattern, literal)
    except PatternNotChecked:
        return True

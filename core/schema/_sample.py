"""A small value that fits a JSON schema: the stand-in result of a rehearsal step whose tool
declares an output schema and has nothing recorded or pinned (``core.run._rehearsal``).

The schema comes from a tool (an MCP server's, maybe), so it is read as untrusted: ``$ref`` only
to the schema's own ``$defs``/``definitions``, nesting bounded, arrays of one item, no pattern
ever matched. What it cannot honour (a ``pattern``, a ``not``) gives a plain value anyway: the
argument check of the next step says what does not fit, as it would in a real run.

    sample_of({"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}, "required": ["n"]})
    # {"n": 3}
"""

from __future__ import annotations

from typing import Any

__all__ = ["sample_of"]

_DEEPEST = 12  # schema levels followed; past them a value is null
_PLAIN: dict[str, Any] = {"string": "example", "integer": 0, "number": 0, "boolean": False, "null": None,
                          "array": [], "object": {}}


def sample_of(schema: Any) -> Any:
    """A value fitting ``schema`` as far as a plain one can (see the module's docstring)."""
    if not isinstance(schema, dict):
        return None
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            defs.update(schema[key])
    return _sample(schema, defs, 0)


def _sample(schema: Any, defs: dict[str, Any], depth: int) -> Any:
    if not isinstance(schema, dict) or depth > _DEEPEST:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        return _sample(defs.get(name), defs, depth + 1) if ref.startswith("#/") else None
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    for key in ("examples", "enum"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key) or [] if isinstance(o, dict) and o.get("type") != "null"]
        if options:
            return _sample(options[0], defs, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else None
    if kind == "object":
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        return {name: _sample(sub, defs, depth + 1) for name, sub in properties.items()}
    if kind == "array":
        least = schema.get("minItems") if isinstance(schema.get("minItems"), int) else 0
        items = schema.get("items")
        return [_sample(items, defs, depth + 1) for _ in range(max(1, min(least, 3)))] if isinstance(items, dict) else []
    if kind in ("integer", "number"):
        for bound in ("minimum", "exclusiveMinimum"):
            if isinstance(schema.get(bound), (int, float)) and not isinstance(schema.get(bound), bool):
                value = schema[bound] + (1 if bound == "exclusiveMinimum" else 0)
                return int(value) if kind == "integer" else value
        return 0
    if kind == "string":
        least = schema.get("minLength") if isinstance(schema.get("minLength"), int) else 0
        return "example" if least <= 7 else "x" * min(least, 1000)
    return _PLAIN.get(kind) if isinstance(kind, str) else None

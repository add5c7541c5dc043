"""A JSON schema said in words, for the manual, the Tools page and the argument check.

``schema_alternatives`` flattens ``$ref``/``anyOf``/``oneOf``; ``describe_schema`` says what
values a schema takes ("a string or a list of strings"); ``describe_bounds`` its bounds ("at
least 1", "not blank"). ``NonBlank`` is the type hint for text that must not be blank.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

__all__ = ["NON_BLANK", "NonBlank", "schema_alternatives", "describe_schema", "describe_bounds"]

# A string with at least one character that is not white space. ``NonBlank`` is the type
# hint for tool params that refuse blank text; the schema carries the pattern, so the
# validator reports a blank value before the tool runs.
NON_BLANK = r"\S"
NonBlank = Annotated[str, Field(pattern=NON_BLANK)]


def schema_alternatives(schema: dict[str, Any], defs: dict[str, Any],
                        _seen: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """The schemas a value may have: ``$ref``, ``anyOf`` and ``oneOf`` flattened (``defs`` is
    the top schema's ``$defs``). Shared by everything that explains a schema to a reader. A
    ``$ref`` met again on the way (a schema from outside may loop) is any value."""
    if "$ref" in schema:
        ref = str(schema["$ref"])
        if ref in _seen:
            return [{}]
        return schema_alternatives(defs.get(ref.rsplit("/", 1)[-1], {}), defs, _seen | {ref})
    for key in ("anyOf", "oneOf"):
        if key in schema and isinstance(schema[key], list):
            return [o for sub in schema[key] if isinstance(sub, dict) for o in schema_alternatives(sub, defs, _seen)]
    return [schema]


_ARTICLE = {"string": "a string", "integer": "an integer", "number": "a number",
            "boolean": "true or false", "null": "null", "object": "an object", "array": "a list"}
_PLURAL = {"string": "strings", "integer": "integers", "number": "numbers",
           "boolean": "booleans", "null": "nulls", "object": "objects", "array": "lists"}


def describe_schema(schema: dict[str, Any], defs: dict[str, Any], plural: bool = False) -> str:
    """What a schema's values are, in words: "a string or a list of strings". Only types
    (and enums); bounds are described where a schema is shown whole."""
    defs = schema.get("$defs", defs)
    parts: list[str] = []
    options = schema_alternatives(schema, defs)
    # "or null" says nothing a reader needs: a nullable param is optional, and is shown so.
    options = [o for o in options if o.get("type") != "null"] or options
    for option in options:
        if "enum" in option or "const" in option:
            values = option.get("enum", [option.get("const")])
            text = "one of " + ", ".join(repr(v) for v in values)
        else:
            kind = option.get("type") or ("object" if "properties" in option else None)
            kinds = kind if isinstance(kind, list) else [kind]
            words = []
            for k in kinds:
                if k is None:
                    words.append("values" if plural else "any value")
                elif k == "array" and option.get("items"):
                    inner = describe_schema(option["items"], defs, plural=True)
                    words.append(f"{'lists' if plural else 'a list'} of {inner}")
                elif k == "string" and option.get("format") in ("date", "date-time"):
                    words.append(f"{option['format']}{'s' if plural else ''} (ISO text)")
                else:
                    words.append((_PLURAL if plural else _ARTICLE).get(k, str(k)))
            text = " or ".join(words)
        if text not in parts:
            parts.append(text)
    return " or ".join(parts)


_LIMITS = (("minimum", "at least {}"), ("exclusiveMinimum", "more than {}"),
           ("maximum", "at most {}"), ("exclusiveMaximum", "less than {}"),
           ("minLength", "at least {} characters"), ("maxLength", "at most {} characters"),
           ("minItems", "at least {} items"), ("maxItems", "at most {} items"))


def describe_bounds(schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    """A schema's bounds in words ("at least 1", "not blank"), for the manual and the Tools page."""
    out: list[str] = []
    for option in schema_alternatives(schema, defs):
        words = [text.format(option[key]) for key, text in _LIMITS if key in option]
        if "pattern" in option:
            words.append("not blank" if option["pattern"] == NON_BLANK else f"matching {option['pattern']}")
        out += [w for w in words if w not in out]
    return out

"""The one check of a step's arguments against a tool's input schema, for every kind of tool.

jsonschema does the checking, through ``core.schema._untrusted.bounded_validator``: patterns
run on the bounded matcher (``core.schema._bounded_regex``), the whole check within a time budget, so
no schema (an agent's, an MCP server's, a Python tool's own) can make it slow. Its errors are
then said in the reviewer's words, one line per field, named by the field's path:

    must be a whole number, not the text '10'          (type)
    'huge' is not one of the allowed values: 'a' or 'b' (enum)
    must be at least 1 (got 0)                          (minimum)
    must not be blank (got '  ')                        (NonBlank's pattern)
    required parameter is missing                       (required, named by the missing field)
    is not a parameter of this tool; did you mean 'limit'?

A Python tool is checked strictly, as pydantic runs it: ``2.0`` is not an integer and a
``format: date`` value must be an ISO date. Only the listed parameters are taken, except for an
agent's tool whose schema leaves other names open (the agent runs it, not the studio).
"""

from __future__ import annotations

import datetime as dt
import difflib
import threading
from collections import OrderedDict
from typing import Any, Sequence

from jsonschema import FormatChecker, ValidationError
from pydantic_core import PydanticSerializationError, to_json, to_jsonable_python

from .._limits import shown
from ..schema._words import NON_BLANK, describe_schema, schema_alternatives
from ._definition import ToolDefinition
from ..schema._untrusted import bounded_validator, check_against

__all__ = ["ArgumentCheck", "argument_problems", "argument_validator", "unknown_parameter", "field_text"]

_TYPE_WORDS = {"integer": "a whole number", "boolean": "true or false", "number": "a number",
               "string": "text", "array": "a list", "object": "an object", "null": "null"}
_BOUNDS = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than",
           "exclusiveMaximum": "less than"}
_LENGTHS = {"minLength": ("at least", "character"), "maxLength": ("at most", "character"),
            "minItems": ("at least", "item"), "maxItems": ("at most", "item")}
# When one field breaks several keywords, the one that tells the reader most is said.
_RANK = {"required": 0, "enum": 1, "const": 1, "anyOf": 2, "oneOf": 2, "type": 3}


def _iso_date(value: object) -> bool:
    if not isinstance(value, str):
        return True  # the type keyword says so
    if len(value) != 10:
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _iso_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


# Dates as the Python tools take them (pydantic's strict JSON mode): ISO text.
_STRICT_FORMATS = FormatChecker(formats=())
_STRICT_FORMATS.checks("date")(_iso_date)
_STRICT_FORMATS.checks("date-time")(_iso_datetime)
_FORMAT_WORDS = {"date": "a date as ISO text (YYYY-MM-DD)", "date-time": "a date and time as ISO text"}


def argument_validator(definition: ToolDefinition) -> Any:
    """The validator for ``definition``'s input schema (built once per definition)."""
    strict = definition.kind == "python"
    return bounded_validator(definition.input_schema, strict=strict,
                             format_checker=_STRICT_FORMATS if strict else None)


class ArgumentCheck:
    """The check for one definition, remembering its recent answers: a page run validates the
    same plan again and again, and jsonschema walks a schema at some 50 us a step. Answers of
    checks cut short (they depend on time) and of long arguments are not kept."""

    _KEPT = 1024
    _LONGEST = 2048  # characters of arguments' JSON

    def __init__(self, definition: ToolDefinition) -> None:
        self.definition = definition
        self.validator = argument_validator(definition)
        self._answers: OrderedDict[tuple[str, frozenset[str]], list[tuple[str, str]]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, args: dict[str, Any], skip: set[str] | frozenset[str] = frozenset()) -> list[tuple[str, str]]:
        try:
            text = to_json(args).decode()
        except PydanticSerializationError:
            text = None
        key = None if text is None or len(text) > self._LONGEST else (text, frozenset(skip))
        if key is not None:
            with self._lock:  # sessions' script threads and runs share the tools
                kept = self._answers.get(key)
                if kept is not None:
                    self._answers.move_to_end(key)
                    return list(kept)
        problems = argument_problems(self.definition, self.validator, args, skip)
        if key is not None and not any(m.startswith("not checked") for _, m in problems):
            with self._lock:
                self._answers[key] = list(problems)
                if len(self._answers) > self._KEPT:
                    self._answers.popitem(last=False)
        return problems


def field_text(path: Sequence[Any]) -> str:
    """A path as the validator names fields: ``items[2].name``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def unknown_parameter(name: str, known: Sequence[str]) -> str:
    hit = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return "is not a parameter of this tool" + (f"; did you mean {hit[0]!r}?" if hit else "")


def _closed(definition: ToolDefinition) -> bool:
    """Whether names outside ``properties`` are refused. The studio's own and MCP tools take
    only the listed parameters (the manual says so), even where a schema leaves others open by
    omission; an agent's tool follows its schema."""
    schema = definition.input_schema
    default = True if definition.kind == "agent" else False
    return schema.get("additionalProperties", default) is False and "patternProperties" not in schema


def argument_problems(definition: ToolDefinition, validator: Any, args: dict[str, Any],
                      skip: set[str] | frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """Problems with ``args`` as (field, message), in the order of the tool's parameters. The
    values of fields in ``skip`` (those holding references) are checked where they are
    resolved; their names still must be parameters of this tool."""
    schema = definition.input_schema
    properties = list((schema.get("properties") or {}))
    closed = _closed(definition)
    problems: dict[str, tuple[int, str]] = {}  # field -> (rank, message)

    def add(field: str, message: str, rank: int = 9) -> None:
        if field not in problems or rank < problems[field][0]:
            problems[field] = (rank, message)

    if closed:
        for name in args:
            if name not in properties:
                add(name, unknown_parameter(name, properties), -1)
    instance = _as_json({k: v for k, v in args.items() if k not in skip})
    errors, cut_short = check_against(validator, instance)
    defs = schema.get("$defs", {})
    for error in errors:
        path = list(error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            # Named by the missing field, each on its own line (a reference's field is not missing).
            for name in error.validator_value:
                if name not in error.instance and not (not path and name in skip):
                    add(field_text([*path, name]), "required parameter is missing", 0)
        elif not path and error.validator == "additionalProperties" and closed:
            continue  # named above, one line per unknown name, with a "did you mean"
        else:
            field, message = _said(error, defs)
            add(field_text([*path, *field]) or "(arguments)", message, _RANK.get(str(error.validator), 9))
    if cut_short is not None:
        add(field_text(cut_short.path) or "(arguments)", cut_short.message, -2)
    order = {name: n for n, name in enumerate(properties)}

    def position(field: str) -> int:
        root = field.split(".")[0].split("[")[0]
        return order.get(root, len(order))
    return [(f, m) for f, (_, m) in sorted(problems.items(), key=lambda item: position(item[0]))]


def _as_json(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments as JSON would carry them: Python code may call a tool with a ``date``, which a
    plan holds as ISO text (pydantic writes it so before the tool runs)."""
    try:
        return to_jsonable_python(args)
    except PydanticSerializationError:
        return args  # the check says what is wrong with them


def _said(error: ValidationError, defs: dict[str, Any]) -> tuple[list[Any], str]:
    """One jsonschema error in the reviewer's words: (more path, message)."""
    kind, value, got = error.validator, error.validator_value, error.instance
    if kind in ("anyOf", "oneOf"):
        options = [o for o in schema_alternatives(error.schema, defs) if o.get("type") != "null"]
        inner = [e for e in (error.context or []) if e.schema.get("type") != "null"]
        if len(options) == 1 and inner:
            # A nullable value (``int | None``): said as the one type it may have.
            best = min(inner, key=lambda e: _RANK.get(str(e.validator), 9))
            more, message = _said(best, defs)
            return [*best.relative_path, *more], message
        return [], f"must be {describe_schema(error.schema, defs)} (got {shown(repr(got))})"
    if kind == "type":
        kinds = value if isinstance(value, list) else [value]
        wanted = " or ".join(_TYPE_WORDS.get(k, str(k)) for k in kinds)
        if isinstance(got, str) and "string" not in kinds:
            return [], f"must be {wanted}, not the text {shown(repr(got))}"
        return [], f"must be {wanted} (got {shown(repr(got))})"
    if kind == "enum":
        return [], f"{shown(repr(got))} is not one of the allowed values: {_choices(value)}"
    if kind == "const":
        return [], f"must be {value!r} (got {shown(repr(got))})"
    if kind in _BOUNDS:
        return [], f"must be {_BOUNDS[kind]} {value} (got {shown(repr(got))})"
    if kind in _LENGTHS:
        words, unit = _LENGTHS[kind]
        return [], f"must have {words} {value} {unit}{'s' if value != 1 else ''} (got {shown(repr(got))})"
    if kind == "pattern" and value == NON_BLANK:
        return [], f"must not be blank (got {shown(repr(got))})"
    if kind == "format" and value in _FORMAT_WORDS:
        return [], f"must be {_FORMAT_WORDS[value]} (got {shown(repr(got))})"
    return [], error.message


def _choices(values: Sequence[Any]) -> str:
    shown_values = [repr(v) for v in values]
    return shown_values[0] if len(shown_values) == 1 else f"{', '.join(shown_values[:-1])} or {shown_values[-1]}"

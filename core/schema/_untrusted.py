"""JSON schemas from outside (an agent's declared tools, an MCP server's tools), taken in and
checked against in bounded time and depth.

- ``schema_problem`` refuses a schema nested deeper than ``MAX_SCHEMA_NESTING`` (JSON Schema's
  own meta-schema check recurses per level and overflows the stack near 100 levels) or not
  valid JSON Schema.
- ``bounded_validator`` is jsonschema's validator for the schema's draft with every pattern
  matched by ``core.schema._bounded_regex`` (``pattern``, ``patternProperties`` and the
  ``additionalProperties`` that depends on them), ``uniqueItems`` in linear time, and every
  keyword looking at the current
  ``time_budget`` first: an ``anyOf`` that doubles per level stops when the budget is spent.
- ``check_against`` runs it within ``CHECK_SECONDS``; a check cut short is answered as where in
  the value it stopped and why, for the caller to report as "not checked".

    problem = schema_problem(schema)                   # None, or (where inside, message)
    errors, cut = check_against(bounded_validator(schema), args)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from jsonschema import Draft202012Validator, SchemaError, ValidationError
from jsonschema.validators import extend, validator_for
from referencing.exceptions import Unresolvable

from .._errors import PatternNotChecked
from ._bounded_regex import pattern_search
from .._limits import shown
from ._time_budget import budget_spent, time_budget

__all__ = ["CHECK_SECONDS", "PLAN_CHECK_SECONDS", "STEP_CHECK_SECONDS", "MAX_SCHEMA_NESTING", "NotCheckedAt", "bounded_validator", "check_against",
           "schema_problem"]

# JSON levels (objects and lists) in one schema: ``{"properties": {"x": {}}}`` is 3. A tool's
# arguments nest at most 32 levels (``core._limits.MAX_NESTING``), described in about twice that.
MAX_SCHEMA_NESTING = 64
CHECK_SECONDS = 1.0  # one tool's arguments, unless an outer budget (a whole plan's) ends first
# A whole plan's checks against untrusted schemas (each page run and API view pays it for a
# hostile plan); a legitimate 1000-step plan with declared tools needs ~0.05 s.
PLAN_CHECK_SECONDS = 2.0
# ... and so much more per step: checking an honest plan's steps costs ~0.1 ms of CPU each, but
# under a loaded machine's contention 10,000 of them passed 2 s and came out "not checked". A
# hostile plan of ``MAX_STEPS`` steps still ends within a few seconds.
STEP_CHECK_SECONDS = 0.001


class _CutShort(Exception):
    """Checking stopped at ``instance`` (a part of the value being checked) for ``reason``."""

    def __init__(self, instance: Any, reason: str) -> None:
        self.instance = instance
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class NotCheckedAt:
    """Where in the value a check stopped (a path of keys and indexes) and why."""

    path: tuple[Any, ...]
    message: str


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` JSON levels (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def schema_problem(schema: dict[str, Any], default: Any = Draft202012Validator) -> tuple[str, str] | None:
    """What is wrong with ``schema``: (the field inside it, e.g. ``.properties.x``, and the
    message), or ``None``."""
    if _depth_over(schema, MAX_SCHEMA_NESTING):
        return "", f"is nested more than {MAX_SCHEMA_NESTING} levels deep; at most {MAX_SCHEMA_NESTING} are taken"
    try:
        validator_for(schema, default=default).check_schema(schema)
    except SchemaError as exc:
        return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in exc.path), \
            f"is not a valid JSON schema: {exc.message}"
    except RecursionError:  # a backstop: the depth bound keeps the meta-schema check well inside
        return "", "is nested too deeply to check"
    return None


def _bounded_pattern(validator: Any, pattern: str, instance: Any, schema: dict) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{shown(instance)!r} does not match {shown(pattern)!r}")


def _bounded_pattern_properties(validator: Any, patterns: dict, instance: Any, schema: dict) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _bounded_additional_properties(validator: Any, extra: Any, instance: Any, schema: dict) -> Iterator[ValidationError]:
    """jsonschema's ``additionalProperties``, with the patterns that admit names matched here."""
    if not validator.is_type(instance, "object"):
        return
    properties, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = [k for k in instance if k not in properties and not any(_search(p, k) for p in patterns)]
    if validator.is_type(extra, "object"):
        for name in extras:
            yield from validator.descend(instance[name], extra, path=name)
    elif extra is False and extras:
        names = ", ".join(repr(shown(name)) for name in sorted(extras))
        if patterns:
            yield ValidationError(f"{names} match none of the patterns {', '.join(map(repr, sorted(patterns)))}")
        else:
            yield ValidationError(f"additional properties are not allowed ({names} unexpected)")


def _bounded_unique_items(validator: Any, unique: Any, instance: Any, schema: dict) -> Iterator[ValidationError]:
    """jsonschema's ``uniqueItems`` compares unhashable items pairwise (8,000 objects: ~40 s);
    here each item is reduced to a hashable form once, so the check is linear."""
    if unique and validator.is_type(instance, "array"):
        seen: set[Any] = set()
        for item in instance:
            key = _canonical(item)
            if key in seen:
                yield ValidationError(f"has non-unique elements ({shown(repr(item))} is there twice)")
                return
            seen.add(key)


def _canonical(value: Any) -> Any:
    """A hashable form equal for JSON values JSON Schema holds equal (``1 == 1.0``, ``true != 1``)."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, (int, float)):
        return ("number", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    return ("other", repr(value))


def _search(pattern: str, text: str) -> bool:
    try:
        return pattern_search(pattern, text)
    except PatternNotChecked as exc:
        raise _CutShort(text, f"not checked: {exc.reason}; pattern {shown(pattern)!r}") from None


def _budgeted(keyword: Any) -> Any:
    def check(validator: Any, value: Any, instance: Any, schema: dict) -> Iterator[ValidationError]:
        if budget_spent():
            raise _CutShort(instance, "not checked: checking it against the tool's schema took longer "
                                      "than the time allowed (the schema is too costly to check)")
        errors = keyword(validator, value, instance, schema)
        if errors:
            yield from errors
    return check


def _unevaluated_beside_patterns(validator: Any, value: Any, instance: Any, schema: dict) -> Iterator[ValidationError]:
    # jsonschema works out which names patternProperties evaluated with Python's re, out of
    # reach of the bounded matcher: a schema combining the two is not checked rather than hang.
    if validator.is_type(instance, "object"):
        raise _CutShort(instance, "not checked: the tool's schema uses unevaluatedProperties together with "
                                  "patternProperties, which cannot be checked in bounded time")
    return iter(())


# Documented registry (tests/unit/test_registries.py): validator classes, made once per draft and options.
_BOUNDED: dict[tuple[type, bool, bool], type] = {}
_BOUNDED_KEYWORDS = {"pattern": _bounded_pattern, "patternProperties": _bounded_pattern_properties,
                     "additionalProperties": _bounded_additional_properties, "uniqueItems": _bounded_unique_items}
# Documented registry (tests/unit/test_registries.py): the last 256 schemas' answers.
_RECENT_SCHEMAS: dict[int, tuple[dict[str, Any], bool]] = {}  # id -> (the schema, kept alive; its answer)


def _mixes_unevaluated_and_patterns(schema: dict[str, Any]) -> bool:
    """Whether ``schema`` holds both keywords anywhere (walked once per schema, then remembered)."""
    recent = _RECENT_SCHEMAS.get(id(schema))
    if recent is not None and recent[0] is schema:
        return recent[1]
    found: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(k for k in ("unevaluatedProperties", "patternProperties") if k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    if len(_RECENT_SCHEMAS) >= 256:
        _RECENT_SCHEMAS.pop(next(iter(_RECENT_SCHEMAS)))
    _RECENT_SCHEMAS[id(schema)] = (schema, len(found) == 2)
    return len(found) == 2


def _strict_integer(checker: Any, instance: Any) -> bool:
    # As pydantic runs a Python tool (strict): 2.0 is a number, not an integer.
    return isinstance(instance, int) and not isinstance(instance, bool)


def bounded_validator(schema: dict[str, Any], default: Any = Draft202012Validator, *, strict: bool = False,
                      format_checker: Any = None) -> Any:
    """A validator for ``schema`` (of the draft its ``$schema`` names, else ``default``) that
    matches patterns in bounded time and stops when the time budget is spent. ``strict``: a
    float is never an integer (``2.0`` is not ``2``), as for the studio's own Python tools;
    ``format_checker`` checks ``format`` (not checked otherwise, as JSON Schema says)."""
    base = validator_for(schema, default=default)
    mixed = _mixes_unevaluated_and_patterns(schema)
    if (base, mixed, strict) not in _BOUNDED:
        keywords = {name: (_BOUNDED_KEYWORDS.get(name, keyword)) for name, keyword in base.VALIDATORS.items()}
        if mixed and "unevaluatedProperties" in keywords:
            keywords["unevaluatedProperties"] = _unevaluated_beside_patterns
        types = base.TYPE_CHECKER.redefine("integer", _strict_integer) if strict else base.TYPE_CHECKER
        _BOUNDED[base, mixed, strict] = extend(base, {name: _budgeted(k) for name, k in keywords.items()},
                                               type_checker=types)
    return _BOUNDED[base, mixed, strict](schema, format_checker=format_checker)


def check_against(validator: Any, instance: Any) -> tuple[list[ValidationError], NotCheckedAt | None]:
    """The errors ``validator`` finds in ``instance`` within ``CHECK_SECONDS`` (less if an outer
    budget ends first), and where the check stopped if it could not finish."""
    errors: list[ValidationError] = []
    with time_budget(CHECK_SECONDS):
        try:
            for error in validator.iter_errors(instance):
                errors.append(error)
        except _CutShort as exc:
            return errors, NotCheckedAt(_path_of(exc.instance, instance), exc.reason)
        except Unresolvable as exc:
            return errors, NotCheckedAt((), f"not checked: the tool's schema refers to {shown(str(exc.ref))!r}, "
                                            "which it does not hold")
        except RecursionError:
            return errors, NotCheckedAt((), "not checked: the tool's schema refers to itself too deeply")
    return errors, None


def _path_of(part: Any, whole: Any) -> tuple[Any, ...]:
    """Where ``part`` (the very object) sits inside ``whole``; ``()`` for the whole or not found."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(whole, ())]
    while stack:
        item, path = stack.pop()
        if item is part:
            return path
        if isinstance(item, dict):
            stack.extend((v, (*path, k)) for k, v in item.items())
            stack.extend((k, (*path, k)) for k in item)  # a key matched against patternProperties
        elif isinstance(item, list):
            stack.extend((v, (*path, n)) for n, v in enumerate(item))
    return ()

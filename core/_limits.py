"""How big and how deep a plan may be, and the one check that holds every plan to it.

A plan comes from people, models and files, and each part of Plan Studio walks it: the
validator, every format's writer, the executor, the store (whose JSON parser stops at 200
levels), the UI. These bounds make sure that whatever can be loaded or built can also be
validated, written in every format, run and saved, and that nothing small costs something
huge. ``Plan`` checks them when it is built (``check_plan``), so every way in gets them; a
plan edited in place is checked again where it is run or saved.

The bounds are generous for a plan of tool calls (the demo's plans have a handful of steps,
params one or two levels deep and short text) and small enough that none of them costs more
than a moment anywhere.

What a plan may hold is JSON: null, booleans, integers of at most ``MAX_INTEGER_DIGITS``
digits, finite numbers, text without lone surrogates (UTF-8 cannot encode them, so neither
SQLite nor any export could), lists, and objects with text keys.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterator

from ._errors import PlanError


__all__ = ["MAX_STEPS", "MAX_NESTING", "MAX_INTEGER_DIGITS", "MAX_PLAN_CHARS", "MAX_PLAN_TEXT",
           "MAX_REFERENCES_PER_TEXT", "MAX_INDEX_DIGITS", "MAX_REFERENCE_PATH",
           "MAX_RESOLVED_TEXT", "check_plan", "value_problem", "json_depth_problem", "lone_surrogate",
           "shown"]

MAX_STEPS = 1000  # a plan a person reviews; 300-step plans are in the benchmarks
# Lists and objects inside one param value (or metadata value): ``[[1]]`` is 2 levels.
MAX_NESTING = 32
MAX_INTEGER_DIGITS = 40  # a 128-bit integer has 39
# Characters of text in one plan, all strings counted: goal, notes, ids, keys, params, metadata.
MAX_PLAN_CHARS = 1_000_000
# Characters of text a loader reads; an export of the largest plan (escapes included) fits.
MAX_PLAN_TEXT = 10_000_000
MAX_REFERENCES_PER_TEXT = 100
# Digits in a reference's step index or path index; longer ones are no step of any plan.
MAX_INDEX_DIGITS = 9
# Segments in a reference's path (``.data.*.id`` has 3).
MAX_REFERENCE_PATH = 32
# Characters of text a param may grow to when references in it are replaced by values.
MAX_RESOLVED_TEXT = 1_000_000

_INTEGER_BOUND = 10 ** MAX_INTEGER_DIGITS
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SHOWN = 60


def shown(text: str, width: int = _SHOWN) -> str:
    """``text`` for a message: cut to ``width`` characters, so a huge value cannot flood it,
    and with lone surrogates escaped, so the message itself can always be printed."""
    text = text if len(text) <= width else text[:width - 1] + "…"
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")


def lone_surrogate(text: str) -> int | None:
    """Where ``text`` holds a lone surrogate (which UTF-8 cannot encode), or ``None``."""
    if text.isascii():
        return None
    bad = _SURROGATE.search(text)
    return None if bad is None else bad.start()


def _text_problem(text: str) -> str | None:
    if not text.isascii():
        bad = _SURROGATE.search(text)
        if bad:
            return (f"text holds a lone surrogate ({ascii(bad.group())}) at character "
                    f"{bad.start()}, which UTF-8 cannot encode")
    return None


def _path(parts: list[str | int]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{shown(p, 40)}" for p in parts)


def _walk(value: Any, max_nesting: int, depth: int = 0) -> tuple[tuple[str, str] | None, int]:
    """The first thing in ``value`` a plan may not hold, as (path inside ``value``, message),
    and the characters of text in ``value`` (up to that thing).

    Walks with its own stack, so any depth (and a list that contains itself) is safe.
    ``depth`` -1 makes ``value`` a holder of fields (params), whose values are counted from 0.
    """
    if value is None:
        return None, 0
    if isinstance(value, str) and value.isascii():  # most fields: plain text, nothing to walk
        return None, len(value)
    chars = 0
    stack: list[tuple[Any, list[str | int], int]] = [(value, [], depth)]
    while stack:
        item, path, depth = stack.pop()
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, str):
            chars += len(item)
            why = _text_problem(item)
            if why:
                return (_path(path), why), chars
        elif isinstance(item, int):
            if not -_INTEGER_BOUND < item < _INTEGER_BOUND:
                return (_path(path), f"an integer may have at most {MAX_INTEGER_DIGITS} digits"), chars
        elif isinstance(item, float):
            if not math.isfinite(item):
                return (_path(path), f"{item} is not a number JSON can hold (only finite numbers)"), chars
        elif isinstance(item, (list, dict)):
            if depth >= max_nesting:
                return (_path(path), f"lists and objects may be nested at most {max_nesting} "
                        "levels deep"), chars
            if isinstance(item, list):
                stack.extend((v, [*path, n], depth + 1) for n, v in reversed(list(enumerate(item))))
                continue
            for key in item:
                if not isinstance(key, str):
                    return (_path(path), f"key {shown(repr(key))} is not text"), chars
                chars += len(key)
                why = _text_problem(key)
                if why:
                    return (_path(path), f"key {shown(key)}: {why}"), chars
            stack.extend((v, [*path, k], depth + 1) for k, v in reversed(list(item.items())))
        else:
            return (_path(path), f"a {type(item).__name__} is not a JSON value"), chars
    return None, chars


def value_problem(value: Any, max_nesting: int = MAX_NESTING) -> tuple[str, str] | None:
    """The first thing in ``value`` a plan may not hold, as (path inside ``value``, message)."""
    return _walk(value, max_nesting)[0]


def json_depth_problem(data: Any, max_depth: int) -> str | None:
    """Where parsed JSON ``data`` is nested deeper than ``max_depth``, or ``None``."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, (list, dict)):
            if len(path) >= max_depth:
                return (f"{_path(path).lstrip('.') or 'the document'}: nested more than "
                        f"{max_depth} levels deep")
            pairs = enumerate(item) if isinstance(item, list) else item.items()
            stack.extend((v, [*path, k]) for k, v in pairs)
    return None


class _StepField:
    """``step 3 (tool) · params``, written only when a message needs it: every plan is checked
    when built, run and saved, and writing it for each field of a long plan cost more than the check."""

    __slots__ = ("n", "tool", "name")

    def __init__(self, n: int, tool: Any, name: str) -> None:
        self.n, self.tool, self.name = n, tool, name

    def __str__(self) -> str:
        tool = shown(self.tool, 40) if isinstance(self.tool, str) else "?"
        return f"step {self.n} ({tool}) · {self.name}"


def _fields(plan: Any) -> Iterator[tuple[Any, Any, int, int]]:
    """(where, value, nesting allowed, depth of value) for everything in ``plan`` that holds
    data; params and metadata are holders of fields, each field's value nested from 0. A step's
    ``where`` is (n, step, field name), made a ``_StepField`` only for a message."""
    yield "plan · goal", plan.goal, 0, 0
    for n, step in enumerate(plan.steps):
        for name in ("id", "tool", "note", "result_key"):
            yield (n, step, name), getattr(step, name), 0, 0
        yield (n, step, "depends_on"), step.depends_on, 1, 0
        yield (n, step, "params"), step.params, MAX_NESTING, -1
        yield (n, step, "format_data"), step.format_data, MAX_NESTING, -1
    yield "plan · metadata.planner", plan.metadata.planner, 0, 0
    yield "plan · metadata", plan.metadata.model_extra or {}, MAX_NESTING, -1


def _named(where: Any) -> Any:
    return _StepField(where[0], where[1].tool, where[2]) if isinstance(where, tuple) else where


def _flat_chars(fields: Any) -> int | None:
    """The characters of text in a holder of fields (params) whose every key and value is
    ASCII text, a bool, None or an integer within bounds, or None when one is not: most params
    are, and they pass as ``_walk`` would pass them, without its stack."""
    if type(fields) is not dict:
        return None
    chars = 0
    for key, item in fields.items():
        if type(key) is not str or not key.isascii():
            return None
        chars += len(key)
        kind = type(item)
        if kind is str:
            if not item.isascii():
                return None
            chars += len(item)
        elif kind is int:
            if not -_INTEGER_BOUND < item < _INTEGER_BOUND:
                return None
        elif item is not None and kind is not bool:
            return None
    return chars


def check_plan(plan: Any) -> None:  # a core.Plan; not imported, as _plan imports this module
    """Raise ``PlanError`` naming the step and field of the first thing over a bound."""
    if len(plan.steps) > MAX_STEPS:
        raise PlanError(f"plan · steps: {len(plan.steps)} steps; a plan may have at most {MAX_STEPS}")
    total = 0
    for where, value, nesting, depth in _fields(plan):
        if not value:  # None, "", [], {}: nothing over any bound
            continue
        if type(value) is str and value.isascii():  # most fields: nothing to walk (checked as _walk would)
            total += len(value)
        elif depth == -1 and (flat := _flat_chars(value)) is not None:
            total += flat
        else:
            found, chars = _walk(value, nesting, depth)
            if found is not None:
                raise PlanError(f"{_named(where)}{found[0]}: {found[1]}")
            total += chars
        if total > MAX_PLAN_CHARS:
            raise PlanError(f"{_named(where)}: a plan may hold at most {MAX_PLAN_CHARS:,} characters of text")


# A tool's words as a person may edit them (the Lab, the Tools page's session edit): long
# enough for any docstring, short enough that the manual stays a manual a model can read.
MAX_TOOL_DESCRIPTION = 20_000
MAX_PARAM_DESCRIPTION = 5_000
__all__ += ["MAX_TOOL_DESCRIPTION", "MAX_PARAM_DESCRIPTION"]

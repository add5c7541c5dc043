"""A tool's result as JSON data, or an error naming the first part of it that is not JSON.

A step's result is shown, saved with its run and handed to later steps as JSON. Whatever a
tool returns is made JSON here, while the step still runs, so that a result that cannot be
(an object, bytes, a list that holds itself) fails that step with a message saying what and
where (``bytes at data[2].blob``), instead of breaking the run, its display or its save later.
``NaN`` and ``±Infinity`` are refused too: JSON has no such numbers, and turning them into
``null`` silently would show the reviewer a value the tool never returned.

Dates, enums, decimals, dataclasses and pydantic models are fine: they become JSON the way
pydantic writes them (through the tool's declared return type when it has one).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import json
import math
import uuid
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic_core import PydanticSerializationError

from .._errors import ToolResultError

__all__ = ["json_result"]

_ANY = TypeAdapter(Any)
# Deeper than this, pydantic cannot write the result (its own limit is about 250 levels).
MAX_DEPTH = 200
_PRIMITIVE = (str, int, bool, type(None))
# Leaves pydantic writes as JSON text; known here, so a result full of dates is not asked about each.
_TEXT_LEAVES = (dt.date, dt.time, dt.timedelta, decimal.Decimal, uuid.UUID, enum.Enum, PurePath)
_KEY = (str, int, float, bool, type(None))


def json_result(value: Any, declared: TypeAdapter | None = None) -> Any:
    """``value`` as JSON data, written through ``declared`` (the tool's return type) if given.
    Raises ``ToolResultError`` naming the first part that cannot be JSON."""
    try:
        # Most results are plain JSON already: checked in C (no NaN, no cycle), no walk needed.
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        problem = _first_problem(value, "", (), 0)
        if problem is not None:
            raise ToolResultError(f"its result is not JSON: {problem}") from None
    try:
        return (declared or _ANY).dump_python(value, mode="json")
    except (PydanticSerializationError, ValueError, TypeError, RecursionError) as exc:
        raise ToolResultError(f"its result is not JSON: {' '.join(str(exc).split())}") from None


def _where(path: str) -> str:
    return f" at {path}" if path else " (the whole result)"


def _first_problem(value: Any, path: str, holders: tuple[int, ...], depth: int) -> str | None:
    """What is wrong with ``value`` at ``path`` (``holders``: the ids of the containers it is
    inside, to find one that holds itself), or None when pydantic can write it as JSON."""
    if isinstance(value, _PRIMITIVE) or isinstance(value, _TEXT_LEAVES):
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return f"NaN{_where(path)}"
        if math.isinf(value):
            return f"{'-' if value < 0 else ''}Infinity{_where(path)}"
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"bytes{_where(path)}"
    if depth >= MAX_DEPTH:
        return f"nested more than {MAX_DEPTH} levels deep{_where(path)}"
    children = _children(value, path)
    if children is None:  # a leaf pydantic may know how to write (a date, an enum, a UUID)
        try:
            _ANY.dump_python(value, mode="json")
        except (PydanticSerializationError, ValueError, TypeError, RecursionError):
            return f"{type(value).__name__}{_where(path)}"
        return None
    if id(value) in holders:
        return f"it holds itself{_where(path)}"
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, _KEY) or (isinstance(key, float) and not math.isfinite(key)):
                return f"a key that is {type(key).__name__}, not text{_where(path)}"
    holders = (*holders, id(value))
    for child_path, child in children:
        problem = _first_problem(child, child_path, holders, depth + 1)
        if problem is not None:
            return problem
    return None


def _children(value: Any, path: str) -> list[tuple[str, Any]] | None:
    """``value``'s parts with their paths, or None for a leaf."""
    if isinstance(value, dict):
        return [(f"{path}.{key}" if path else str(key), item) for key, item in value.items()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [(f"{path}[{n}]", item) for n, item in enumerate(value)]
    if isinstance(value, BaseModel):
        items = [(name, getattr(value, name, None)) for name in type(value).model_fields]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [(f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value)]
    else:
        return None
    return [(f"{path}.{name}" if path else name, item) for name, item in items]

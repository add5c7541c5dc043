"""How values go into rows and come out of them: JSON text, plans, timestamps, error reasons."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError
from sqlalchemy.exc import DBAPIError

from .._errors import NotFound, PlanError, StorageError
from .._limits import check_plan
from ..plan._model import Plan

__all__ = ["ReadPlans", "found", "json_text", "json_value", "now", "parse_plan", "plan_json", "plan_text", "reason"]

_Row = TypeVar("_Row")

_clock_lock = threading.Lock()
# Documented registry (tests/unit/test_registries.py): the stores' one clock, so stamps keep their order.
_last_time = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def now() -> dt.datetime:
    """The current UTC time, strictly later than any earlier call in this process.

    Lists sort by these stamps; two saves within one clock tick must still keep their order.
    """
    global _last_time
    with _clock_lock:
        current = dt.datetime.now(dt.timezone.utc)
        if current <= _last_time:
            current = _last_time + dt.timedelta(microseconds=1)
        _last_time = current
        return current


def reason(exc: BaseException) -> str:
    """What went wrong, in one line: the driver's message when there is one."""
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return str(exc.orig)
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def json_text(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def json_value(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def plan_json(plan: Plan) -> str:
    """The JSON the store keeps for ``plan``, made and checked before anything is written.

    Not read back: a plan is a value, validated when made and never changed since
    (``docs/decisions/0003-the-plan-is-a-value.md``), so the text says what the plan holds and
    the store hands on ``plan`` itself. Its bounds (``core._limits``) are checked again, as
    ``model_copy`` makes plans without validating them: a plan that cannot be stored is refused
    whole and leaves no half-written version behind.
    """
    check_plan(plan)
    return plan_text(plan)


def plan_text(plan: Plan) -> str:
    """The JSON the store keeps for ``plan``, not checked nor read back (``plan_json`` does both)."""
    try:
        return plan.model_dump_json()
    except (ValueError, TypeError, RecursionError) as exc:
        raise PlanError(f"the plan cannot be stored: {reason(exc)}") from exc


def parse_plan(text: str, where: str, path: Path | str) -> Plan:
    """The plan stored as ``text``; ``StorageError`` naming ``where`` in ``path`` when unreadable."""
    try:
        return Plan.model_validate_json(text)
    except (ValidationError, PlanError) as exc:
        raise StorageError(f"{where} in {path} is unreadable: {exc}") from exc


class ReadPlans:
    """Plans read from stored JSON, kept by their text: a plan is a value, so every reader of
    one stored text (each load of a run, of a version, of a review) can share the plan read
    from it instead of parsing it again. One per store; the most recently read ``size`` texts of
    at most ``longest`` characters are kept."""

    def __init__(self, size: int = 32, longest: int = 1_000_000) -> None:
        self._size, self._longest = size, longest
        self._plans: OrderedDict[str, Plan] = OrderedDict()
        self._lock = threading.Lock()  # runs are loaded from workers' threads too

    def __call__(self, text: str, where: str, path: Path | str) -> Plan:
        """``parse_plan(text, where, path)``, parsed once while kept."""
        with self._lock:
            plan = self._plans.get(text)
            if plan is not None:
                self._plans.move_to_end(text)
                return plan
        plan = parse_plan(text, where, path)  # outside the lock: a long plan takes a while
        if len(text) <= self._longest:
            with self._lock:
                self._plans[text] = plan
                while len(self._plans) > self._size:
                    self._plans.popitem(last=False)
        return plan


def found(row: _Row | None, missing: str) -> _Row:
    """``row`` as looked up by its id; ``NotFound`` with the message ``missing`` when there is none."""
    if row is None:
        raise NotFound(missing)
    return row

"""What every plan format provides: a name, and text → ``Plan`` and/or ``Plan`` → text, and
the checks a plan needs to mean in it what it says (run by the validator)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from .._errors import PlanFormatError
from .._limits import MAX_INTEGER_DIGITS, MAX_NESTING, MAX_STEPS, json_depth_problem
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry
from ..validation._validator import PlanCheck

Loader = Callable[[str, "ToolRegistry | None"], Plan]
Dumper = Callable[[Plan, "ToolRegistry | None"], str]
# What an export-only format leaves out of a plan, one notice each (a format that also reads
# is measured by reading its own text back instead: ``_fidelity``).
DropLister = Callable[[Plan, "ToolRegistry | None"], list[str]]


@dataclass(frozen=True)
class PlanFormat:
    name: str
    label: str
    suffix: str
    load: Loader | None = None  # None: export only
    dump: Dumper | None = None  # None: import only
    checks: tuple[PlanCheck, ...] = ()  # whole-plan checks the validator runs for this format
    drops: DropLister | None = None  # for an export-only format: what its text leaves out
    holds_metadata: bool = True  # False: the text has no place for the plan's metadata


# A plan document wraps a param value in at most a few levels (plan, steps, step, params);
# anything deeper than this cannot hold a plan, and is refused before it is walked.
MAX_DOCUMENT_DEPTH = MAX_NESTING + 8


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise ValueError(f"an integer has {digits} digits; a plan allows at most {MAX_INTEGER_DIGITS}")
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(text: str, max_depth: int = MAX_DOCUMENT_DEPTH) -> Any:
    """``json.loads`` for untrusted text: only what JSON itself allows (no NaN or Infinity),
    integers a plan may hold, and no deeper than ``max_depth``. Raises ``ValueError``
    (``json.JSONDecodeError`` for broken JSON) saying what is wrong."""
    try:
        data = json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"nested more than {max_depth} levels deep") from None
    problem = json_depth_problem(data, max_depth)
    if problem:
        raise ValueError(problem)
    return data


def load_json(fmt: str, text: str) -> Any:
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise PlanFormatError(fmt, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from exc
    except ValueError as exc:
        raise PlanFormatError(fmt, f"not a plan's JSON: {exc}") from None


def check_step_count(fmt: str, count: int, what: str = "steps") -> None:
    """Refuse more steps than a plan may have before any of them is read."""
    if count > MAX_STEPS:
        raise PlanFormatError(fmt, f"{count} {what}; a plan may have at most {MAX_STEPS}")

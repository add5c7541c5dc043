"""Goal sets for the Lab: typed (one goal a line), read from a file (JSON lines or plain text;
each bad line named by its number, the good ones kept), or from the Library (each saved plan's
goal, its latest version as the plan expected).

A JSON line is a goal as a string, or ``{"goal": ..., "expected": plan}`` where the plan is in
native JSON (steps with ids) or in the seed format (``depends_on`` by position). A file that is
one JSON document (a list of those, or an object with a "cases" or "goals" list, as
``docs/acceptance/seed_examples.json``) is read item by item.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from .._errors import PlanStudioError
from .._limits import MAX_PLAN_TEXT, shown
from ..plan._model import Plan
from ..formats import plan_from_seed
from ..planners import MAX_GOAL_LENGTH
from ._experiment import LabGoal
from ._library import Library

__all__ = ["MAX_GOALS", "goals_from_file", "goals_from_library", "goals_from_text"]

MAX_GOALS = 5_000  # a goal set is re-planned twice per goal; more is a benchmark, not a lab session
_MAX_PROBLEMS = 50


def goals_from_text(text: str) -> list[LabGoal]:
    """One goal per non-blank line, trimmed, at most ``MAX_GOALS``."""
    return [LabGoal(line.strip(), source="typed") for line in text.splitlines() if line.strip()][:MAX_GOALS]


def goals_from_file(data: bytes, filename: str) -> tuple[list[LabGoal], list[str]]:
    """The goals of a file, and one problem per line that is not a goal ("line 3: ...")."""
    if len(data) > MAX_PLAN_TEXT:
        return [], [f"{shown(filename)} is {len(data):,} bytes; a goal set file may have {MAX_PLAN_TEXT:,}"]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return [], [f"{shown(filename)} is not UTF-8 text (byte {exc.start + 1})"]
    whole = _whole_json(text)
    if whole is not None:
        return _json_items(whole, filename)
    lines = text.splitlines()
    first = next((line.strip() for line in lines if line.strip()), "")
    as_json = filename.lower().endswith((".jsonl", ".json", ".ndjson")) or first.startswith(("{", '"'))
    goals: list[LabGoal] = []
    problems: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if len(goals) >= MAX_GOALS:
            problems.append(f"line {number}: the set already has {MAX_GOALS:,} goals; the rest is not read")
            break
        try:
            goals.append(_json_line(line, f"{filename} line {number}") if as_json
                         else _text_goal(line, number, filename))
        except ValueError as exc:
            problems.append(f"line {number}: {exc}")
    return goals, _capped(problems)


def _whole_json(text: str) -> list[Any] | None:
    """The items of a file that is one JSON document: a list, or an object with a "cases" or
    "goals" list (``docs/acceptance/seed_examples.json``); None for JSON lines or text."""
    stripped = text.strip()
    if not stripped.startswith(("[", "{")):
        return None
    try:
        data = json.loads(stripped)
    except (ValueError, RecursionError):
        return None  # JSON lines, or broken: read line by line, each bad line named
    if isinstance(data, dict):
        data = next((data[k] for k in ("cases", "goals") if isinstance(data.get(k), list)), None)
    return data if isinstance(data, list) else None


def _json_items(items: list[Any], filename: str) -> tuple[list[LabGoal], list[str]]:
    goals: list[LabGoal] = []
    problems: list[str] = []
    for number, item in enumerate(items[:MAX_GOALS], start=1):
        try:
            goals.append(_json_goal(item, f"{filename} item {number}"))
        except ValueError as exc:
            problems.append(f"item {number}: {exc}")
    if len(items) > MAX_GOALS:
        problems.append(f"the set has {len(items):,} goals; the first {MAX_GOALS:,} are read")
    return goals, _capped(problems)


def _capped(problems: list[str]) -> list[str]:
    if len(problems) <= _MAX_PROBLEMS:
        return problems
    return [*problems[:_MAX_PROBLEMS], f"… and {len(problems) - _MAX_PROBLEMS} more bad lines"]


def _text_goal(line: str, number: int, filename: str) -> LabGoal:
    return LabGoal(_checked_goal(line.strip()), source=f"{filename} line {number}")


def _checked_goal(goal: Any) -> str:
    if not isinstance(goal, str) or not goal.strip():
        raise ValueError("the goal is missing or empty")
    if len(goal) > MAX_GOAL_LENGTH:
        raise ValueError(f"the goal is {len(goal):,} characters long; planners read {MAX_GOAL_LENGTH:,}")
    return goal.strip()


def _json_line(line: str, source: str) -> LabGoal:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not JSON ({shown(str(exc))})") from None
    return _json_goal(data, source)


def _json_goal(data: Any, source: str) -> LabGoal:
    """A goal as a string, or ``{"goal": ..., "expected": plan}`` ("plan" also, as the seed
    examples write it)."""
    if isinstance(data, str):
        return LabGoal(_checked_goal(data), source=source)
    if not isinstance(data, dict):
        raise ValueError('expected a goal as a string or {"goal": ..., "expected": plan}')
    goal = _checked_goal(data.get("goal"))
    expected = data.get("expected", data.get("plan"))
    if expected is None:
        return LabGoal(goal, source=source)
    return LabGoal(goal, _expected_plan(expected, goal), source=source)


def _expected_plan(data: Any, goal: str) -> Plan:
    try:
        steps = data.get("steps") if isinstance(data, dict) else data
        native = isinstance(steps, list) and all(isinstance(s, dict) and "id" in s for s in steps) and steps
        if native:
            return Plan.model_validate({**data, "goal": goal})
        return plan_from_seed(data, goal=goal)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error.get("loc", ()))
        raise ValueError(f"expected plan: {where}: {shown(error.get('msg', 'invalid'))}") from None
    except PlanStudioError as exc:
        raise ValueError(f"expected plan: {shown(str(exc), 200)}") from None


def goals_from_library(store: Library, search: str = "", *, limit: int = 500) -> list[LabGoal]:
    """The goals of the saved plans ``search`` finds (most recently updated first), each with
    its latest version as the plan expected."""
    goals = []
    for summary in store.list_plans(search, limit=limit):
        plan = store.load_plan(summary.id)
        goals.append(LabGoal(summary.goal, plan, source=f"plan {summary.id} v{summary.latest_version}"))
    return goals

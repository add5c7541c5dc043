"""How the Lab compares plans: each step as its tool and params (references by step position,
as the seed format writes them), a param at its schema's default the same as no param."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .._diff import diff_plans
from .._limits import shown
from .._plan import Plan
from .._registry import ToolRegistry
from ..formats import plan_to_seed

__all__ = ["Match", "StepSummary", "match_expected", "plan_changes", "step_summaries"]

MAX_LINES = 20  # lines of differences kept per comparison: results stay small for big sets


@dataclass(frozen=True)
class StepSummary:
    tool: str
    params: dict[str, Any]
    depends_on: tuple[int, ...] = ()


@dataclass(frozen=True)
class Match:
    """How a plan compares with the expected one: ``exact``, or which steps differ and how."""

    exact: bool
    differences: tuple[str, ...] = ()


def step_summaries(plan: Plan, registry: ToolRegistry) -> tuple[StepSummary, ...]:
    out = []
    for step in plan_to_seed(plan)["steps"]:
        defaults = _defaults(registry, step["tool"])
        params = {k: v for k, v in step["params"].items() if not (k in defaults and defaults[k] == v)}
        out.append(StepSummary(step["tool"], params, tuple(sorted(step["depends_on"]))))
    return tuple(out)


def _defaults(registry: ToolRegistry, tool: str) -> dict[str, Any]:
    if tool not in registry:
        return {}
    properties = registry.get(tool).parameters.get("properties") or {}
    return {name: schema["default"] for name, schema in properties.items()
            if isinstance(schema, dict) and "default" in schema}


def match_expected(expected: tuple[StepSummary, ...], got: tuple[StepSummary, ...]) -> Match:
    lines: list[str] = []
    for n in range(max(len(expected), len(got))):
        want = expected[n] if n < len(expected) else None
        have = got[n] if n < len(got) else None
        if want == have:
            continue
        if want is None:
            lines.append(f"step {n + 1}: {have.tool} is not expected")  # type: ignore[union-attr]
        elif have is None:
            lines.append(f"step {n + 1}: {want.tool} expected, missing")
        elif want.tool != have.tool:
            lines.append(f"step {n + 1}: {want.tool} expected, got {have.tool}")
        else:
            lines.append(f"step {n + 1} ({want.tool}): " + "; ".join(_param_lines(want, have)))
    return Match(not lines, _capped(lines))


def _param_lines(want: StepSummary, have: StepSummary) -> list[str]:
    out = []
    for name in dict.fromkeys([*want.params, *have.params]):
        if want.params.get(name, _MISSING) != have.params.get(name, _MISSING):
            out.append(f"{name}: expected {_show(want.params.get(name, _MISSING))}, "
                       f"got {_show(have.params.get(name, _MISSING))}")
    if want.depends_on != have.depends_on:
        out.append(f"needs steps {_steps(want.depends_on)}, got {_steps(have.depends_on)}")
    return out or ["differs"]


_MISSING = object()


def _show(value: Any) -> str:
    return "nothing" if value is _MISSING else shown(json.dumps(value, ensure_ascii=False))


def _steps(indexes: tuple[int, ...]) -> str:
    return ", ".join(str(i + 1) for i in indexes) or "none"


def plan_changes(old: Plan | None, new: Plan | None) -> tuple[str, ...]:
    """What ``new`` changes from ``old``, one line each (``diff_plans``), or why one is missing."""
    if old is None and new is None:
        return ()
    if old is None or new is None:
        return ("no plan with the original words" if old is None else "no plan with the edited words",)
    diff = diff_plans(old, new.model_copy(update={"goal": old.goal}))
    return () if diff.is_empty else _capped(diff.summary().splitlines())


def _capped(lines: list[str]) -> tuple[str, ...]:
    if len(lines) <= MAX_LINES:
        return tuple(lines)
    return (*lines[:MAX_LINES], f"… and {len(lines) - MAX_LINES} more")

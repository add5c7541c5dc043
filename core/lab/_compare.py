"""How the Lab compares plans: each step as its tool and params (references by step position,
as the seed format writes them), a param at its schema's default the same as no param, and the
steps of two plans lined up by their tools in order. Step ids are not compared: two planners,
or one planner reading other words, number their steps alike whatever the steps are."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any, Callable

from .._limits import shown
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry
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


def _aligned(old: tuple[StepSummary, ...], new: tuple[StepSummary, ...]) -> list[tuple[int | None, int | None]]:
    """Pairs of step positions (old, new), the steps lined up by their tools in order (a step
    inserted or dropped early does not make every later one differ); None: only one side has it."""
    pairs: list[tuple[int | None, int | None]] = []
    matcher = difflib.SequenceMatcher(a=[s.tool for s in old], b=[s.tool for s in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs += zip(range(i1, i2), range(j1, j2))
        else:
            pairs += [(i, None) for i in range(i1, i2)] + [(None, j) for j in range(j1, j2)]
    return pairs


def match_expected(expected: tuple[StepSummary, ...], got: tuple[StepSummary, ...]) -> Match:
    """``got`` against ``expected``: exact when step for step they hold the same tools, params
    and dependencies; else one line per step that differs, numbered as in ``expected``."""
    if expected == got:
        return Match(True)

    def differs(i: int, j: int) -> str | None:
        if expected[i] == got[j] and i == j:
            return None
        said = _param_lines(expected[i], got[j], "expected {}, got {}")
        return f"step {i + 1} ({expected[i].tool}): " + ("; ".join(said) or f"is step {j + 1} here")

    lines = _step_lines(expected, got, lambda i: f"step {i + 1}: {expected[i].tool} expected, missing",
                        lambda j: f"step {j + 1}: {got[j].tool} is not expected", differs)
    return Match(False, _capped(lines or ["the steps are in another order"]))


def plan_changes(old: tuple[StepSummary, ...] | None, new: tuple[StepSummary, ...] | None) -> tuple[str, ...]:
    """What ``new`` changes from ``old``, one line a step (``-`` only in old, ``+`` only in new,
    ``~`` changed), or which has no plan."""
    if old is None and new is None:
        return ()
    if old is None or new is None:
        return ("no plan with the original words" if old is None else "no plan with the edited words",)
    if old == new:
        return ()

    def changed(i: int, j: int) -> str | None:
        said = _param_lines(old[i], new[j], "{} → {}") if old[i] != new[j] else []
        return f"~ step {i + 1} {old[i].tool}: " + "; ".join(said) if said else None

    return _capped(_step_lines(old, new, lambda i: f"- step {i + 1} {old[i].tool} {_params(old[i])}",
                               lambda j: f"+ step {j + 1} {new[j].tool} {_params(new[j])}", changed))


def _step_lines(a: tuple[StepSummary, ...], b: tuple[StepSummary, ...], only_a: Callable[[int], str],
                only_b: Callable[[int], str], both: Callable[[int, int], str | None]) -> list[str]:
    """A line for each step of ``a`` (or of ``b``) aligned with none of the other, and one for
    each aligned pair that ``both`` tells apart (it answers None for a pair alike)."""
    lines = []
    for i, j in _aligned(a, b):
        line = only_b(j) if i is None else only_a(i) if j is None else both(i, j)
        if line:
            lines.append(line)
    return lines


def _params(step: StepSummary) -> str:
    return shown(json.dumps(step.params, ensure_ascii=False), 200)


def _param_lines(want: StepSummary, have: StepSummary, how: str) -> list[str]:
    out = []
    for name in dict.fromkeys([*want.params, *have.params]):
        if want.params.get(name, _MISSING) != have.params.get(name, _MISSING):
            out.append(f"{name}: " + how.format(_show(want.params.get(name, _MISSING)),
                                                _show(have.params.get(name, _MISSING))))
    if want.depends_on != have.depends_on:
        out.append("depends on: " + how.format(_steps(want.depends_on), _steps(have.depends_on)))
    return out


_MISSING = object()


def _show(value: Any) -> str:
    return "nothing" if value is _MISSING else shown(json.dumps(value, ensure_ascii=False))


def _steps(indexes: tuple[int, ...]) -> str:
    if not indexes:
        return "no step"
    return ("step " if len(indexes) == 1 else "steps ") + ", ".join(str(i + 1) for i in indexes)


def _capped(lines: list[str]) -> tuple[str, ...]:
    if len(lines) <= MAX_LINES:
        return tuple(lines)
    return (*lines[:MAX_LINES], f"… and {len(lines) - MAX_LINES} more")

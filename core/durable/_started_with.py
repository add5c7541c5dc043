"""What a durable run started with, so that a resume refuses a run whose plan or tools changed
since, saying what changed: its finished steps were made by the plan and the tools as they were;
carried on with others, the rest would run other code (or repeat, without asking, a step whose
tool now says it only reads).

- The plan: a run keeps the plan it runs beside the plan version it was started from (versions
  never change); the two must still be the same.
- The tools: the run's workflow records, as its first durable operation, each tool the plan
  calls as it was then (description, parameters, result, effects), in DBOS (``set_event``,
  kept with the workflow and not written again when DBOS replays it).
"""

from __future__ import annotations

from typing import Any

from ..plan._diff import diff_plans
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry

__all__ = ["record_tools", "what_changed"]

_TOOLS_EVENT = "plan-studio:tools"
_FIELDS = (("description", "description"), ("parameters", "parameters"), ("returns", "result"))


def _tools_of(plan: Plan, registry: ToolRegistry) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(step.tool for step in plan.steps):
        if name in registry:
            tool = registry.get(name)
            out[name] = {"description": tool.description, "parameters": tool.parameters,
                         "returns": tool.returns, "effects": tool.effects.label}
    return out


def record_tools(plan: Plan, registry: ToolRegistry) -> None:
    """Inside the run's workflow: keep the plan's tools as they are now."""
    from dbos import DBOS

    DBOS.set_event(_TOOLS_EVENT, _tools_of(plan, registry))


def what_changed(store: Any, run_id: str, plan: Plan, registry: ToolRegistry) -> list[str]:
    """What changed since run ``run_id`` (whose stored plan is ``plan``) started, one phrase
    each; empty when nothing did."""
    from dbos import DBOS

    changes: list[str] = []
    plan_id, version = store.records.where(run_id)
    started = store.load_plan(plan_id, version)
    diff = diff_plans(started, plan, match_new_ids=False)
    if not diff.is_empty:
        changes.append("its plan changed since it started: " + "; ".join(diff.summary().splitlines()))
    then = DBOS.get_event(run_id, _TOOLS_EVENT, timeout_seconds=0) or {}
    now = _tools_of(plan, registry)
    for name, was in then.items():
        if name not in now:
            changes.append(f"{name}: the tool is gone")
            continue
        changes += [f"{name}: its {word} changed" for key, word in _FIELDS if was.get(key) != now[name][key]]
        if was.get("effects") != now[name]["effects"]:
            changes.append(f"{name}: its effects changed ({was.get('effects')} → {now[name]['effects']})")
    return changes

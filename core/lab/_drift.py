"""Drift: a tool's description or schema changed since the studio last looked (a ``--tools`` file
edited, an MCP server updated), and the saved plans whose goals would now be planned otherwise.

The studio remembers one fingerprint per tool (``tool_fingerprints``: a hash of the definition
as MCP lists it: name, description, schemas, annotations); ``drift_report`` compares them with
the tools as they are now and re-plans the goal of every saved plan that uses a changed tool.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import Mapping

from .._errors import PlanStudioError
from .._limits import shown
from ..tooling._registry import ToolRegistry
from ._compare import match_expected, step_summaries
from ._library import Library
from ._runner import PlannerFactory

__all__ = ["DriftItem", "DriftReport", "drift_report", "tool_fingerprints"]


def tool_fingerprints(registry: ToolRegistry) -> dict[str, str]:
    """A hash of each tool's definition, by name."""
    return {tool.name: hashlib.sha256(json.dumps(tool.definition.as_json(), sort_keys=True, ensure_ascii=False)
                                      .encode("utf-8", "backslashreplace")).hexdigest()[:32]
            for tool in registry}


@dataclass(frozen=True)
class DriftItem:
    plan_id: str
    version: int
    goal: str
    tools: tuple[str, ...]  # the changed tools the saved plan uses
    differs: bool
    changes: tuple[str, ...] = ()  # how the plan made now differs from the saved one
    error: str | None = None  # why no plan could be made now


@dataclass(frozen=True)
class DriftReport:
    changed_tools: tuple[str, ...]
    added_tools: tuple[str, ...]
    removed_tools: tuple[str, ...]
    items: tuple[DriftItem, ...]
    checked_plans: int

    @property
    def differing(self) -> tuple[DriftItem, ...]:
        return tuple(item for item in self.items if item.differs)


def drift_report(store: Library, registry: ToolRegistry, last_seen: Mapping[str, str],
                 planner_for: PlannerFactory, *, today: dt.date, limit: int = 500) -> DriftReport:
    """What changed in ``registry`` since ``last_seen``, and the latest ``limit`` saved plans using
    a changed tool, each re-planned from its goal and compared with its latest version."""
    now = tool_fingerprints(registry)
    changed = tuple(name for name, digest in now.items() if name in last_seen and last_seen[name] != digest)
    added = tuple(name for name in now if name not in last_seen)
    removed = tuple(name for name in last_seen if name not in now)
    items: list[DriftItem] = []
    checked = 0
    if changed:
        planner = planner_for(registry)
        for summary in store.list_plans(limit=limit):
            checked += 1
            saved = store.load_plan(summary.id)
            uses = tuple(dict.fromkeys(s.tool for s in saved.steps if s.tool in changed))
            if not uses:
                continue
            try:
                plan = planner.plan(saved.goal, today=today)
            except PlanStudioError as exc:
                items.append(DriftItem(summary.id, summary.latest_version, saved.goal, uses, True,
                                       error=shown(str(exc), 400)))
                continue
            match = match_expected(step_summaries(saved, registry), step_summaries(plan, registry))
            items.append(DriftItem(summary.id, summary.latest_version, saved.goal, uses, not match.exact,
                                   match.differences))
    return DriftReport(changed, added, removed, tuple(items), checked)

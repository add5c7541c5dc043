"""An experiment: which tools' words are edited and how, the goals to re-plan, the planner.

Kept as JSON (``as_json`` / ``from_json``) so the store holds it whole, as it holds a plan.
Expected plans are kept in native JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from ..plan._model import Plan
from ..tooling._overrides import ToolOverride, overrides_from_json

__all__ = ["Experiment", "LabGoal", "LabPlanner"]

LabPlanner = Literal["embedded", "llm"]


@dataclass(frozen=True)
class LabGoal:
    """One goal of a goal set, with the plan it should give when that is known."""

    goal: str
    expected: Plan | None = None
    source: str = ""  # where it came from, for people: "typed", "plan 3f2a v2", "goals.jsonl line 4"

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"goal": self.goal}
        if self.expected is not None:
            data["expected"] = self.expected.model_dump(mode="json")
        if self.source:
            data["source"] = self.source
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "LabGoal":
        expected = data.get("expected")
        return cls(str(data["goal"]), None if expected is None else Plan.model_validate(expected),
                   str(data.get("source") or ""))


@dataclass(frozen=True)
class Experiment:
    name: str = "Untitled experiment"
    tools: tuple[str, ...] = ()  # the tools picked for editing, in the order picked
    overrides: Mapping[str, ToolOverride] = field(default_factory=dict)
    goals: list[LabGoal] = field(default_factory=list)
    planner: LabPlanner = "embedded"

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "planner": self.planner, "tools": list(self.tools),
                "overrides": {name: o.as_json() for name, o in self.overrides.items() if not o.is_empty},
                "goals": [g.as_json() for g in self.goals]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Experiment":
        planner = data.get("planner", "embedded")
        return cls(name=str(data.get("name") or "Untitled experiment"), tools=tuple(data.get("tools") or ()),
                   overrides=overrides_from_json(data.get("overrides") or {}),
                   goals=[LabGoal.from_json(g) for g in data.get("goals") or []],
                   planner="llm" if planner == "llm" else "embedded")

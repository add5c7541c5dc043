"""The Lab page's work in this browser session: the experiment being edited, where it was saved,
its run, and the notices the page shows. Widgets are keyed ``lab.<revision>.…``: opening an
experiment (or a new one) moves to a new revision, so every field shows the words it brought
instead of what the browser kept under the old key.

The experiment is read from the widgets (``current_experiment``): the tools picked, each picked
tool's fields (an override is what differs from the tool's own words), the goal set, the planner.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from core import Tool, ToolOverride, ToolRegistry
from core.lab import Experiment, LabGoal

from ...workbench._lab_run import LabRun

__all__ = ["LabWork", "current_experiment", "field_text", "key", "lab_work", "open_experiment", "own_text"]

_WORK = "lab.work"


@dataclass
class LabWork:
    name: str = "Untitled experiment"
    tools: list[str] = field(default_factory=list)
    overrides: dict[str, ToolOverride] = field(default_factory=dict)  # what the fields start from
    goals: list[LabGoal] = field(default_factory=list)
    planner: str = "embedded"
    saved_id: str | None = None
    saved_version: int | None = None
    revision: int = 0
    run: LabRun | None = None
    conflict: str | None = None  # why the last save was refused; the work stays as it is
    goal_problems: list[str] = field(default_factory=list)
    notice: str | None = None


def lab_work() -> LabWork:
    if _WORK not in st.session_state:
        st.session_state[_WORK] = LabWork()
    return st.session_state[_WORK]


def key(work: LabWork, part: str) -> str:
    """The widget key of ``part`` in the work's current revision."""
    return f"lab.{work.revision}.{part}"


def open_experiment(experiment: Experiment, *, saved_id: str | None, saved_version: int | None) -> None:
    """Make ``experiment`` the work of this session; the fields start from its words."""
    old = lab_work()
    if old.run is not None:
        old.run.stop()
    st.session_state[_WORK] = LabWork(name=experiment.name, tools=list(experiment.tools),
                                      overrides=dict(experiment.overrides), goals=list(experiment.goals),
                                      planner=experiment.planner, saved_id=saved_id, saved_version=saved_version,
                                      revision=old.revision + 1)


def own_text(tool: Tool, part: str) -> str:
    """The tool's own words for ``part`` ("description" or "param.<name>")."""
    if part == "description":
        return tool.description
    schema = (tool.parameters.get("properties") or {}).get(part.removeprefix("param."), {})
    return str(schema.get("description") or "") if isinstance(schema, dict) else ""


def field_text(work: LabWork, tool: Tool, part: str) -> str:
    """What the field shows first: the experiment's override, else the tool's own words."""
    override = work.overrides.get(tool.name)
    if override is not None:
        if part == "description" and override.description is not None:
            return override.description
        if part.startswith("param.") and part.removeprefix("param.") in override.params:
            return override.params[part.removeprefix("param.")]
    return own_text(tool, part)


def current_experiment(work: LabWork, registry: ToolRegistry) -> Experiment:
    state = st.session_state
    tools = [t for t in state.get(key(work, "tools"), work.tools) if t in registry]
    overrides: dict[str, ToolOverride] = {}
    for name in tools:
        tool = registry.get(name)
        description = state.get(key(work, f"edit.{name}.description"), field_text(work, tool, "description"))
        params = {}
        for param in tool.param_names:
            text = state.get(key(work, f"edit.{name}.param.{param}"), field_text(work, tool, f"param.{param}"))
            if text != own_text(tool, f"param.{param}"):
                params[param] = text
        override = ToolOverride(None if description == tool.description else description, params)
        if not override.is_empty:
            overrides[name] = override
    planner = state.get(key(work, "planner"), work.planner)
    return Experiment(name=str(state.get(key(work, "name"), work.name)).strip() or "Untitled experiment",
                      tools=tuple(tools), overrides=overrides, goals=list(work.goals),
                      planner="llm" if planner == "llm" else "embedded")

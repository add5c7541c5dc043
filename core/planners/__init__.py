"""Planners turn a goal into a plan: the offline embedded planner and the LLM planner.

Planners are plugins (Semantic Kernel's "planners as plugins"): each is a ``PlannerSpec``
given through the ``planners`` hook (``core.hooks``), the built-in two included
(``_plugin``); ``make_planner`` builds the one the ``planner`` setting names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..tooling._registry import ToolRegistry
from .. import hooks
from .._errors import PlannerError
from .._settings import Settings
from ._base import ObservedPlanner, PlanContext, Planner, PlannerSpec
from .embedded._planner import MAX_GOAL_LENGTH, EmbeddedPlanner
from .embedded._notices import planner_notices
from .embedded._starters import ExampleGoal, example_goals, first_sentence
from .embedded._unread import unread_notice
from .llm._planner import LLMPlanner
from ._manual import render_manual
from ._planner_log import log_lines, planner_log

if TYPE_CHECKING:  # pragma: no cover
    from ..llm import ModelClient

__all__ = ["MAX_GOAL_LENGTH", "EmbeddedPlanner", "LLMPlanner", "PlanContext", "Planner", "PlannerSpec",
           "ObservedPlanner", "make_planner", "planner_specs",
           "ExampleGoal", "example_goals", "first_sentence", "planner_notices", "render_manual", "unread_notice", "planner_log", "log_lines"]


def planner_specs() -> dict[str, PlannerSpec]:
    """Every registered planner by name, the built-in ones first."""
    return hooks.planners()


def make_planner(settings: Settings, registry: ToolRegistry, client: "ModelClient | None" = None) -> Planner:
    """The planner ``settings.planner`` names, among the registered ones; its plans are told
    to the plugins. An unknown name is a ``PlannerError`` listing the known ones."""
    specs = planner_specs()
    spec = specs.get(settings.planner)
    if spec is None:
        raise PlannerError(f"no planner is named {settings.planner!r}; the planners are: {', '.join(specs)}")
    return ObservedPlanner(spec.make(settings, registry, client))

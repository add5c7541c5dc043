"""Planners turn a goal into a plan: the offline embedded planner and the LLM planner."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..tooling._registry import ToolRegistry
from .._settings import Settings
from ._base import PlanContext, Planner
from .embedded._planner import MAX_GOAL_LENGTH, EmbeddedPlanner
from .embedded._notices import planner_notices
from .embedded._unread import unread_notice
from .llm._planner import LLMPlanner
from ._manual import render_manual
from ._planner_log import log_lines, planner_log

if TYPE_CHECKING:  # pragma: no cover
    from ..llm import ModelClient

__all__ = ["MAX_GOAL_LENGTH", "EmbeddedPlanner", "LLMPlanner", "PlanContext", "Planner", "make_planner",
           "planner_notices", "render_manual", "unread_notice", "planner_log", "log_lines"]


def make_planner(settings: Settings, registry: ToolRegistry, client: "ModelClient | None" = None) -> Planner:
    """The planner ``settings.planner`` names: "embedded" (offline) or "llm"."""
    if settings.planner == "embedded":
        return EmbeddedPlanner(registry)
    return LLMPlanner(registry, settings, client=client)

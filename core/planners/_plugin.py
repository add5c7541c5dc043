"""The built-in planners, given through the same hook as a third party's (``core.hooks``)."""

from __future__ import annotations

from ..hooks import hookimpl
from ._base import PlannerSpec
from .embedded._planner import EmbeddedPlanner
from .llm._planner import LLMPlanner

BUILTIN_PLANNERS = (
    PlannerSpec("embedded", "Embedded (offline)", lambda settings, registry, client: EmbeddedPlanner(registry),
                "offline rules from the tool registry, no model needed"),
    PlannerSpec("llm", "LLM (model endpoint)",
                lambda settings, registry, client: LLMPlanner(registry, settings, client=client),
                "a chat model writes the plan (OPENAI_API_KEY / OPENAI_BASE_URL)"),
)


@hookimpl
def planners() -> list[PlannerSpec]:
    return list(BUILTIN_PLANNERS)

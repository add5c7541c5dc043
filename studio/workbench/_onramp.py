"""Example goals for the empty Plan page, from the tools this studio has loaded.

The examples come from the tools' own descriptions and parameters (``core.planners.example_goals``),
whichever tools are loaded, the user's own included; each is one the embedded planner reads,
so a click on one makes a plan offline too.
"""

from __future__ import annotations

from core.planners import ExampleGoal, example_goals as _example_goals

from ._services import Services

__all__ = ["example_goals"]


def example_goals(services: Services, limit: int = 3) -> list[ExampleGoal]:
    """Up to ``limit`` example goals for ``services``' tools, dated by its today."""
    return _example_goals(services.registry, today=services.settings.effective_today(), limit=limit)

"""Example goals for the empty Plan page, from the tools this studio has loaded.

The examples come from the tools' own descriptions and parameters (``core.planners.example_goals``),
whichever tools are loaded, the user's own included; each is one the embedded planner reads,
so a click on one makes a plan offline too.
"""

from __future__ import annotations

import threading
import weakref

from core import ToolRegistry
from core.planners import ExampleGoal, example_goals as _example_goals

from ._services import Services

__all__ = ["example_goals"]


# Worked out once per tool set and day, for every session and tab: planning them is most of what
# an empty Plan page costs (a registry is kept while its services are, so the cache ends with them).
_KEPT: weakref.WeakKeyDictionary[ToolRegistry, tuple[object, int, list[ExampleGoal]]] = weakref.WeakKeyDictionary()
_KEPT_LOCK = threading.Lock()


def example_goals(services: Services, limit: int = 3) -> list[ExampleGoal]:
    """Up to ``limit`` example goals for ``services``' tools, dated by its today."""
    today = services.settings.effective_today()
    with _KEPT_LOCK:
        kept = _KEPT.get(services.registry)
    if kept is not None and kept[:2] == (today, limit):
        return list(kept[2])
    examples = _example_goals(services.registry, today=today, limit=limit)
    with _KEPT_LOCK:
        _KEPT[services.registry] = (today, limit, examples)
    return list(examples)

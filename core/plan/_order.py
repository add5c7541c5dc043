"""The order a plan's steps run in, and whether it has a cycle, by stdlib ``graphlib``.

networkx takes the command line ~0.5 s to import; the validator asks it only to report a cycle
this module found (which steps, and a shortest way round).
"""

from __future__ import annotations

import graphlib
import heapq

from ._model import Plan

__all__ = ["run_order", "has_cycle"]


def _sorter(plan: Plan) -> graphlib.TopologicalSorter[str]:
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for step in plan.steps:
        sorter.add(step.id)
    for before, after in plan.edges():
        sorter.add(after, before)
    return sorter


def run_order(plan: Plan) -> list[str]:
    """Step ids, each after the steps it needs; of the steps ready at once, the one earliest in
    the plan first. Raises ``graphlib.CycleError`` for a plan with a cycle."""
    position = {s.id: n for n, s in enumerate(plan.steps)}
    sorter = _sorter(plan)
    sorter.prepare()
    ready = [(position[i], i) for i in sorter.get_ready()]
    heapq.heapify(ready)
    order = []
    while ready:
        _, step_id = heapq.heappop(ready)
        order.append(step_id)
        sorter.done(step_id)
        for became_ready in sorter.get_ready():
            heapq.heappush(ready, (position[became_ready], became_ready))
    return order


def has_cycle(plan: Plan) -> bool:
    position = {s.id: n for n, s in enumerate(plan.steps)}
    edges = plan.edges()
    if all(position[before] < position[after] for before, after in edges):
        return False  # every step needs only earlier ones (most plans): no sort needed to know
    try:
        _sorter(plan).prepare()
    except graphlib.CycleError:
        return True
    return False

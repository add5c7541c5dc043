"""A plan's run order comes from stdlib graphlib; networkx is left for reporting a cycle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from core import Executor
from core.formats import plan_from_seed

from toy_tools import toy_registry

ROOT = Path(__file__).resolve().parents[2]
executor = Executor(toy_registry())


@st.composite
def dags(draw: st.DrawFn) -> dict:
    """A seed plan whose steps depend on any steps (earlier or later) without a cycle."""
    size = draw(st.integers(1, 12))
    rank = draw(st.permutations(range(size)))  # a hidden order the dependencies follow
    steps = []
    for n in range(size):
        before = [m for m in range(size) if rank[m] < rank[n]]
        depends = draw(st.lists(st.sampled_from(before), unique=True)) if before else []
        steps.append({"tool": "sites_list", "params": {}, "depends_on": depends})
    return {"steps": steps}


@settings(max_examples=150, deadline=None)
@given(dags())
def test_the_order_is_the_earliest_ready_step_first(seed: dict) -> None:
    plan = plan_from_seed(seed)
    graph = nx.DiGraph(plan.edges())
    graph.add_nodes_from(s.id for s in plan.steps)
    position = {s.id: n for n, s in enumerate(plan.steps)}
    assert executor.order(plan) == list(nx.lexicographical_topological_sort(graph, key=position.__getitem__))


def test_checking_and_ordering_a_plan_without_a_cycle_does_not_load_networkx() -> None:
    script = """
import sys
sys.path.insert(0, "tests")
from core import Executor
from core.formats import plan_from_seed
from toy_tools import toy_registry
plan = plan_from_seed({"steps": [{"tool": "visits_list", "params": {"site_id": "S9"}, "depends_on": [1]},
                                 {"tool": "sites_list", "params": {}}]})
executor = Executor(toy_registry())
run = executor.start(plan)
list(executor.run_all(run))
print(executor.order(plan), run.status, "networkx" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.split("\n")[0] == "['s2', 's1'] succeeded False", done.stderr


def test_a_cycle_is_still_reported_by_its_steps() -> None:
    plan = plan_from_seed({"steps": [{"tool": "sites_list", "params": {}, "depends_on": [1]},
                                     {"tool": "sites_list", "params": {}, "depends_on": [0]}]})
    messages = [p.message for p in executor.validator.validate(plan)]
    assert any(m.startswith("dependency cycle: step 0 (sites_list) → step 1 (sites_list) → step 0") for m in messages)

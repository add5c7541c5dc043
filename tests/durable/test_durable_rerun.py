"""Retry a failed step, rerun from any step: a new run linked to the one it came from, reusing
the recorded results of every step that does not depend on the chosen one (the plan's graph,
not "everything after it in the list"); which steps run again is known before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import Plan, Step, ToolRegistry
from core.durable import DurableRuns, rerun_choice
from core.storage import PlanStore

pytestmark = pytest.mark.usefixtures("stop_durable_runs")


def _tools(calls: list[str], failing: set[str]) -> ToolRegistry:
    tools = ToolRegistry()

    @tools.register
    def work(name: str, value: int) -> int:
        """Do some work.

        Args:
            name: The step's name.
            value: A number.
        """
        calls.append(name)
        if name in failing:
            raise RuntimeError(f"{name} broke")
        return value + 1

    return tools


# a -> b -> d,  a -> c (independent of b),  e (alone); in list order: a b c d e
PLAN = Plan(goal="graph", steps=[
    Step(id="a", tool="work", params={"name": "a", "value": 0}),
    Step(id="b", tool="work", params={"name": "b", "value": "${step[0]}"}),
    Step(id="c", tool="work", params={"name": "c", "value": "${step[0]}"}),
    Step(id="d", tool="work", params={"name": "d", "value": "${step[1]}"}),
    Step(id="e", tool="work", params={"name": "e", "value": 10}),
])


@pytest.fixture
def store(store_location: str | Path):
    with PlanStore(store_location) as opened:
        yield opened


def test_rerun_from_a_step_runs_it_and_its_dependants_only_and_links_the_new_run(store: PlanStore) -> None:
    calls: list[str] = []
    runs = DurableRuns(store, _tools(calls, set()))
    parent = runs.run(PLAN)
    calls.clear()
    choice = rerun_choice(parent, from_step="b", registry=runs.registry)
    assert choice.again == ["b", "d"] and sorted(choice.reused) == ["a", "c", "e"]  # c and e come after b
    assert choice.describe() == ["reuse      step 0 (work) [a]",
                                 "run again  step 1 (work) [b]  (writes: its effect happens again)",
                                 "reuse      step 2 (work) [c]",
                                 "run again  step 3 (work) [d]  (writes: its effect happens again)",
                                 "reuse      step 4 (work) [e]"]
    plan_id, version = store.records.where(parent.id)
    child_id = runs.start(parent.plan, plan_id=plan_id, version=version, parent_id=parent.id,
                          rerun_from=choice.start, seeded=choice.reused)
    child = runs.execute(child_id)
    assert sorted(calls) == ["b", "d"]
    assert {s.step_id: s.result for s in child.steps.values()} == {"a": 1, "b": 2, "c": 2, "d": 3, "e": 11}
    assert store.records.lineage(child_id) == (parent.id, "b")
    assert [(r.id, r.parent_id) for r in store.records.recent()] == [(child_id, parent.id), (parent.id, None)]


def test_retry_runs_the_failed_step_and_what_it_had_skipped(store: PlanStore) -> None:
    calls: list[str] = []
    failing = {"b"}
    runs = DurableRuns(store, _tools(calls, failing))
    parent = runs.run(PLAN)
    assert [parent.steps[s].status.value for s in "abcde"] == ["succeeded", "failed", "succeeded", "skipped", "succeeded"]
    failing.clear()
    calls.clear()
    choice = rerun_choice(parent, retry=True, registry=runs.registry)
    assert choice.again == ["b", "d"]
    plan_id, version = store.records.where(parent.id)
    child = runs.execute(runs.start(parent.plan, plan_id=plan_id, version=version, parent_id=parent.id,
                                    rerun_from=choice.start, seeded=choice.reused))
    assert sorted(calls) == ["b", "d"] and child.status == "succeeded"


def test_a_step_that_is_not_in_the_run_is_refused_by_name(store: PlanStore) -> None:
    runs = DurableRuns(store, _tools([], set()))
    parent = runs.run(PLAN)
    with pytest.raises(Exception, match="has no step 'zz'"):
        rerun_choice(parent, from_step="zz")
    with pytest.raises(Exception, match="no failed step to retry"):
        rerun_choice(parent, retry=True)

"""Tools that misbehave, in DURABLE runs, on SQLite and on PostgreSQL: a tool that hangs forever
(timed out), one raising ``KeyboardInterrupt`` or ``SystemExit`` inside, one whose result is not
JSON, an ``async def`` tool, and a run of 1,000 steps. Each bad step ends ``failed`` with an
error naming the tool and what went wrong, recorded in the store as such (not "interrupted",
which a resume would call again), and the rest of the run goes on.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from core import Plan, RunLimits, Settings, Step, StepStatus, ToolRegistry
from core.durable import DurableRuns
from core.formats import plan_from_seed
from core.storage import PlanStore
from app.test_tool_misbehaviour import MISBEHAVING, MISBEHAVIOURS, registry_of

pytestmark = pytest.mark.usefixtures("stop_durable_runs")

LIVENESS = 20.0


@pytest.fixture
def store(store_location: str | Path):
    with PlanStore(store_location) as opened:
        yield opened


@pytest.fixture
def tools(tmp_path: Path) -> ToolRegistry:
    path = tmp_path / "misbehaving.py"
    path.write_text(MISBEHAVING, encoding="utf-8")
    return registry_of(path)


def _module_of(registry: ToolRegistry, tool: str):
    return sys.modules[registry.get(tool).runner.func.__module__]


@pytest.mark.parametrize(("tool", "params", "error"), MISBEHAVIOURS, ids=[m[0] for m in MISBEHAVIOURS])
def test_a_misbehaving_tool_fails_its_step_in_a_durable_run_and_is_stored_so(
        store: PlanStore, tools: ToolRegistry, tool: str, params: dict, error: str) -> None:
    plan = plan_from_seed({"steps": [{"tool": tool, "params": params},
                                     {"tool": "echo", "params": {"text": "needs it"}, "depends_on": [0]},
                                     {"tool": "slow_echo", "params": {"text": "independent"}}]})
    runs = DurableRuns(store, tools)
    run = runs.run(plan)
    stored = store.load_run(run.id)
    bad, dependant, independent = (stored.steps[s.id] for s in stored.plan.steps)
    assert (bad.status, bad.error, bad.result) == (StepStatus.failed, error, None)
    assert bad.arguments == params
    assert dependant.status == StepStatus.skipped and independent.result == "independent"
    assert stored.status == "failed" and store.records.recent(1)[0].status == "failed"
    # Failed is finished: a resume calls nothing again.
    effects = list(_module_of(tools, tool).SIDE_EFFECTS)
    assert runs.resume(run.id).status == "failed"
    assert _module_of(tools, tool).SIDE_EFFECTS == effects


def test_an_async_tool_is_awaited_in_a_durable_run(store: PlanStore, tools: ToolRegistry) -> None:
    plan = plan_from_seed({"steps": [{"tool": "slow_echo", "params": {"text": "hi"}},
                                     {"tool": "slow_echo", "params": {"text": "${step[0]} again"}, "depends_on": [0]},
                                     {"tool": "async_failure", "params": {"text": "me"}}]})
    run = DurableRuns(store, tools).run(plan)
    stored = store.load_run(run.id)
    first, second, failure = (stored.steps[s.id] for s in stored.plan.steps)
    assert (first.result, second.result) == ("hi", "hi again")
    assert failure.status == StepStatus.failed and failure.error == "async_failure failed: no luck with me"


def test_a_tool_that_hangs_forever_times_out_in_a_durable_run_and_the_run_goes_on(store: PlanStore) -> None:
    tools = ToolRegistry()
    never = threading.Event()

    @tools.register(effects="read-only")
    def hangs(label: str) -> str:
        """Never answers.

        Args:
            label: Unused.
        """
        never.wait()
        return label

    @tools.register(effects="read-only")
    def echo(label: str) -> str:
        """Say it back.

        Args:
            label: Returned.
        """
        return label

    limits = RunLimits.from_settings(Settings(tool_timeout=900, tool_timeouts={"hangs": 0.2}))
    plan = Plan(goal="hang", steps=[Step(id="h", tool="hangs", params={"label": "x"}),
                                    Step(id="d", tool="echo", params={"label": "${steps.h}"}),
                                    Step(id="i", tool="echo", params={"label": "independent"})])
    began = time.monotonic()
    try:
        run = DurableRuns(store, tools, limits=limits).run(plan)
    finally:
        never.set()  # let the abandoned thread go
    assert time.monotonic() - began < LIVENESS
    stored = store.load_run(run.id)
    assert stored.steps["h"].status == StepStatus.failed and stored.steps["h"].error == "hangs timed out after 0.2 s"
    assert stored.steps["d"].status == StepStatus.skipped and stored.steps["i"].result == "independent"
    assert stored.status == "failed"


@pytest.mark.parametrize("shape", ["chain", "fan-out"])
def test_a_durable_run_of_1000_steps_finishes_with_every_step_stored(store: PlanStore, shape: str) -> None:
    from test_parallel_runs import big_plan, noop_registry

    began = time.monotonic()
    run = DurableRuns(store, noop_registry()).run(big_plan(shape, 1_000))
    assert time.monotonic() - began < 60  # a liveness bound; the figures are in benchmarks/
    stored = store.load_run(run.id)
    assert stored.status == "succeeded" and stored.counts() == {"succeeded": 1_000}
    assert stored.steps["s999"].result == (0 if shape == "chain" else 999)

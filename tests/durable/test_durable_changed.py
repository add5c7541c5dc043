"""A resume of a durable run whose plan or tools changed since it started is refused, saying
what changed: its finished steps were made by the plan and the tools as they were, and the rest
would run other code (or repeat a step whose tool now writes without asking)."""

from __future__ import annotations

from pathlib import Path

import pytest

import durable_child
from core import PlanStudioError, ToolRegistry
from core.durable import DurableRuns
from core.storage import PlanStore

pytestmark = pytest.mark.usefixtures("stop_durable_runs")



@pytest.fixture
def store(store_location: str | Path):
    with PlanStore(store_location) as opened:
        yield opened


def _killed_mid_run(location: str | Path, log: Path, tmp_path: Path) -> str:
    """A ``chain`` run in a forked process, SIGKILLed while its step c3 runs; the run id."""
    from test_durable_runs import _run_and_kill_after

    return _run_and_kill_after("start c3", location, log, tmp_path / "out", shape="reads")


def _changed_registry(log: Path, change: str) -> ToolRegistry:
    """The tools of ``durable_child`` with ``fetch`` changed as ``change`` says."""
    import dataclasses

    from core.tooling._definition import effects_of

    tools = durable_child.registry(log)
    fetch = tools.get("fetch")
    definition = fetch.definition
    if change == "description":
        definition = dataclasses.replace(definition, description="Read a number from somewhere else.")
    elif change == "schema":
        schema = {**definition.input_schema, "properties": {**definition.input_schema["properties"],
                                                            "scale": {"type": "integer"}}}
        definition = dataclasses.replace(definition, input_schema=schema)
    elif change == "effects":
        definition = dataclasses.replace(definition, effects=effects_of("destructive"))
    fetch.definition = definition
    return tools


@pytest.mark.parametrize(("change", "said"), [
    ("description", "fetch: its description changed"),
    ("schema", "fetch: its parameters changed"),
    ("effects", "fetch: its effects changed (read-only → writes, destructive)"),
])
def test_a_run_whose_tool_changed_since_is_not_resumed_and_says_what_changed(
        store: PlanStore, store_location: str | Path, tmp_path: Path, change: str, said: str) -> None:
    log = tmp_path / "calls.log"
    run_id = _killed_mid_run(store_location, log, tmp_path)
    calls = log.read_text().splitlines()
    with pytest.raises(PlanStudioError, match=f"run '{run_id}' cannot go on: .*") as refused:
        DurableRuns(store, _changed_registry(log, change)).resume(run_id)
    assert said in str(refused.value)
    assert log.read_text().splitlines() == calls  # nothing ran
    # With the tools as they were, it goes on.
    assert DurableRuns(store, durable_child.registry(log)).resume(run_id).status == "succeeded"


def test_a_run_whose_tool_is_gone_is_not_resumed(store: PlanStore, store_location: str | Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    run_id = _killed_mid_run(store_location, log, tmp_path)
    with pytest.raises(PlanStudioError, match=f"run '{run_id}' cannot go on: .*fetch"):
        DurableRuns(store, ToolRegistry()).resume(run_id)


def test_a_run_whose_plan_changed_since_is_not_resumed_and_says_what_changed(
        store: PlanStore, store_location: str | Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    run_id = _killed_mid_run(store_location, log, tmp_path)
    calls = log.read_text().splitlines()
    run = store.load_run(run_id)
    plan_id, version = store.records.where(run_id)
    edited = run.plan.model_copy(deep=True)
    edited.steps[5].params["value"] = 100  # someone saved the run with an edited plan
    run.plan = edited
    store.save_run(run, plan_id=plan_id, version=version)
    with pytest.raises(PlanStudioError, match=f"run '{run_id}' cannot go on: its plan changed since it started") as refused:
        DurableRuns(store, durable_child.registry(log)).resume(run_id)
    assert "fetch · c5: value: '${steps.c4}' → 100" in str(refused.value)
    assert log.read_text().splitlines() == calls  # nothing ran

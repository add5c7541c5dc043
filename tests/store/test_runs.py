"""Runs that are cut off, resumed, run by a background worker, stopped and stored.

A run must never spin, never skip a step, never run a step before the steps it needs, and a
step left ``running`` with no live worker is ``interrupted`` and runs again.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import BackgroundRun, Event, Executor, Plan, Run, StepStatus, ToolRegistry
from core.formats import plan_from_seed
from core.storage import PlanStore

from toy_tools import toy_registry

INTERRUPTED = StepStatus.interrupted


def one_at_a_time(registry: ToolRegistry, **options) -> Executor:
    """These tests say which steps ran before a run was cut off: one step at a time makes that
    certain (steps in run order), where a parallel run also starts the independent ones."""
    return Executor(registry, max_parallel=1, **options)


class Gate:
    """A tool that waits until the test opens it, so a run can be caught mid-step."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()
        self.calls = 0

    def register(self, registry: ToolRegistry) -> None:
        gate = self

        @registry.register
        def wait_for_gate(label: str = "") -> dict:
            """Wait until the test lets the step finish.

            Args:
                label: Carried into the result.
            """
            gate.calls += 1
            gate.entered.set()
            assert gate.opened.wait(30), "the test never opened the gate"
            return {"label": label, "call": gate.calls}


def calls_recorded() -> tuple[ToolRegistry, list[str]]:
    """The toy tools plus ``note``, which records the order steps really ran in."""
    registry = toy_registry()
    ran: list[str] = []

    @registry.register
    def note(label: str) -> dict:
        """Record that this step ran.

        Args:
            label: What to record.
        """
        ran.append(label)
        return {"label": label}

    return registry, ran


def chain_plan() -> Plan:
    """a → b → c, and d on its own."""
    return plan_from_seed({"steps": [
        {"tool": "note", "params": {"label": "a"}},
        {"tool": "note", "params": {"label": "b ${step[0].label}"}},
        {"tool": "note", "params": {"label": "c ${step[1].label}"}},
        {"tool": "note", "params": {"label": "d"}},
    ]})


def until(events: Iterator[Event], kind: str, step_id: str) -> Event:
    for event in events:
        if event.type == kind and event.step_id == step_id:
            return event
    raise AssertionError(f"no {kind} event for {step_id}")


def starts(events: list[Event]) -> list[str]:
    return [e.step_id for e in events if e.type == "plan_step_start"]


# -- a consumer that walks away mid-step ---------------------------------------------------------

@pytest.mark.parametrize("cut_at", ["plan_step_start", "tool_call"])
def test_an_abandoned_run_marks_its_step_interrupted_with_no_partial_result(cut_at: str) -> None:
    registry, ran = calls_recorded()
    executor = one_at_a_time(registry)
    run = executor.start(chain_plan())
    events = executor.run_all(run)
    until(events, cut_at, "s2")
    events.close()  # what Streamlit does to the page's loop when a click stops the script

    step = run.steps["s2"]
    assert step.status == INTERRUPTED and "interrupted" in (step.error or "")
    assert step.result is None and step.arguments is None and step.duration_ms is None
    assert run.steps["s3"].status == StepStatus.pending
    assert run.status == "interrupted" and not run.finished
    assert ran == ["a"]


def test_an_interrupted_step_runs_again_before_the_steps_that_need_it() -> None:
    registry, ran = calls_recorded()
    executor = one_at_a_time(registry)
    run = executor.start(chain_plan())
    events = executor.run_all(run)
    until(events, "tool_call", "s2")
    events.close()

    resumed = list(executor.run_all(run))
    assert starts(resumed) == ["s2", "s3", "s4"]
    assert ran == ["a", "b a", "c b a", "d"]
    assert run.status == "succeeded"
    assert all(s.status == StepStatus.succeeded and s.error is None for s in run.steps.values())


def test_run_next_resumes_an_interrupted_step_first() -> None:
    registry, ran = calls_recorded()
    executor = one_at_a_time(registry)
    run = executor.start(chain_plan())
    events = executor.run_next(run)
    until(events, "tool_call", "s1")
    events.close()
    assert run.steps["s1"].status == INTERRUPTED

    assert starts(list(executor.run_next(run))) == ["s1"]
    assert run.steps["s1"].status == StepStatus.succeeded and ran == ["a"]


def test_an_abandoned_generator_closed_late_leaves_a_step_taken_over_alone() -> None:
    """A stale generator (closed by the garbage collector, say) must not undo a later run."""
    registry, _ = calls_recorded()
    executor = one_at_a_time(registry)
    run = executor.start(chain_plan())
    stale = executor.run_all(run)
    until(stale, "tool_call", "s1")
    run.steps["s1"].worker = None  # as if this worker had died without closing its generator
    assert run.status == "running"

    assert run.steps["s1"].status == StepStatus.running
    for _ in executor.run_all(run):
        pass
    assert run.status == "succeeded"
    stale.close()
    assert run.steps["s1"].status == StepStatus.succeeded


# -- a step held by a live worker ----------------------------------------------------------------

def test_a_step_held_by_a_live_worker_is_waited_for_and_the_run_does_not_spin() -> None:
    registry, ran = calls_recorded()
    executor = one_at_a_time(registry)
    run = executor.start(chain_plan())
    owner = executor.run_all(run)
    until(owner, "tool_call", "s1")  # s1 is running, its worker suspended but alive

    # Another pass over the same run: it may run d (needs nothing) but never b or c, nor a again.
    other = list(executor.run_all(run))
    assert starts(other) == ["s4"]
    assert run.steps["s1"].status == StepStatus.running
    assert run.steps["s2"].status == StepStatus.pending and not run.finished

    rest = list(owner)
    assert starts(rest) == ["s2", "s3"]
    assert ran == ["d", "a", "b a", "c b a"] and run.status == "succeeded"


# -- a run stored mid-step and loaded back -------------------------------------------------------

def test_a_run_stored_mid_step_and_loaded_resumes_its_interrupted_step(tmp_path: Path) -> None:
    registry, ran = calls_recorded()
    executor = one_at_a_time(registry)
    plan = chain_plan()
    with PlanStore(tmp_path / "store.sqlite3") as store:
        saved = store.save_plan(plan)
        run = executor.start(plan)
        events = executor.run_all(run)
        until(events, "tool_call", "s2")
        store.save_run(run, plan_id=saved.plan_id, version=1)  # a snapshot with s2 running
        loaded = store.load_run(run.id)
        events.close()
        assert loaded.steps["s2"].status == StepStatus.running and loaded.steps["s2"].worker is None

        resumed = list(executor.run_all(loaded))
        ends = [(e.step_id, e.data["status"]) for e in resumed if e.type == "plan_step_end"]
        assert ends[0] == ("s2", "interrupted")
        assert starts(resumed) == ["s2", "s3", "s4"]
        assert loaded.status == "succeeded"
        assert ran == ["a", "b a", "c b a", "d"]


def test_the_store_keeps_interrupted_steps_and_lists_the_run_as_interrupted(tmp_path: Path) -> None:
    registry, _ = calls_recorded()
    executor = one_at_a_time(registry)
    plan = chain_plan()
    with PlanStore(tmp_path / "store.sqlite3") as store:
        saved = store.save_plan(plan)
        run = executor.start(plan)
        events = executor.run_all(run)
        until(events, "tool_call", "s2")
        events.close()
        store.save_run(run, plan_id=saved.plan_id, version=1)

        loaded = store.load_run(run.id)
        assert loaded == run
        assert loaded.steps["s2"].status == INTERRUPTED and loaded.status == "interrupted"
        [summary] = store.list_runs(saved.plan_id)
        assert summary.status == "interrupted"
        assert summary.counts == {"pending": 2, "succeeded": 1, "interrupted": 1}


# -- run_all always ends -------------------------------------------------------------------------

_DEAD_OR_DONE = [StepStatus.pending, StepStatus.running, StepStatus.succeeded, StepStatus.failed,
                 StepStatus.skipped, StepStatus.interrupted]


@st.composite
def plans_in_any_state(draw: st.DrawFn) -> Run:
    """A random dependency graph with every step in any status, as a crash or a bug might leave it."""
    size = draw(st.integers(1, 8))
    steps = []
    for n in range(size):
        needs = draw(st.sets(st.integers(0, n - 1), max_size=3)) if n else set()
        fails = draw(st.booleans())
        steps.append({"tool": "explode" if fails else "sites_list", "params": {},
                      "depends_on": sorted(needs)})
    plan = plan_from_seed({"steps": steps})
    run = Run.for_plan(plan)
    for state in run.steps.values():
        state.status = draw(st.sampled_from(_DEAD_OR_DONE))
    if draw(st.booleans()):
        run.started_at = dt.datetime.now(dt.timezone.utc)
    return run


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=plans_in_any_state())
def test_run_all_ends_on_any_state_and_runs_no_step_before_its_dependencies(run: Run) -> None:
    executor = Executor(toy_registry())
    limit = 10 * (len(run.steps) + 5)
    seen = 0
    for event in executor.run_all(run):
        seen += 1
        assert seen < limit, "run_all did not end"
        if event.type == "plan_step_start":
            needs = run.plan.dependencies_of(event.step_id)
            assert all(run.steps[d].status == StepStatus.succeeded for d in needs)
    # No step is left running and nothing runnable is left behind.
    assert run.finished
    assert not {s.status for s in run.steps.values()} & {StepStatus.running, StepStatus.pending,
                                                          StepStatus.interrupted}


# -- the background worker -----------------------------------------------------------------------

def gated_plan(size: int = 3) -> tuple[Executor, Gate, Plan]:
    registry, _ = calls_recorded()
    gate = Gate()
    gate.register(registry)
    steps = [{"tool": "note", "params": {"label": f"n{n}"}} for n in range(size)]
    steps.insert(1, {"tool": "wait_for_gate", "params": {"label": "g"}})
    return one_at_a_time(registry), gate, plan_from_seed({"steps": steps})


def test_a_background_run_publishes_progress_and_hands_over_the_finished_run() -> None:
    executor, gate, plan = gated_plan()
    worker = BackgroundRun(executor, executor.start(plan), "all").start()
    try:
        assert gate.entered.wait(30)
        progress = worker.progress()
        assert progress.alive and progress.current == "s2"
        assert dict(progress.statuses) == {"s1": "succeeded", "s2": "running", "s3": "pending",
                                           "s4": "pending"}
        with pytest.raises(RuntimeError, match="still in progress"):
            _ = worker.run
    finally:
        gate.opened.set()
    assert worker.join(30)
    progress = worker.progress()
    assert not progress.alive and progress.counts() == {"succeeded": 4}
    assert [e.type for e in progress.events][-1] == "turn_end"
    assert worker.run.status == "succeeded" and worker.error is None


def test_stop_ends_a_background_run_after_the_current_step_leaving_the_rest_pending() -> None:
    executor, gate, plan = gated_plan()
    run = executor.start(plan)
    worker = BackgroundRun(executor, run, "all").start()
    assert gate.entered.wait(30)
    worker.stop()
    assert worker.progress().stopping
    gate.opened.set()
    assert worker.join(30)
    assert [s.status.value for s in run.steps.values()] == ["succeeded", "succeeded", "pending", "pending"]
    assert run.status == "paused"

    again = BackgroundRun(executor, run, "all").start()
    assert again.join(30) and run.status == "succeeded" and gate.calls == 1


def test_a_background_run_keeps_an_unexpected_error_for_whoever_collects_it() -> None:
    def broken_synthesizer(run: Run) -> Iterator[str]:
        yield "half an answer"
        raise ValueError("the synthesizer broke")

    registry, _ = calls_recorded()
    executor = one_at_a_time(registry, synthesizer=broken_synthesizer)
    worker = BackgroundRun(executor, executor.start(chain_plan()), "all").start()
    assert worker.join(30)
    assert isinstance(worker.error, ValueError)
    assert worker.progress().answer == "half an answer"
    assert not worker.run.finished and worker.run.counts() == {"succeeded": 4}


def test_a_background_run_of_the_next_step_runs_one_step() -> None:
    registry, ran = calls_recorded()
    executor = one_at_a_time(registry)
    run = executor.start(chain_plan())
    assert BackgroundRun(executor, run, "next").start().join(30)
    assert ran == ["a"] and run.status == "paused"

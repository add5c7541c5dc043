"""Issue 17, items 1 and 4: steps whose dependencies are done run at the same time; each tool is
held to a timeout, retried under a policy kept as data; a run can be cancelled; and what the
engine tells its recorder (the seam a durable engine plugs into).

Concurrency is proven with barriers (steps that can only finish when all of them are running
at once), not with clocks; the few time bounds are generous liveness bounds.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from core import (BackgroundRun, Event, Executor, Plan, RetryableError, RetryPolicy, RunLimits, RunRecorder,
                  Settings, Step, StepAttempt, StepStatus, ToolRegistry)
from core import _limits
from core.formats import plan_from_seed

LIVENESS = 30  # seconds: far above any of these runs, short of a hung test run


def fan_out(tool: str, size: int, **params: Any) -> Plan:
    return plan_from_seed({"steps": [{"tool": tool, "params": {"label": f"n{n}", **params}} for n in range(size)]})


def barrier_tools(parties: int) -> ToolRegistry:
    """``meet`` (sync) and ``meet_async``: each returns only once ``parties`` calls are in it together."""
    registry = ToolRegistry()
    barrier = threading.Barrier(parties, timeout=LIVENESS)
    arrived: list[str] = []
    everyone = asyncio.Event()

    @registry.register
    def meet(label: str) -> str:
        """Wait until every step of the fan-out is running.

        Args:
            label: Returned.
        """
        barrier.wait()
        return label

    @registry.register
    async def meet_async(label: str) -> str:
        """Wait, on the event loop, until every step of the fan-out is running.

        Args:
            label: Returned.
        """
        arrived.append(label)
        if len(arrived) == parties:
            everyone.set()
        await asyncio.wait_for(everyone.wait(), LIVENESS)
        return label

    return registry


@pytest.mark.parametrize("tool", ["meet", "meet_async"])
def test_independent_steps_run_at_the_same_time(tool: str) -> None:
    executor = Executor(barrier_tools(8))
    run = executor.execute(fan_out(tool, 8))
    assert run.status == "succeeded", {s.step_id: s.error for s in run.steps.values()}
    assert [s.result for s in run.steps.values()] == [f"n{n}" for n in range(8)]


def counting_tools() -> tuple[ToolRegistry, dict[str, int]]:
    registry = ToolRegistry()
    lock = threading.Lock()
    seen = {"now": 0, "peak": 0}

    @registry.register
    def work(label: str, wait: float = 0.02) -> str:
        """Count how many run at once.

        Args:
            label: Returned, upper-cased.
            wait: Seconds to take.
        """
        with lock:
            seen["now"] += 1
            seen["peak"] = max(seen["peak"], seen["now"])
        time.sleep(wait)
        with lock:
            seen["now"] -= 1
        return label.upper()

    return registry, seen


def test_max_parallel_bounds_the_steps_running_at_once() -> None:
    registry, seen = counting_tools()
    run = Executor(registry, limits=RunLimits(max_parallel=3, approve_writes=False)).execute(fan_out("work", 12))
    assert run.status == "succeeded" and seen["peak"] == 3


def test_max_parallel_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAN_STUDIO_MAX_PARALLEL", "2")
    monkeypatch.setenv("PLAN_STUDIO_TOOL_TIMEOUTS", '{"work": 7}')
    limits = RunLimits.from_settings(Settings.from_env())
    assert limits.max_parallel == 2 and limits.timeout_for("work") == 7 and limits.timeout_for("other") == 300


def diamond() -> Plan:
    """a → (b, c, d) → e, and f on its own; e reads b and d."""
    return plan_from_seed({"steps": [
        {"tool": "work", "params": {"label": "a"}},
        {"tool": "work", "params": {"label": "b ${step[0]}"}},
        {"tool": "work", "params": {"label": "c"}, "depends_on": [0]},
        {"tool": "work", "params": {"label": "d ${step[0]}", "wait": 0.05}},
        {"tool": "work", "params": {"label": "${step[1]} + ${step[3]}"}, "depends_on": [2]},
        {"tool": "work", "params": {"label": "f"}},
    ]})


def content(events: list[Event]) -> dict[str | None, list[tuple[str, Any]]]:
    """Each step's events in order, without their timing."""
    out: dict[str | None, list[tuple[str, Any]]] = {}
    for event in events:
        data = {k: v for k, v in event.data.items() if k != "duration_ms"}
        out.setdefault(event.step_id, []).append((event.type, data))
    return out


def test_a_parallel_run_yields_what_a_sequential_run_yields_in_content() -> None:
    registry, _ = counting_tools()
    parallel = Executor(registry)
    sequential = Executor(registry, max_parallel=1)
    run_p, run_s = parallel.start(diamond()), sequential.start(diamond())
    events_p, events_s = list(parallel.run_all(run_p)), list(sequential.run_all(run_s))
    assert content(events_p) == {**content(events_s), None: content(events_p)[None]}
    assert [e.type for e in events_p if e.step_id is None] == ["turn_start", "plan_created", "turn_end"]
    assert {k: (s.status, s.result, s.arguments) for k, s in run_p.steps.items()} == \
           {k: (s.status, s.result, s.arguments) for k, s in run_s.steps.items()}
    assert run_p.steps["s5"].result == "B A + D A"
    # Steps ran at the same time: f started before a ended.
    order = [(e.type, e.step_id) for e in events_p]
    assert order.index(("plan_step_start", "s6")) < order.index(("plan_step_end", "s1"))


def gates(registry: ToolRegistry) -> dict[str, threading.Event]:
    opened = {"entered": threading.Event(), "open": threading.Event()}
    entered: list[str] = []

    @registry.register
    def gate(label: str) -> str:
        """Wait until the test opens the gate.

        Args:
            label: Returned.
        """
        entered.append(label)
        if len(entered) == 3:
            opened["entered"].set()
        assert opened["open"].wait(LIVENESS)
        return label

    return opened


def test_a_background_run_shows_several_steps_running_and_run_next_still_runs_one() -> None:
    registry = ToolRegistry()
    opened = gates(registry)
    executor = Executor(registry)
    worker = BackgroundRun(executor, executor.start(fan_out("gate", 3)), "all").start()
    try:
        assert opened["entered"].wait(LIVENESS)
        progress = worker.progress()
        assert set(progress.running) == {"s1", "s2", "s3"} and progress.current in progress.running
        assert dict(progress.statuses) == {"s1": "running", "s2": "running", "s3": "running"}
    finally:
        opened["open"].set()
    assert worker.join(LIVENESS) and worker.run.status == "succeeded" and worker.progress().running == ()

    run = executor.start(fan_out("gate", 3))
    list(executor.run_next(run))
    assert [s.status for s in run.steps.values()] == [StepStatus.succeeded, StepStatus.pending, StepStatus.pending]


# -- bad input: a tool that hangs, an async tool, timeouts ------------------------------------------

def hanging_tools(**register: Any) -> tuple[ToolRegistry, threading.Event]:
    registry = ToolRegistry()
    never = threading.Event()

    @registry.register(**register)
    def hangs(label: str) -> str:
        """Never answers.

        Args:
            label: Unused.
        """
        never.wait()
        return label

    @registry.register(**register)
    async def hangs_async(label: str) -> str:
        """Never answers, on the event loop.

        Args:
            label: Unused.
        """
        await asyncio.Event().wait()
        return label

    @registry.register
    def echo(label: str) -> str:
        """Say it back.

        Args:
            label: Returned.
        """
        return label

    return registry, never


@pytest.mark.parametrize("tool", ["hangs", "hangs_async"])
def test_a_tool_that_hangs_forever_times_out_and_the_run_goes_on(tool: str) -> None:
    registry, never = hanging_tools(timeout=0.2)
    plan = plan_from_seed({"steps": [{"tool": tool, "params": {"label": "x"}},
                                     {"tool": "echo", "params": {"label": "${step[0]}"}},
                                     {"tool": "echo", "params": {"label": "independent"}}]})
    began = time.monotonic()
    run = Executor(registry).execute(plan)
    assert time.monotonic() - began < LIVENESS
    hung, dependant, independent = run.steps.values()
    assert hung.status == StepStatus.failed and hung.error == f"{tool} timed out after 0.2 s"
    assert dependant.status == StepStatus.skipped and independent.result == "independent"
    assert run.finished and run.status == "failed"
    never.set()  # let the abandoned thread go


def test_the_users_timeout_for_a_tool_wins_over_the_tools_own_and_the_default() -> None:
    registry, never = hanging_tools(timeout=600)
    limits = RunLimits.from_settings(Settings(tool_timeout=900, tool_timeouts={"hangs": 0.1}))
    run = Executor(registry, limits=limits).execute(fan_out("hangs", 1))
    assert run.steps["s1"].error == "hangs timed out after 0.1 s"
    never.set()


# -- retries -----------------------------------------------------------------------------------------

class Recorder:
    """Keeps what the engine told it, and checks each step is told "started" before its tool runs."""

    def __init__(self) -> None:
        self.told: list[tuple[Any, ...]] = []

    def run_started(self, run):
        self.told.append(("run_started",))

    def step_started(self, run, step_id: str, attempt: StepAttempt, arguments: dict) -> None:
        assert run.steps[step_id].status == StepStatus.running
        self.told.append(("step_started", step_id, attempt.number, arguments))

    def step_ended(self, run, step_id: str) -> None:
        state = run.steps[step_id]
        self.told.append(("step_ended", step_id, state.status.value, state.result, state.error))

    def run_stopped(self, run, reason) -> None:
        self.told.append(("run_stopped", reason))

    def run_finished(self, run) -> None:
        self.told.append(("run_finished",))


def flaky_tools(failures: int, error: type[Exception] = RetryableError) -> tuple[ToolRegistry, Recorder, list[int]]:
    registry = ToolRegistry()
    recorder = Recorder()
    calls: list[int] = []

    @registry.register(retry=RetryPolicy(max_attempts=3, backoff_seconds=0.01))
    def flaky(label: str) -> str:
        """Fail the first few calls.

        Args:
            label: Returned.
        """
        # The engine said "started" for this very call before making it.
        assert recorder.told[-1][:3] == ("step_started", "s1", len(calls) + 1)
        calls.append(1)
        if len(calls) <= failures:
            raise error(f"busy ({len(calls)})")
        return label

    return registry, recorder, calls


def test_a_retryable_error_is_tried_again_under_the_policy_and_each_attempt_is_recorded() -> None:
    registry, recorder, calls = flaky_tools(failures=2)
    run = Executor(registry, recorder=recorder).execute(fan_out("flaky", 1))
    step = run.steps["s1"]
    assert step.status == StepStatus.succeeded and step.result == "n0" and len(calls) == 3
    assert [(a.number, a.error) for a in step.retried] == [(1, "flaky failed: busy (1)"), (2, "flaky failed: busy (2)")]
    assert all(a.duration_ms is not None for a in step.retried)
    assert [t[:3] for t in recorder.told] == [
        ("run_started",), ("step_started", "s1", 1), ("step_started", "s1", 2), ("step_started", "s1", 3),
        ("step_ended", "s1", "succeeded"), ("run_finished",)]
    assert recorder.told[1][3] == {"label": "n0"}  # the resolved arguments, before the call


def test_retries_stop_at_max_attempts_and_other_errors_are_not_retried() -> None:
    registry, recorder, calls = flaky_tools(failures=5)
    run = Executor(registry, recorder=recorder).execute(fan_out("flaky", 1))
    assert run.steps["s1"].error == "flaky failed: busy (3)" and len(calls) == 3

    registry, recorder, calls = flaky_tools(failures=1, error=ValueError)
    run = Executor(registry, recorder=recorder).execute(fan_out("flaky", 1))
    assert run.steps["s1"].error == "flaky failed: busy (1)" and len(calls) == 1 and run.steps["s1"].retried == []


def test_a_timeout_is_retried_only_when_the_policy_says_so() -> None:
    registry, never = hanging_tools(timeout=0.1, retry=RetryPolicy(max_attempts=2, backoff_seconds=0,
                                                                    retry_on=frozenset({"timeout"})))
    run = Executor(registry).execute(fan_out("hangs_async", 1))
    step = run.steps["s1"]
    assert step.error == "hangs_async timed out after 0.1 s"
    assert [a.error for a in step.retried] == ["hangs_async timed out after 0.1 s"]
    never.set()


def test_the_retry_policy_is_data() -> None:
    policy = RetryPolicy.model_validate_json('{"max_attempts": 4, "backoff_seconds": 1, "retry_on": ["retryable", "error"]}')
    assert [policy.pause(n) for n in (1, 2, 3)] == [1, 2, 4]
    assert policy.retries("error", 3) and not policy.retries("error", 4) and not policy.retries("timeout", 1)
    assert RetryPolicy.model_validate_json(policy.model_dump_json()) == policy


# -- cancel --------------------------------------------------------------------------------------------

def test_cancel_ends_a_run_now_marking_its_running_steps_cancelled_and_keeping_the_rest() -> None:
    registry, never = hanging_tools()
    recorder = Recorder()
    plan = plan_from_seed({"steps": [{"tool": "echo", "params": {"label": "done first"}},
                                     {"tool": "hangs", "params": {"label": "x"}, "depends_on": [0]},
                                     {"tool": "hangs_async", "params": {"label": "x"}, "depends_on": [0]},
                                     {"tool": "echo", "params": {"label": "${step[1]}"}}]})
    executor = Executor(registry, recorder=recorder)
    run = executor.start(plan)
    worker = BackgroundRun(executor, run, "all").start()
    while worker.progress().running != ("s2", "s3"):
        assert worker.alive, "the run ended before its tools hung"
        time.sleep(0.01)
    worker.cancel()
    assert worker.join(LIVENESS) and worker.error is None
    assert [s.status.value for s in run.steps.values()] == ["succeeded", "cancelled", "cancelled", "pending"]
    assert run.steps["s1"].result == "done first" and run.status == "cancelled" and not run.finished
    assert "cancelled" in (run.steps["s2"].error or "")
    assert ("run_stopped", "cancel") in recorder.told
    assert not executor.cancel(run.id)  # no longer running
    never.set()


def test_a_recorder_that_fails_stops_the_run_before_the_tool_is_called() -> None:
    registry, recorder, calls = flaky_tools(failures=0)

    class Broken(Recorder):
        def step_started(self, run, step_id, attempt, arguments):
            raise OSError("the database is gone")

    with pytest.raises(OSError, match="database is gone"):
        Executor(registry, recorder=Broken()).execute(fan_out("flaky", 1))
    assert calls == []
    assert isinstance(Broken(), RunRecorder)


class BatchRecorder(Recorder):
    """A recorder that takes the steps starting (and ending) together in one call each."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[tuple[str, list[str]]] = []

    def steps_started(self, run, starts) -> None:
        self.batches.append(("started", [step_id for step_id, _attempt, _arguments in starts]))
        for step_id, attempt, arguments in starts:
            self.step_started(run, step_id, attempt, arguments)

    def steps_ended(self, run, step_ids) -> None:
        self.batches.append(("ended", list(step_ids)))
        for step_id in step_ids:
            self.step_ended(run, step_id)


def test_steps_ready_together_are_told_started_in_one_batch_before_any_tool_is_called() -> None:
    registry = ToolRegistry()
    recorder = BatchRecorder()
    told_at_call: list[list[tuple[str, list[str]]]] = []

    @registry.register
    def note(label: str) -> str:
        """Note what the recorder was told when this tool was called.

        Args:
            label: Returned.
        """
        told_at_call.append(list(recorder.batches))
        return label

    plan = fan_out("note", 5)
    run = Executor(registry, recorder=recorder).execute(plan)
    assert run.status == "succeeded"
    every = [s.id for s in plan.steps]
    assert recorder.batches[0] == ("started", every)
    assert len(told_at_call) == 5 and all(told[0] == ("started", every) for told in told_at_call)


def test_each_step_end_is_recorded_in_a_batch_before_its_end_is_told() -> None:
    registry = noop_registry()
    recorder = BatchRecorder()
    plan = big_plan("fan-out", 200)
    executor = Executor(registry, recorder=recorder, max_parallel=16)
    run = executor.start(plan)
    for event in executor.run_all(run):
        if event.type == "plan_step_end":
            assert any(kind == "ended" and event.step_id in ids for kind, ids in recorder.batches), event.step_id
    ended = [step_id for kind, ids in recorder.batches if kind == "ended" for step_id in ids]
    started = [step_id for kind, ids in recorder.batches if kind == "started" for step_id in ids]
    assert sorted(ended) == sorted(started) == sorted(s.id for s in plan.steps)
    assert run.counts() == {"succeeded": 200}


# -- size ----------------------------------------------------------------------------------------------

def noop_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.register
    def noop(n: int = 0) -> int:
        """Do nothing.

        Args:
            n: Returned.
        """
        return n

    return registry


def big_plan(shape: str, size: int) -> Plan:
    """A chain (each step reads the one before) or a fan-out (no step needs another)."""
    if shape == "chain":
        return Plan(steps=[Step(id=f"s{n}", tool="noop", params={"n": 0} if n == 0 else {"n": f"${{steps.s{n - 1}}}"})
                           for n in range(size)])
    return Plan(steps=[Step(id=f"s{n}", tool="noop", params={"n": n}) for n in range(size)])


@pytest.mark.parametrize("shape", ["chain", "fan-out"])
@pytest.mark.parametrize("size", [1_000, 10_000])
def test_big_runs_finish(shape: str, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_limits, "MAX_STEPS", max(size, _limits.MAX_STEPS))  # 10,000 is past a plan's bound
    began = time.monotonic()
    run = Executor(noop_registry()).execute(big_plan(shape, size))
    assert time.monotonic() - began < 120
    assert run.counts() == {"succeeded": size}
    assert run.steps[run.plan.steps[-1].id].result == (0 if shape == "chain" else size - 1)


# -- the command line ------------------------------------------------------------------------------------

HANGING_FILE = '''
import threading


def hangs(label: str) -> str:
    """Never answers.

    Args:
        label: Unused.
    """
    threading.Event().wait()
    return label


def echo(label: str) -> str:
    """Say it back.

    Args:
        label: Returned.
    """
    return label
'''


def test_plan_studio_run_holds_tools_to_the_timeout_setting_and_prints_steps_in_plan_order(
        tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from studio.cli._main import main

    (tmp_path / "hanging_tools.py").write_text(HANGING_FILE, encoding="utf-8")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": [{"tool": "hangs", "params": {"label": "x"}},
                                          {"tool": "echo", "params": {"label": "${step[0]}"}},
                                          {"tool": "echo", "params": {"label": "quick"}}]}), encoding="utf-8")
    monkeypatch.setenv("PLAN_STUDIO_TOOL_TIMEOUT", "0.3")
    status = main(["run", str(plan), "--tools", str(tmp_path / "hanging_tools.py"),
                   "--data-dir", str(tmp_path / "data")])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    # Step 2 ended first; the lines still come in plan order.
    assert out[:3] == ["step 0 (hangs): failed: hangs timed out after 0.3 s",
                       "step 1 (echo): skipped: depends on step 0 (hangs), which did not succeed",
                       "step 2 (echo): succeeded, 1 result"]

"""A sync tool with no time limit (``timeout=math.inf``) is called on the thread that drives the
run when it is the only step to call, as LangGraph calls a lone step without a timeout: no
hand-over to a pool thread and back. Any other call still goes to a thread of its own, so a
tool held to a time limit can be cut off, and steps that may run at once still do."""

from __future__ import annotations

import math
import os
import signal
import threading
import time

import pytest

from core import Executor, Plan, RunLimits, Step, StepStatus, ToolRegistry

LIVENESS = 30  # seconds: far above any of these runs, short of a hung test run


def _tools(seen: list[int], timeout: float | None, barrier: threading.Barrier | None = None) -> ToolRegistry:
    tools = ToolRegistry()

    @tools.register(timeout=timeout)
    def add(value: int) -> int:
        """Add one, noting the thread it runs on.

        Args:
            value: The number.
        """
        seen.append(threading.get_ident())
        if barrier is not None:
            barrier.wait()
        return value + 1

    return tools


def _chain(size: int) -> Plan:
    return Plan(goal="chain", steps=[Step(id=f"s{n}", tool="add", params={"value": 0 if n == 0 else f"${{steps.s{n - 1}}}"})
                                     for n in range(size)])


def _run(tools: ToolRegistry, plan: Plan) -> object:
    executor = Executor(tools)
    run = executor.start(plan)
    for _ in executor.run_all(run):
        pass
    return run


def test_a_chain_of_a_tool_with_no_time_limit_runs_on_the_callers_thread() -> None:
    seen: list[int] = []
    run = _run(_tools(seen, math.inf), _chain(5))
    assert [run.steps[f"s{n}"].result for n in range(5)] == [1, 2, 3, 4, 5]
    assert seen == [threading.get_ident()] * 5


def test_a_tool_with_a_time_limit_runs_on_a_thread_of_its_own() -> None:
    seen: list[int] = []
    run = _run(_tools(seen, None), _chain(3))
    assert [run.steps[f"s{n}"].result for n in range(3)] == [1, 2, 3]
    assert threading.get_ident() not in seen  # so its timeout can cut it off


def test_steps_of_a_tool_with_no_time_limit_that_may_run_at_once_still_do() -> None:
    seen: list[int] = []
    # Each call returns only once all three are in their calls together.
    tools = _tools(seen, math.inf, threading.Barrier(3, timeout=LIVENESS))
    plan = Plan(goal="fan-out", steps=[Step(id=f"s{n}", tool="add", params={"value": n}) for n in range(3)])
    run = _run(tools, plan)
    assert [run.steps[f"s{n}"].status for n in range(3)] == [StepStatus.succeeded] * 3
    assert threading.get_ident() not in seen


def test_the_limit_set_for_a_tool_by_name_decides_as_its_own_does() -> None:
    seen: list[int] = []
    executor = Executor(_tools(seen, None), limits=RunLimits(tool_timeouts={"add": math.inf}, approve_writes=False))
    run = executor.start(_chain(2))
    for _ in executor.run_all(run):
        pass
    assert seen == [threading.get_ident()] * 2


@pytest.mark.usefixtures("ctrl_c_as_in_a_terminal")
def test_ctrl_c_during_a_call_on_the_callers_thread_cancels_the_run_and_keeps_what_finished() -> None:
    tools = ToolRegistry()

    @tools.register(timeout=math.inf)
    def step(value: int) -> int:
        """Stand for a call during which the user presses Ctrl-C (at step 1).

        Args:
            value: The number.
        """
        if value == 1:
            os.kill(os.getpid(), signal.SIGINT)  # as the terminal sends it
            time.sleep(LIVENESS)
        return value + 1

    executor = Executor(tools)
    run = executor.start(Plan(goal="g", steps=[Step(id="a", tool="step", params={"value": 0}),
                                               Step(id="b", tool="step", params={"value": "${steps.a}"}),
                                               Step(id="c", tool="step", params={"value": "${steps.b}"})]))
    with pytest.raises(KeyboardInterrupt):
        for _ in executor.run_all(run):
            pass
    assert [run.steps[s].status for s in "abc"] == [StepStatus.succeeded, StepStatus.cancelled, StepStatus.pending]
    assert run.steps["a"].result == 1


def test_a_tool_with_no_time_limit_raising_keyboardinterrupt_itself_only_fails_its_step() -> None:
    tools = ToolRegistry()

    @tools.register(timeout=math.inf)
    def step(value: int) -> int:
        """Raise KeyboardInterrupt as if it were Ctrl-C, at step 0.

        Args:
            value: The number.
        """
        if value == 0:
            raise KeyboardInterrupt
        return value + 1

    run = _run(tools, Plan(goal="g", steps=[Step(id="a", tool="step", params={"value": 0}),
                                            Step(id="b", tool="step", params={"value": 5})]))
    assert [run.steps[s].status for s in "ab"] == [StepStatus.failed, StepStatus.succeeded]
    assert "KeyboardInterrupt" in (run.steps["a"].error or "")

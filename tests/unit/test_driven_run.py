"""``Executor.execute`` drives its run on a thread of its own, which calls a lone step's sync
tool itself, time limit or not; a call that overruns its limit, or is running when the run is
cancelled, is given up and the run carried on from a new thread (``core.run._driven_run``,
``core.run._watchdog``)."""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from typing import Any

import pytest

from core import BackgroundRun, Event, Executor, Plan, RetryPolicy, Step, StepStatus, ToolRegistry
from core.run._driven_run import DrivenRun
from core.run._watchdog import InlineCall, watchdog

LIVENESS = 3  # seconds: far above any of these runs, short of a hung test run


class Calls:
    """The threads each call ran on; ``release`` lets hung calls return."""

    def __init__(self) -> None:
        self.threads: list[int] = []
        self.returned: list[int] = []
        self.release = threading.Event()
        self.hung = False


def _tools(calls: Calls, timeout: float | None = None, retry: RetryPolicy | None = None) -> ToolRegistry:
    tools = ToolRegistry()

    @tools.register(timeout=timeout, retry=retry)
    def add(value: int, hang: int = -1) -> int:
        """Add one; hang (until released) when value equals hang, on the first call only.

        Args:
            value: The number.
            hang: The value to hang at.
        """
        calls.threads.append(threading.get_ident())
        if value == hang and not calls.hung:
            calls.hung = True
            calls.release.wait()
        calls.returned.append(value)
        return value + 1

    return tools


def _chain(size: int, hang: int = -1) -> Plan:
    return Plan(goal="chain", steps=[
        Step(id=f"s{n}", tool="add", params={"value": 0 if n == 0 else f"${{steps.s{n - 1}}}", "hang": hang})
        for n in range(size)])


def _in_thread(target: Any) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def _statuses(run: Any) -> list[str]:
    return [state.status.value for state in run.steps.values()]


def test_a_chain_is_called_on_the_thread_driving_it_time_limit_and_all() -> None:
    calls = Calls()
    driving: set[int] = set()  # events are told on the thread that drives the run
    run = Executor(_tools(calls, timeout=300)).execute(_chain(5), on_event=lambda _: driving.add(threading.get_ident()))
    assert [run.steps[f"s{n}"].result for n in range(5)] == [1, 2, 3, 4, 5]
    assert set(calls.threads) == driving  # no hand-over to a pool thread and back for each step
    assert threading.get_ident() not in driving  # so a call that overruns cannot take the caller with it


def test_drive_with_a_limit_of_one_runs_the_next_step_as_run_next_does() -> None:
    calls = Calls()
    executor = Executor(_tools(calls, timeout=300))
    run, pulled = executor.start(_chain(3)), executor.start(_chain(3))
    told: list[Event] = []
    executor.drive(run, on_event=told.append, limit=1)
    assert _statuses(run) == ["succeeded", "pending", "pending"]
    assert [e.type for e in told] == [e.type for e in executor.run_next(pulled)]
    executor.drive(run, limit=1)
    assert _statuses(run) == ["succeeded", "succeeded", "pending"]


class _Watched(BackgroundRun):
    """A background run that notes the thread each event is told on."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.told_on: set[int] = set()
        told = self._view.on_event

        def noting(event: Event) -> None:
            self.told_on.add(threading.get_ident())
            told(event)
        self._view.on_event = noting  # type: ignore[method-assign]


@pytest.mark.parametrize("kind", ["all", "next"])
def test_a_page_run_in_the_background_is_driven_as_execute_drives_one(kind: str) -> None:
    calls = Calls()
    executor = Executor(_tools(calls, timeout=0.2), max_parallel=1)
    plan = Plan(goal="g", steps=[*_chain(2, hang=0).steps, Step(id="free", tool="add", params={"value": 7})])
    worker = _Watched(executor, executor.start(plan), kind)
    assert worker.start().join(LIVENESS)
    run = worker.run
    # Its lone step was called by the thread driving the run (not handed to a pool thread by a
    # consumer of run_all), given up at its limit, and the run carried on from a new thread.
    assert run.steps["s0"].error == "add timed out after 0.2 s"
    assert calls.threads[0] in worker.told_on and worker._thread.ident not in worker.told_on
    if kind == "next":
        assert _statuses(run) == ["failed", "pending", "pending"]
    else:
        assert _statuses(run) == ["failed", "skipped", "succeeded"] and run.steps["free"].result == 8
    assert worker.progress().statuses == {step_id: state.status.value for step_id, state in run.steps.items()}
    calls.release.set()


def test_a_lone_step_that_overruns_its_limit_fails_and_the_run_goes_on_from_a_new_thread(monkeypatch) -> None:
    left = threading.Semaphore(0)  # released each time a thread leaves driving the run
    consume = DrivenRun._consume

    def consume_then_tell(self: DrivenRun, events: Any) -> None:
        try:
            consume(self, events)
        finally:
            left.release()

    monkeypatch.setattr(DrivenRun, "_consume", consume_then_tell)
    calls = Calls()
    plan = Plan(goal="g", steps=[*_chain(3, hang=1).steps,
                                 Step(id="after", tool="add", params={"value": 10}, depends_on=["s0"])])
    run = Executor(_tools(calls, timeout=0.2), max_parallel=1).execute(plan)
    assert run.steps["s1"].status == StepStatus.failed
    assert run.steps["s1"].error == "add timed out after 0.2 s"
    assert run.steps["s2"].status == StepStatus.skipped
    assert run.steps["after"].result == 11  # run after the hand-over, on another thread
    assert calls.threads[-1] != calls.threads[1] and calls.returned == [0, 10]
    assert left.acquire(timeout=LIVENESS)  # the thread that carried the run on has left

    before = run.model_dump()
    calls.release.set()  # the given-up call returns at last: its thread leaves, changing nothing
    assert left.acquire(timeout=LIVENESS)
    assert calls.returned == [0, 10, 1]
    assert run.model_dump() == before


def test_each_overrun_hands_the_run_to_a_new_thread_which_calls_the_next_lone_step_itself() -> None:
    calls = Calls()
    calls.hung = True  # ``hang`` plays no part here: these two never return until released
    tools = _tools(calls, timeout=0.2)

    @tools.register(timeout=0.2)
    def stuck(value: int) -> int:
        """Hang until released.

        Args:
            value: Returned.
        """
        calls.threads.append(threading.get_ident())
        calls.release.wait()
        return value

    plan = Plan(goal="g", steps=[Step(id="a", tool="stuck", params={"value": 1}),
                                 Step(id="b", tool="stuck", params={"value": 2}),
                                 Step(id="c", tool="add", params={"value": 3})])
    run = Executor(tools, max_parallel=1).execute(plan)
    assert _statuses(run) == ["failed", "failed", "succeeded"]
    assert run.steps["b"].error == "stuck timed out after 0.2 s" and run.steps["c"].result == 4
    assert len(set(calls.threads)) == 3  # a, b and c each called by the thread driving the run then
    calls.release.set()


def test_an_overrun_is_tried_again_when_the_policy_says_so_each_attempt_recorded() -> None:
    calls = Calls()
    policy = RetryPolicy(max_attempts=2, backoff_seconds=0, retry_on=frozenset({"timeout"}))
    run = Executor(_tools(calls, timeout=0.2, retry=policy)).execute(_chain(2, hang=0))
    step = run.steps["s0"]
    assert step.status == StepStatus.succeeded and step.result == 1 and run.steps["s1"].result == 2
    assert [attempt.error for attempt in step.retried] == ["add timed out after 0.2 s"]
    calls.release.set()


def test_a_short_limit_after_a_long_one_is_kept_on_time() -> None:
    """The watchdog sleeps until the earliest deadline it knows: a call whose deadline comes
    sooner must wake it, or this run would take the first call's 300 s."""
    quick, slow = Calls(), Calls()
    Executor(_tools(slow, timeout=300)).execute(_chain(1))
    ran: list[Any] = []
    thread = _in_thread(lambda: ran.append(Executor(_tools(quick, timeout=0.2)).execute(_chain(1, hang=0))))
    thread.join(LIVENESS)
    assert ran and ran[0].steps["s0"].error == "add timed out after 0.2 s"
    quick.release.set()


def test_cancel_during_a_call_with_no_time_limit_ends_the_run_at_once() -> None:
    calls = Calls()
    executor = Executor(_tools(calls, timeout=math.inf))
    ran: list[Any] = []
    run_ids: set[str] = set()
    plan = _chain(3, hang=1)
    thread = _in_thread(lambda: ran.append(executor.execute(plan, on_event=lambda event: run_ids.add(event.run_id))))
    while len(calls.threads) < 2:  # in the hung call
        assert thread.is_alive()
        threading.Event().wait(0.01)
    (run_id,) = run_ids
    assert executor.cancel(run_id)
    thread.join(LIVENESS)
    assert ran, "execute() did not return on cancel"
    assert _statuses(ran[0]) == ["succeeded", "cancelled", "pending"]
    assert ran[0].steps["s0"].result == 1 and not ran[0].finished
    assert not executor.cancel(run_id)  # no longer running
    calls.release.set()


@pytest.mark.usefixtures("ctrl_c_as_in_a_terminal")
def test_ctrl_c_while_waiting_cancels_the_run_keeps_what_finished_and_is_raised() -> None:
    tools = ToolRegistry()
    release = threading.Event()

    @tools.register
    def step(value: int) -> int:
        """Stand for a call during which the user presses Ctrl-C (at step 1).

        Args:
            value: The number.
        """
        if value == 1:
            os.kill(os.getpid(), signal.SIGINT)  # as the terminal sends it: to the waiting main thread
            release.wait(LIVENESS)
        return value + 1

    told: list[Event] = []
    executor = Executor(tools)
    plan = Plan(goal="g", steps=[Step(id=c, tool="step", params={"value": 0 if c == "a" else f"${{steps.{p}}}"})
                                 for p, c in zip(" ab", "abc")])
    with pytest.raises(KeyboardInterrupt):
        executor.execute(plan, on_event=told.append)
    release.set()
    assert [(event.type, event.step_id) for event in told[-2:]] == [("tool_result", "b"), ("plan_step_end", "b")]
    assert told[-1].data["status"] == "cancelled"
    assert not executor.cancel(told[-1].run_id)  # no longer running


def test_a_tools_own_keyboardinterrupt_or_systemexit_on_the_driving_thread_fails_its_step() -> None:
    tools = ToolRegistry()

    @tools.register
    def step(value: int) -> int:
        """Raise as a tool might.

        Args:
            value: Which.
        """
        if value == 0:
            raise KeyboardInterrupt
        if value == 1:
            raise SystemExit(3)
        return value

    plan = Plan(goal="g", steps=[Step(id="a", tool="step", params={"value": 0}),
                                 Step(id="b", tool="step", params={"value": 1}, depends_on=["a"]),
                                 Step(id="c", tool="step", params={"value": 2})])
    run = Executor(tools, max_parallel=1).execute(plan)
    assert _statuses(run) == ["failed", "skipped", "succeeded"]
    assert "KeyboardInterrupt" in (run.steps["a"].error or "")


def test_an_error_telling_an_event_is_raised_to_the_caller_the_running_step_interrupted() -> None:
    calls = Calls()
    run_ids: set[str] = set()

    def told(event: Event) -> None:
        run_ids.add(event.run_id)
        if event.type == "tool_call" and event.step_id == "s1":
            raise RuntimeError("the screen went away")

    executor = Executor(_tools(calls))
    with pytest.raises(RuntimeError, match="the screen went away"):
        executor.execute(_chain(3), on_event=told)
    assert calls.returned == [0]  # s1's tool was never called
    assert not executor.cancel(run_ids.pop())  # no longer running


class FailingRecorder:
    def __init__(self, *failing: str) -> None:
        self.failing = failing
        self.run_ids: set[str] = set()

    def _tell(self, name: str, run: Any) -> None:
        self.run_ids.add(run.id)
        if name in self.failing:
            raise OSError(f"the disk is full ({name})")

    def run_started(self, run: Any) -> None:
        self._tell("run_started", run)

    def step_started(self, run: Any, step_id: str, attempt: Any, arguments: Any) -> None:
        self._tell("step_started", run)

    def step_ended(self, run: Any, step_id: str) -> None:
        self._tell("step_ended", run)

    def run_stopped(self, run: Any, reason: str) -> None:
        self._tell("run_stopped", run)

    def run_finished(self, run: Any) -> None:
        self._tell("run_finished", run)


@pytest.mark.parametrize(("failing", "on_event_fails", "raised"), [
    (("run_started",), False, "the disk is full (run_started)"),  # before the first step
    (("step_ended", "run_stopped"), False, "the disk is full (step_ended)"),
    (("run_stopped",), True, "the screen went away"),  # closing the run, after on_event raised, fails too
])
def test_an_error_on_the_driving_thread_is_raised_to_the_caller_not_waited_for_forever(
        failing: tuple[str, ...], on_event_fails: bool, raised: str) -> None:
    def told(event: Event) -> None:
        if on_event_fails and event.type == "tool_call":
            raise RuntimeError("the screen went away")

    ran: list[Any] = []
    failed: list[BaseException] = []
    recorder = FailingRecorder(*failing)
    executor = Executor(_tools(Calls()), recorder=recorder)

    def execute() -> None:
        try:
            ran.append(executor.execute(_chain(2), on_event=told))
        except BaseException as exc:
            failed.append(exc)

    _in_thread(execute).join(LIVENESS)
    assert not ran and [str(exc) for exc in failed] == [raised]
    (run_id,) = recorder.run_ids
    assert not executor.cancel(run_id)  # no longer known as a run being driven


def test_events_are_those_of_run_all_in_the_same_order() -> None:
    plan = Plan(goal="g", steps=[*_chain(3).steps, Step(id="x", tool="add", params={"value": 5}),
                                 Step(id="y", tool="add", params={"value": "${steps.x}"})])
    told: list[tuple[str, str | None]] = []
    executor = Executor(_tools(Calls()), max_parallel=1)
    executor.execute(plan, on_event=lambda event: told.append((event.type, event.step_id)))
    run = executor.start(plan)
    assert told == [(event.type, event.step_id) for event in executor.run_all(run)]


def test_a_call_given_up_tells_its_thread_once_it_returns_and_a_finished_one_cannot_be_given_up() -> None:
    handed: list[str] = []
    call = InlineCall(lambda: handed.append("over"))
    assert call.give_up() and handed == ["over"]
    assert not call.finish()  # its thread must leave the run alone
    assert not call.give_up() and handed == ["over"]

    done = InlineCall(lambda: handed.append("again"))
    assert done.finish()
    assert not done.give_up() and handed == ["over"]


def test_the_watchdog_gives_up_an_overdue_call_and_forgets_a_finished_one() -> None:
    overdue, forgotten = threading.Event(), threading.Event()
    late = InlineCall(overdue.set)
    kept = InlineCall(forgotten.set)
    watchdog.watch(kept, time.monotonic() + 0.05)
    watchdog.forget(kept)
    watchdog.watch(late, time.monotonic() + 0.05)
    assert overdue.wait(LIVENESS)
    assert not forgotten.is_set() and kept.finish()

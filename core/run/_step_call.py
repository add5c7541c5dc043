"""One call of a step's tool, off the thread that drives the run, told back on a queue.

A sync tool runs on a daemon thread of a pool shared by every run; an ``async def`` tool is
awaited on one event loop that a daemon thread keeps for the process. Either way the outcome
(result, or error and its kind for the retry policy, and the time the call took) is put on
the queue of the pass that made the call, so the driving thread waits on one queue for every
step in flight, whichever way it runs.

``async def`` tools share the loop, as coroutines do: one that blocks it (``time.sleep`` inside
an ``async def``) holds up the others until it yields, though its timeout still fails its step.

A call past its timeout is given up: an ``async def`` tool's task is cancelled; a sync tool
cannot be stopped from outside, so its thread is abandoned (a daemon: it never holds up the
process's exit) and the pool grows a new one for the next call. Whatever an abandoned call
returns later is dropped: each outcome carries its step and attempt, and only the current
attempt of a step is taken.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from .._errors import RetryableError, ToolCallError, ToolExecutionError
from ..tooling._python_tool import PythonRunner
from ..tooling._registry import Tool
from ..tooling._retry import FailureKind
from ._signals import leave_ctrl_c_to_the_main_thread
from ..tooling._calling import await_tool_function
from ._watchdog import HandedOver, InlineCall, watchdog

__all__ = ["Call", "Outcome", "call_inline", "call_tool", "is_sync", "submit"]


@dataclass
class Outcome:
    """How one call of a step's tool ended."""

    step_id: str
    attempt: int
    result: Any = None
    error: str | None = None
    # Why it failed, as a retry policy names it; "final" for failures no retry can mend
    # (arguments that do not fit, a result that is not JSON); None when it succeeded.
    kind: FailureKind | str | None = None
    duration_ms: float = 0.0


class Call:
    """A call in flight: ``cancel()`` gives it up (an async task is cancelled)."""

    def __init__(self, cancel: Callable[[], Any] | None = None) -> None:
        self._cancel = cancel

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel()


def _failed(exc: BaseException, tool: str) -> tuple[str, str]:
    """(error, kind) of an exception out of a tool's call."""
    if isinstance(exc, RetryableError):
        return str(exc), "retryable"
    if isinstance(exc, ToolExecutionError):
        return str(exc), "error"
    if isinstance(exc, ToolCallError):
        return str(exc), "final"
    # A tool class of its own (not Tool.call) that let something through: the tool ran, so
    # the step failed; "interrupted" would run its side effect again.
    return f"{tool} failed: {type(exc).__name__}: {exc}", "error"


def _sync_call(tool: Tool, arguments: dict[str, Any], step_id: str, attempt: int, *, here: bool = False) -> Outcome:
    began = time.perf_counter()
    try:
        result = tool.call(arguments)
        outcome = Outcome(step_id, attempt, result=result)
    except BaseException as exc:  # on a pool thread: whatever the tool raised is its step's failure
        if here and isinstance(exc, KeyboardInterrupt):
            raise  # Ctrl-C on the thread driving the run: the run is cancelled, as between steps
        error, kind = _failed(exc, tool.name)
        outcome = Outcome(step_id, attempt, error=error, kind=kind)
    outcome.duration_ms = round((time.perf_counter() - began) * 1000, 3)
    return outcome


async def _async_call(tool: Tool, arguments: dict[str, Any], step_id: str, attempt: int) -> Outcome:
    began = time.perf_counter()
    try:
        tool.refuse_bad_arguments(arguments)
        runner = tool.runner
        kwargs = runner.keyword_arguments(tool.name, arguments)
        result = runner.json_result(tool.name, await await_tool_function(tool.name, runner.func, kwargs))
        outcome = Outcome(step_id, attempt, result=result)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        error, kind = _failed(exc, tool.name)
        outcome = Outcome(step_id, attempt, error=error, kind=kind)
    outcome.duration_ms = round((time.perf_counter() - began) * 1000, 3)
    return outcome


def is_sync(tool: Tool) -> bool:
    """Whether ``tool`` is called on a thread (not awaited on the loop of ``async def`` tools)."""
    return not _is_async(tool)


def _is_async(tool: Tool) -> bool:
    # Only a Python tool's own ``async def`` is awaited here; other runners (an MCP server's)
    # are called as they say, on a thread.
    return isinstance(tool.runner, PythonRunner) and inspect.iscoroutinefunction(tool.runner.func)


def call_tool(tool: Tool, arguments: dict[str, Any], step_id: str, attempt: int,
              outcomes: "queue.SimpleQueue[Any]", *, here: bool = False) -> Call:
    """Start calling ``tool``; its ``Outcome`` is put on ``outcomes`` when it ends. ``here``:
    a sync tool is called on this thread, and has ended when this returns (``RunPass._call``
    says when)."""
    if _is_async(tool):
        future = asyncio.run_coroutine_threadsafe(_async_call(tool, arguments, step_id, attempt), _loop())

        def told(done: Any) -> None:
            if not done.cancelled():
                outcomes.put(done.result())

        future.add_done_callback(told)
        return Call(future.cancel)
    if here:
        outcomes.put(_sync_call(tool, arguments, step_id, attempt, here=True))
    else:
        _POOL.submit(lambda: outcomes.put(_sync_call(tool, arguments, step_id, attempt)))
    return Call()


def call_inline(tool: Tool, arguments: dict[str, Any], step_id: str, attempt: int,
                outcomes: "queue.SimpleQueue[Any]", call: InlineCall, deadline: float) -> None:
    """Call a sync tool on this thread, a run's own driving thread (``_driven_run``), its outcome
    put on ``outcomes`` when it returns; the watchdog gives it up at ``deadline`` (monotonic;
    ``math.inf``: never). Raises ``HandedOver`` if it was given up before it returned."""
    if deadline != math.inf:
        watchdog.watch(call, deadline)
    try:
        # As on a pool thread: whatever the tool raises (a KeyboardInterrupt of its own
        # included: the user's Ctrl-C goes to the main thread) fails its step.
        outcome = _sync_call(tool, arguments, step_id, attempt)
    finally:
        if deadline != math.inf:
            watchdog.forget(call)
    if not call.finish():
        raise HandedOver
    outcomes.put(outcome)


def submit(task: Callable[[], None]) -> None:
    """Run ``task`` on a thread of the pool sync tools are called on."""
    _POOL.submit(task)


class _DaemonPool:
    """Threads for sync tools: grown as calls need them, idle ones leave after a while.

    Not ``concurrent.futures.ThreadPoolExecutor``: its threads are joined when the interpreter
    exits, so one hung tool would keep the CLI from ever exiting. How many calls run at once
    is the executor's to bound (``max_parallel``); a thread stuck in an abandoned call is not
    counted there, and the pool simply has one more.
    """

    def __init__(self, idle_seconds: float = 30.0) -> None:
        self._idle_seconds = idle_seconds
        # A queue written in C: a step handed to a thread and its thread woken cost about a
        # third less than with a Python condition, and a run of short steps pays that per step.
        self._tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for a task, less the tasks already promised to them

    def submit(self, task: Callable[[], None]) -> None:
        self._tasks.put(task)
        with self._lock:
            if self._idle > 0:
                self._idle -= 1  # a waiting thread takes it
                return
        threading.Thread(target=self._work, name="plan-step", daemon=True).start()

    def _work(self) -> None:
        leave_ctrl_c_to_the_main_thread()
        while True:
            try:
                task = self._tasks.get(timeout=self._idle_seconds)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # no task was promised to this thread: it leaves
                        self._idle -= 1
                        return
                continue  # a task was put as the wait ended, counting on this thread
            task()
            with self._lock:
                self._idle += 1


_POOL = _DaemonPool()
_loop_lock = threading.Lock()
_event_loop: asyncio.AbstractEventLoop | None = None


def _serve_forever(loop: asyncio.AbstractEventLoop) -> None:
    leave_ctrl_c_to_the_main_thread()
    loop.run_forever()


def _loop() -> asyncio.AbstractEventLoop:
    """The process's loop for ``async def`` tools, started on first use on a daemon thread."""
    global _event_loop
    with _loop_lock:
        if _event_loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=_serve_forever, args=(loop,), name="plan-async-tools", daemon=True).start()
            _event_loop = loop
        return _event_loop


def _forget_threads_in_child() -> None:
    """A forked child has the pool's and the loop's state but none of their threads: counted
    idle threads that do not exist would take no call, and the loop would never run."""
    global _POOL, _event_loop, _loop_lock
    _POOL = _DaemonPool()
    _event_loop = None
    _loop_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_threads_in_child)

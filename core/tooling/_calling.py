"""Calling a tool's function: awaited when it is ``async def``, and whatever it raises told in words.

A step runs on whichever thread runs the plan: the CLI's main thread, or the studio's worker
thread. An ``async def`` tool (or any function returning an awaitable) is awaited there on an
event loop of its own, so it behaves exactly like a sync tool: same errors, same result.

A tool can raise more than exceptions: ``sys.exit(3)`` raises ``SystemExit`` and a tool may
raise ``KeyboardInterrupt`` itself. Left alone, the first ended the CLI with status 3 and no
word, and the second passed for the user's Ctrl-C; in the studio both cut the step off as
"interrupted", to be run again although its side effect had happened. Here each becomes the
step's failure, saying what the tool did. The user's own Ctrl-C must still stop the run:
while a tool runs on the main thread, SIGINT raises ``UserInterrupt`` (a ``KeyboardInterrupt``),
which is let through, and a plain ``KeyboardInterrupt`` is then the tool's own. Off the main
thread no signal arrives, so every ``KeyboardInterrupt`` there is the tool's.
"""

from __future__ import annotations

import asyncio
import inspect
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .._errors import RetryableError, ToolExecutionError, UserInterrupt

__all__ = ["await_tool_function", "call_tool_function", "tool_failure"]


def _interrupted_by_user(signum: int, frame: object) -> None:
    raise UserInterrupt


def call_tool_function(name: str, func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """``func(**kwargs)``, awaited if it gives an awaitable. Anything it raises becomes
    ``ToolExecutionError`` ("NAME failed: ...") except the user's Ctrl-C, which goes on."""
    if threading.current_thread() is not threading.main_thread():
        # No signal reaches this thread (a run's pool thread): whatever the tool raises is its
        # own, as ``_users_ctrl_c`` would say, without a context manager around every call.
        try:
            result = func(**kwargs)
            return _wait_for(result) if inspect.isawaitable(result) else result
        except BaseException as exc:
            raise tool_failure(name, exc) from (exc if isinstance(exc, Exception) else None)
    with _users_ctrl_c() as ours:
        try:
            result = func(**kwargs)
            if inspect.isawaitable(result):
                result = _wait_for(result)
            return result
        except UserInterrupt:
            raise
        except KeyboardInterrupt as exc:
            if not ours:  # someone else's SIGINT handler may have raised it: the user's, then
                raise
            raise tool_failure(name, exc) from None
        except BaseException as exc:
            raise tool_failure(name, exc) from (exc if isinstance(exc, Exception) else None)


async def await_tool_function(name: str, func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """``await func(**kwargs)`` on the running loop, its failures told as ``call_tool_function``
    tells them. A cancellation from outside (a timeout, a cancelled run) goes on as one."""
    try:
        return await func(**kwargs)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        raise tool_failure(name, exc) from (exc if isinstance(exc, Exception) else None)


def tool_failure(name: str, exc: BaseException) -> ToolExecutionError:
    """What the tool ``name`` raising ``exc`` is, as the step's error; ``RetryableError`` stays one."""
    if isinstance(exc, RetryableError):
        return RetryableError(f"{name} failed: {str(exc) or type(exc).__name__}")
    if isinstance(exc, KeyboardInterrupt):
        return ToolExecutionError(f"{name} failed: the tool raised KeyboardInterrupt")
    if isinstance(exc, SystemExit):
        code = "" if exc.code is None else repr(exc.code)
        return ToolExecutionError(f"{name} failed: the tool called sys.exit({code})")
    if isinstance(exc, Exception):
        return ToolExecutionError(f"{name} failed: {str(exc) or type(exc).__name__}")
    # GeneratorExit, CancelledError, an author's own kind
    detail = f": {exc}" if str(exc) else ""
    return ToolExecutionError(f"{name} failed: the tool raised {type(exc).__name__}{detail}")


@contextmanager
def _users_ctrl_c() -> Iterator[bool]:
    """While the tool runs, a Ctrl-C raises ``UserInterrupt``; yields whether a plain
    ``KeyboardInterrupt`` is then surely the tool's own."""
    if threading.current_thread() is not threading.main_thread():
        yield True
        return
    current = signal.getsignal(signal.SIGINT)
    if current is _interrupted_by_user:  # a tool calling a tool: already in place
        yield True
        return
    if current is signal.SIG_IGN:  # no Ctrl-C reaches this process (started in the background, say)
        yield True
        return
    if current is not signal.default_int_handler:  # the program's own handler: leave it be
        yield False
        return
    signal.signal(signal.SIGINT, _interrupted_by_user)
    try:
        yield True
    finally:
        signal.signal(signal.SIGINT, current)


def _wait_for(awaitable: Any) -> Any:
    async def result() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(result())
    # Called from a coroutine (this thread's loop is busy running it): a loop on a thread of its own.
    with ThreadPoolExecutor(1, thread_name_prefix="async-tool") as pool:
        return pool.submit(asyncio.run, result()).result()

"""Loading a ``--tools`` source within a deadline, so one that blocks cannot hang the studio or the CLI.

A tool file runs its module-level code when it is imported, and that code may wait forever:
``input()``, ``time.sleep(10**6)``, a socket's ``accept()``. Python has no way to stop an
import from outside, so the choices are:

- a SIGALRM in the importing thread: only works on the main thread (the studio loads tools on
  a Streamlit script thread) and on POSIX;
- importing it once in a subprocess first, as a check: runs the file's side effects twice,
  costs a second interpreter start on every launch, and says nothing about the import that
  counts (``input()`` there reads a closed stdin and fails instead of waiting);
- importing it on a daemon thread and no longer waiting after the deadline. This is the one
  used: the source is loaded in this process exactly once, as before, and only the wait is
  bounded. What it costs: the abandoned thread goes on (it would have blocked the whole
  process anyway) and dies with the process, being a daemon; whatever it loads later is
  dropped, since its tools are only added to the registry by the caller, after the wait. A
  module imported by name holds its import lock while its code runs, so importing that module
  again would wait on the abandoned thread: a source still stuck is refused at once the next
  time it is asked for (another session's settings), rather than waiting out the deadline
  again.
"""

from __future__ import annotations

import sys
import threading
from types import FrameType, TracebackType
from typing import Callable, TypeVar

from core import ToolDefinitionError

__all__ = ["load_within"]

T = TypeVar("T")

# Documented registry (tests/unit/test_registries.py): sources given up on, each with its thread still loading.
_stuck: dict[str, threading.Thread] = {}
_stuck_lock = threading.Lock()


def load_within(source: str, module: str, label: str, timeout: float, load: Callable[[], T]) -> T:
    """``load()`` on a thread of its own; its result or what it raised. After ``timeout``
    seconds raises ``ToolDefinitionError`` naming ``label`` (a file's path, or "module NAME")
    and the line of ``module`` (the module being loaded) the thread is waiting at."""
    with _stuck_lock:
        earlier = _stuck.get(source)
        if earlier is not None and not earlier.is_alive():
            del _stuck[source]
            earlier = None
    if earlier is not None:
        raise ToolDefinitionError(f"{_where(label, _frame_of(earlier), module)}: still loading since an earlier "
                                  "attempt gave up on it; not loaded (restart once it is fixed)")
    outcome: dict[str, object] = {}

    def work() -> None:
        # Held by this frame for as long as the thread lives: a thread abandoned in input()
        # holds stdin's lock, and were stdin freed (closed) at interpreter exit, Python would
        # abort ("could not acquire lock for <stdin> at interpreter shutdown"). A daemon
        # thread's frames outlive that, so stdin is never freed while the thread waits on it.
        stdin = sys.stdin  # noqa: F841
        try:
            outcome["value"] = load()
        except Exception as exc:  # handed to the caller
            outcome["error"] = exc
        except BaseException as exc:  # sys.exit() or KeyboardInterrupt as the file loads: its own doing
            what = (f"called sys.exit({'' if exc.code is None else repr(exc.code)})"
                    if isinstance(exc, SystemExit) else f"raised {type(exc).__name__}")
            outcome["error"] = ToolDefinitionError(f"{_where(label, exc.__traceback__, module)}: "
                                                   f"cannot be loaded: it {what}")

    thread = threading.Thread(target=work, name=f"load tools {source}", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        with _stuck_lock:
            _stuck[source] = thread
        raise ToolDefinitionError(f"{_where(label, _frame_of(thread), module)}: still loading after {timeout:g} s "
                                  "(waiting for input, a socket or a sleep while it loads?); not loaded")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def _frame_of(thread: threading.Thread) -> FrameType | None:
    """The frame ``thread`` is running now."""
    return sys._current_frames().get(thread.ident or -1)


def _where(label: str, at: FrameType | TracebackType | None, module: str) -> str:
    """``label`` with the line of ``module`` that a frame (and those that called it) or a
    traceback (and those it called) is at: ``path:N`` for a file, ``module NAME (path:N)`` for
    a module; ``label`` alone when it is not in that module."""
    frames: list[tuple[FrameType, int]] = []
    if isinstance(at, TracebackType):
        frames = [(tb.tb_frame, tb.tb_lineno) for tb in _tracebacks(at)][::-1]  # innermost first
    while isinstance(at, FrameType):
        frames.append((at, at.f_lineno))
        at = at.f_back
    frame, line = next(((f, n) for f, n in frames if f.f_globals.get("__name__") == module), (None, 0))
    if frame is None:
        return label
    if label.startswith("module "):
        return f"{label} ({frame.f_code.co_filename}:{line})"
    return f"{label}:{line}"


def _tracebacks(tb: TracebackType | None) -> list[TracebackType]:
    out = []
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out

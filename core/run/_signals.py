"""Signals on the threads the studio starts."""

from __future__ import annotations

import signal

__all__ = ["CTRL_C_WAIT", "leave_ctrl_c_to_the_main_thread"]

# The longest a thread driving a run, or waiting for one, sleeps in one wait. A Ctrl-C the kernel
# hands to another thread (any that does not block SIGINT: a tool's own, a library's) does not
# wake a thread asleep on a lock, and Python runs the handler only once that wait ends; a bounded
# wait keeps Ctrl-C under this delay whichever thread caught it, for about five wake-ups a second
# while tools run.
CTRL_C_WAIT = 0.2


def leave_ctrl_c_to_the_main_thread() -> None:
    """Block SIGINT on this worker thread. The kernel hands a process-wide signal (a Ctrl-C, or
    a tool's ``os.kill(os.getpid(), SIGINT)``) to any thread that does not block it; one that
    lands on a worker leaves the main thread asleep in its wait, and Python runs the handler
    only when that wait ends, which may be when the tool does."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

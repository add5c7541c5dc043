"""The ``plan-studio`` command.

``console_script`` is the installed script's entry point, ``main`` what it runs. ``main`` imports
the command line (``_main``: the core, pydantic, the tools; over a second on an idle machine,
several under load) only when called, so that a Ctrl-C while those imports run is one line and
exit status 130, as a Ctrl-C later is, not a traceback out of whichever module was being
imported. Once the command is done, a Ctrl-C while the interpreter exits ends the process at once
with the command's status: it would otherwise interrupt the joins of exit (DBOS keeps a thread
pool, which ``concurrent.futures`` joins at exit) and print a traceback for a command that has
finished.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Sequence

__all__ = ["console_script", "main"]

_EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C (``_main`` says the same)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``plan-studio`` with ``argv`` (default: the process's arguments); the exit status."""
    try:
        from ._main import main as command_line

        return command_line(argv)
    except KeyboardInterrupt:  # before the command line's own handling: while it is imported
        print("plan-studio: interrupted", file=sys.stderr)
        return _EXIT_INTERRUPTED


def console_script() -> None:
    """The installed ``plan-studio`` script: ``main``, then exit with its status."""
    status = _EXIT_INTERRUPTED

    def leave(_signal: int, _frame: object) -> None:
        os._exit(status)

    try:
        status = main()
        signal.signal(signal.SIGINT, leave)
    except KeyboardInterrupt:  # in the instant between the command's end and the line above
        signal.signal(signal.SIGINT, leave)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone, a stream closed: nothing more to say there
            pass
    sys.exit(status)

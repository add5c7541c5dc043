"""The ``plan-studio`` command.

``main`` is the console script's entry point. It imports the command line (``_main``: the core,
pydantic, the tools; over a second on an idle machine, several under load) only when called,
so that a Ctrl-C while those imports run is one line and exit status 130, as a Ctrl-C later is,
not a traceback out of whichever module was being imported.
"""

from __future__ import annotations

import sys
from typing import Sequence

__all__ = ["main"]

_EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C (``_main`` says the same)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``plan-studio`` with ``argv`` (default: the process's arguments); the exit status."""
    try:
        from ._main import main as command_line

        return command_line(argv)
    except KeyboardInterrupt:  # before the command line's own handling: while it is imported
        print("plan-studio: interrupted", file=sys.stderr)
        return _EXIT_INTERRUPTED

"""The one seam between the workbench and whatever carries a run out.

A run is carried out off the caller's thread (a page script is stopped at the next click, which
would cut a run off mid-step). The page's runs are durable (``_durable_handle``, a
``core.BackgroundRun`` over ``core.durable``); ``start_run`` carries out a run in memory only,
for runs that need no durability (mock and preview runs).
"""

from __future__ import annotations

from typing import Protocol

from core import BackgroundRun, Executor, Run, RunKind, RunProgress

__all__ = ["RunHandle", "start_run"]


class RunHandle(Protocol):
    """What the workbench needs of a run going on."""

    @property
    def alive(self) -> bool: ...

    @property
    def run(self) -> Run: ...

    @property
    def error(self) -> BaseException | None: ...

    def stop(self) -> None: ...

    def cancel(self) -> None:
        """End the run now: running steps are cancelled (or abandoned) and marked so."""
        ...

    def progress(self) -> RunProgress:
        """Where the run is now (each step's status, the step running), for a live view."""
        ...

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the run to end (at most ``timeout`` seconds); True when it has."""
        ...


def start_run(executor: Executor, run: Run, kind: RunKind) -> RunHandle:
    """Carry out the next step (``kind="next"``) or the rest of ``run`` in the background, in
    memory only."""
    return BackgroundRun(executor, run, kind).start()

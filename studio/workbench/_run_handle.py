"""The one seam between the workbench and whatever carries a run out.

A run is carried out off the caller's thread (a page script is stopped at the next click, which
would cut a run off mid-step). Every run of the studio is durable (``_durable_handle``, over
``core.durable``), registered with the runs live here (``_runs_here``) while it goes on.
"""

from __future__ import annotations

from typing import Protocol

from core import Run, RunProgress

__all__ = ["RunHandle"]


class RunHandle(Protocol):
    """What the workbench needs of a run going on."""

    run_id: str

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
        """Where the run is now (each step's ``StepStatus``, the step running), for a live view."""
        ...

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the run to end (at most ``timeout`` seconds); True when it has."""
        ...


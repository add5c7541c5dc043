"""Runs whose steps wait for a person, kept by id while no worker drives them, so a decision
can come from the review API or the MCP server as well as from the page (``_deciding``)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from core import Run, waiting_steps

__all__ = ["held_lock", "held_run", "held_runs", "hold_if_waiting", "let_go"]

# Runs kept for a decision; the oldest leave first past this many (each tab holds one run).
_MAX_HELD = 256
held_lock = threading.Lock()
held_runs: OrderedDict[str, Run] = OrderedDict()


def hold_if_waiting(run: Run) -> None:
    """Keep ``run`` for a decision while it has waiting steps."""
    with held_lock:
        if waiting_steps(run):
            held_runs[run.id] = run
            held_runs.move_to_end(run.id)
            while len(held_runs) > _MAX_HELD:
                held_runs.popitem(last=False)
        else:
            held_runs.pop(run.id, None)


def let_go(run_id: str) -> None:
    """``run_id`` is being driven again (or replaced): no decision on it from elsewhere now."""
    with held_lock:
        held_runs.pop(run_id, None)


def held_run(run_id: str) -> Run | None:
    with held_lock:
        return held_runs.get(run_id)

"""Steps in doubt: a step of a tool that may write, cut off mid-call (the studio was killed, the
run cancelled), may have had its effect; it runs again, or is marked failed, only as the user
decides (``core.durable``). What the Run buttons, Resume and the review API check first."""

from __future__ import annotations

from typing import Mapping

from core import Run

from .._services import Services

__all__ = ["doubts", "undecided_doubts"]


def doubts(services: Services, run: Run) -> list[str]:
    """The steps of ``run`` (as stored) in doubt, in plan order."""
    from core.durable import cut_off_steps

    return cut_off_steps(run, services.registry)[1]


def undecided_doubts(services: Services, run: Run, decisions: Mapping[str, str] = {}) -> str | None:
    """Why ``run`` cannot go on without the user's decisions (which steps), or None."""
    undecided = [step for step in doubts(services, run) if step not in decisions]
    if not undecided:
        return None
    labels = ", ".join(run.plan.label(step) for step in undecided)
    one = len(undecided) == 1
    return (f"{labels} may have had {'its' if one else 'their'} effect before the run stopped; "
            f"choose for {'it' if one else 'each'}: run again or mark failed.")

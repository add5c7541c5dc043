"""A run cut off, and its steps in doubt: a step of a tool that may write, cut off mid-call (the
studio was killed, the run cancelled), may have had its effect; it runs again, or is marked
failed, only as the user decides (``core.durable``). What the Run buttons, Resume and the review
API check first."""

from __future__ import annotations

from typing import Mapping

from core import CUT_OFF, NotFound, Run

from ._services import Services

__all__ = ["cut_off", "doubts", "undecided_doubts"]


def cut_off(services: Services, run: Run) -> bool:
    """Whether ``run`` (as stored) stopped mid-run: a step left running, interrupted or cancelled;
    or, killed between two steps, its record still says running while nothing runs it here."""
    store = services.store
    if run.finished or services.runs.going(run.id):
        return False
    if any(state.status in CUT_OFF for state in run.steps.values()):
        return True
    if run.started_at is None:
        return False
    try:
        plan_id, _version = store.records.where(run.id)
        return any(r.id == run.id and r.status == "running" for r in store.list_runs(plan_id))
    except NotFound:  # a run only in the page (an older tab's draft): never stored, never cut off
        return False


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

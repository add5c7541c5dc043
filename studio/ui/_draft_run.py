"""A tab's run, named in its draft by id: the run itself is in the store, once.

Every run of the page is durable, in the store from its first step (``studio.workbench._running``),
so the draft holds only which run the tab shows (``{"id": <run id>}``), and a reload reads it back
from the store, as it is now (a run that went on after the draft was written shows how far it
got). Older releases kept a copy of the run in the draft: whole in the draft itself, or in a part
of its own (``<draft id>.run``, ``{"part": <run id>}``). Such a draft still opens: the copy is
read, the run as stored is taken when the store has it, and a run the store never had (one only
in the page) is stored then with the tab's saved version (as running it on would store it). From
then on the draft names it by id (``upgraded``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core import Plan, Run, NotFound
from core.storage import PlanStore

__all__ = ["DraftRun", "read_run", "run_reference"]

_PART = ".run"


def run_reference(run_id: str | None) -> dict[str, str] | None:
    """What the draft holds for its run (shown, or going on): its id (the run is in the store)."""
    return None if run_id is None else {"id": run_id}


@dataclass(frozen=True)
class DraftRun:
    """The run a draft names: ``stored`` when the store has it (else it is the tab's copy, from an
    older release); ``upgraded`` when the draft held a copy, so it is to be written again by id."""

    run: Run
    stored: bool
    upgraded: bool


def read_run(store: PlanStore, draft_id: str, reference: object, plan: Plan) -> DraftRun:
    """The run the draft names. Raises ``ValueError`` saying why when it cannot be had."""
    if isinstance(reference, dict) and set(reference) == {"id"} and isinstance(reference["id"], str):
        try:
            return DraftRun(store.load_run(reference["id"]), stored=True, upgraded=False)
        except NotFound:
            raise ValueError("it is gone from the store (its plan was deleted)") from None
    copy = _old_copy(store, draft_id, reference, plan)
    try:
        return DraftRun(store.load_run(copy.id), stored=True, upgraded=True)
    except NotFound:  # only ever in the page: stored by the caller, if it can
        return DraftRun(copy, stored=False, upgraded=True)


def _old_copy(store: PlanStore, draft_id: str, reference: object, plan: Plan) -> Run:
    """The copy of the run an older release kept: in its draft's part, or whole in the draft."""
    if not (isinstance(reference, dict) and set(reference) == {"part"}):
        return Run.model_validate(reference)
    part = store.load_draft(draft_id + _PART)
    if part is None:
        raise ValueError("its results are gone from the store")
    data = json.loads(part.content)
    if not isinstance(data, dict) or data.get("id") != reference["part"]:
        raise ValueError("the results kept are of another run")
    return Run.model_validate({**data, "plan": plan})

"""A tab's run, kept beside its draft and written only when the run changed.

The draft (``_drafts``) is written on every change of the tab's state: a goal typed, a note
edited, an approval. It used to hold the run whole, so a run with a big result (a 50 MB query
answer) was serialised and written again on each of those changes. The run now lives in a part
of the draft of its own (``<draft id>.run``, pruned with the draft: ``PlanStore.prune_drafts``),
written when the run changed (a step ran, a new run, another run opened); the draft names it
(``{"part": <run id>}``). The part leaves the plan out: the run's plan is the draft's plan (an
edit that changes what runs clears the run; locks and notes are copied into it).
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from core import Plan, Run
from core.storage import PlanStore

from ._state import Keys

__all__ = ["copy_run", "keep_run", "read_run", "run_reference"]

_PART = ".run"


def _part_id(draft_id: str) -> str:
    return draft_id + _PART


def _signature(run: Run) -> tuple[Any, ...]:
    """Different whenever the run is: any step that ran again has a new start time. The worker
    changes a run in place, so the same object is no proof that nothing changed."""
    return (run.id, run.started_at, run.finished_at, run.answer,
            tuple((s.step_id, s.status, s.started_at, s.duration_ms, s.error) for s in run.steps.values()))


def run_reference(run: Run | None) -> dict[str, str] | None:
    """What the draft holds for its run: which run its part must hold."""
    return None if run is None else {"part": run.id}


def keep_run(store: PlanStore, draft_id: str, run: Run | None) -> None:
    """Write the run's part if the run changed since the part was last written (by this session,
    or read back by it). With no run (none yet, or a worker holds it) the part stays as it is:
    the draft names no run, and the part goes when the draft does."""
    if run is None:
        return
    signature = _signature(run)
    if signature == st.session_state[Keys.DRAFT_RUN_WRITTEN]:
        return
    store.save_draft(_part_id(draft_id), json.dumps(run.model_dump(mode="json", exclude={"plan"}),
                                                    ensure_ascii=True, separators=(",", ":")))
    st.session_state[Keys.DRAFT_RUN_WRITTEN] = signature


def read_run(store: PlanStore, draft_id: str, reference: object, plan: Plan) -> Run:
    """The run the draft names, with the draft's ``plan``. Raises ``ValueError`` saying why
    when it cannot be had. A draft written before runs had a part of their own holds the run
    whole, and reads as it did."""
    if not (isinstance(reference, dict) and set(reference) == {"part"}):
        return Run.model_validate(reference)
    part = store.load_draft(_part_id(draft_id))
    if part is None:
        raise ValueError("its results are gone from the store")
    data = json.loads(part.content)
    if not isinstance(data, dict) or data.get("id") != reference["part"]:
        raise ValueError("the results kept are of another run")
    run = Run.model_validate({**data, "plan": plan})
    st.session_state[Keys.DRAFT_RUN_WRITTEN] = _signature(run)  # as the part holds it: no rewrite
    return run


def copy_run(store: PlanStore, draft_id: str, copy_id: str) -> None:
    """A tab that copies another's draft copies its run's part too, so neither writes over
    the other's."""
    part = store.load_draft(_part_id(draft_id))
    if part is not None:
        store.save_draft(_part_id(copy_id), part.content)

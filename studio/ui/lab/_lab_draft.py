"""The Lab's unsaved work kept with the tab's draft, so a reload brings it back.

The tab's draft (``_drafts``, named in the URL) gets a part ``<draft>.lab``: the experiment as the
page holds it (the edited words, the goal set, the planner) and which saved version it came
from. It is written when it changed (compared as text), and read on the session's first visit
to the Lab. A part that does not read back (another version of the studio wrote it) is left
alone and the Lab starts empty, saying so.
"""

from __future__ import annotations

import json
from dataclasses import replace

import streamlit as st

from core import PlanStudioError, ToolRegistry
from core.lab import Experiment
from core.storage import PlanStore

from ._lab_state import current_experiment, lab_work, open_experiment
from .._state import Keys

__all__ = ["keep_lab_work", "restore_lab_work"]

_WRITTEN = "lab.draft.written"
_GOALS = "lab.draft.goals"  # (the goal list written, its JSON): a 500-goal set is not dumped per rerun


def _part() -> str | None:
    draft_id = st.session_state.get(Keys.DRAFT_ID)
    return f"{draft_id}.lab" if draft_id else None


def restore_lab_work(store: PlanStore) -> str | None:
    """On the session's first Lab page, the work its draft kept; a notice when it cannot be read."""
    part = _part()
    if "lab.work" in st.session_state or part is None:
        return None
    draft = store.load_draft(part)
    if draft is None:
        return None
    try:
        data = json.loads(draft.content)
        experiment = Experiment.from_json(data["experiment"])
        saved_id, version = data.get("saved_id"), data.get("saved_version")
    except (ValueError, KeyError, TypeError, PlanStudioError):
        lab_work()  # start empty; the part stays for whoever can read it
        return "The Lab's unsaved work in this tab could not be read back; the Lab starts empty."
    open_experiment(experiment, saved_id=saved_id if isinstance(saved_id, str) else None,
                    saved_version=version if isinstance(version, int) else None)
    st.session_state[_WRITTEN] = draft.content
    return None


def keep_lab_work(store: PlanStore, registry: ToolRegistry) -> None:
    """Write the Lab's work to the tab's draft when it changed since last written."""
    part = _part()
    if part is None:
        return
    work = lab_work()
    experiment = current_experiment(work, registry)
    cached = st.session_state.get(_GOALS)
    if cached is None or cached[0] is not work.goals:
        cached = (work.goals, json.dumps([g.as_json() for g in work.goals]))
        st.session_state[_GOALS] = cached
    # The experiment's goals come last in its JSON, and the experiment last in the part: the
    # cached goals go in at the end.
    head = json.dumps({"saved_id": work.saved_id, "saved_version": work.saved_version,
                       "experiment": replace(experiment, goals=[]).as_json()})
    content = f'{head[:-len("[]}}")]}{cached[1]}}}}}'
    if content == st.session_state.get(_WRITTEN):
        return
    store.save_draft(part, content)
    st.session_state[_WRITTEN] = content
    if store.load_draft(part.removesuffix(".lab")) is None:
        # A part is found through its tab's draft, which the entry script writes only when the
        # Plan page's state changes: have it written after this run (``keep_draft``).
        st.session_state[Keys.DRAFT_WRITTEN] = None

"""The Lab's goal set: typed (one goal a line), the Library's saved plans (their latest version as
the plan expected), or a file (JSON lines or plain text; bad lines named by number and skipped).
Each way replaces the set; the set is kept with the experiment."""

from __future__ import annotations

import streamlit as st

from core.lab import MAX_GOALS, goals_from_file, goals_from_library, goals_from_text
from core.storage import PlanStore

from ._lab_state import LabWork, key, lab_work
from .._text import md_escape

__all__ = ["goal_set"]

_PREVIEW = 10


def goal_set(work: LabWork, store: PlanStore) -> None:
    st.subheader("Goal set")
    typed, library, upload = st.tabs(["Type", "From the Library", "From a file"], key=key(work, "goals.tabs"))
    with typed:
        st.text_area("Goals, one per line", key=key(work, "goals.text"), height=120,
                     placeholder="Get facilities in Berlin\nAnalyse today's contaminants in Hannover")
        st.button("Use these goals", key=key(work, "goals.use_text"), on_click=_use_text, icon=":material/checklist:")
    with library:
        st.text_input("Saved plans whose goal contains", key=key(work, "goals.search"),
                      placeholder="all saved plans")
        st.button("Use the Library's goals", key=key(work, "goals.use_library"), on_click=_use_library, args=(store,),
                  icon=":material/folder_open:",
                  help="Each saved plan's goal, with its latest version as the plan expected")
    with upload:
        st.file_uploader("A goal set file: JSON lines ({\"goal\": ..., \"expected\": plan}) or one goal a line",
                         type=["jsonl", "json", "ndjson", "txt"], key=key(work, "goals.file"),
                         on_change=_use_file)
    for problem in work.goal_problems:
        st.warning(md_escape(problem), icon=":material/warning:")
    expected = sum(g.expected is not None for g in work.goals)
    if not work.goals:
        st.info("No goals yet: type some, take the Library's, or read a file.")
        return
    st.caption(f"{len(work.goals)} goal{'s' if len(work.goals) != 1 else ''}, {expected} with a plan expected")
    st.dataframe([{"goal": g.goal, "expected plan": "yes" if g.expected is not None else "", "from": g.source}
                  for g in work.goals[:_PREVIEW]], hide_index=True, key=key(work, "goals.preview"))
    if len(work.goals) > _PREVIEW:
        st.caption(f"… and {len(work.goals) - _PREVIEW} more")


def _use_text() -> None:
    work = lab_work()
    text = st.session_state.get(key(work, "goals.text")) or ""
    work.goals = goals_from_text(text)
    lines = sum(1 for line in text.splitlines() if line.strip())
    work.goal_problems = [f"Only the first {MAX_GOALS:,} goals are kept"] if lines > MAX_GOALS else []


def _use_library(store: PlanStore) -> None:
    work = lab_work()
    goals = goals_from_library(store, str(st.session_state.get(key(work, "goals.search")) or ""))
    work.goals = goals
    work.goal_problems = [] if goals else ["No saved plan matches: the goal set is empty."]


def _use_file() -> None:
    work = lab_work()
    upload = st.session_state.get(key(work, "goals.file"))
    if upload is None:
        return
    goals, problems = goals_from_file(upload.getvalue(), upload.name)
    work.goals = goals
    work.goal_problems = [f"{upload.name}: {p}" for p in problems]

"""Asking before another plan takes the editor's place while it holds unsaved edits.

A new goal, a plan or run opened from the Library, a review opened from Reviews, or an import
each put another plan in the editor; edits not saved yet would go with the old one, without a
word. So when the editor holds unsaved work, the click asks first (``Question``, drawn on the Plan page by
``replace_question``): **Save first** (the edits become a version, then the other plan comes),
**Discard my edits**, or **Keep editing** (nothing happens). A plan nobody edited since it
came into the editor (or since it was saved) is replaced without asking: it can be had again,
and so is a pending review's work as its work record holds it (``_review_work``): reopening the
review from Reviews brings it back.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import streamlit as st

from . import _actions as actions
from . import _review_actions as review_actions
from .. import workbench as wb
from ._review_work import work_kept
from ._session import get_services
from ._state import Keys, bench
from ._text import md_escape
from ..workbench import Question

__all__ = ["Question", "import_plan", "open_plan", "open_review", "open_run", "plan_goal", "replace_question",
           "unsaved_edits"]

def unsaved_edits() -> str | None:
    """Why the editor's work is not saved anywhere but this tab's draft, or None."""
    why = wb.not_saved(bench())
    # Looked up only when there is work to lose (it reads the store): a pending review's work
    # record that holds it all means reopening the review brings it back.
    return None if why is None or work_kept() is not None else why


def _asked(go: Callable[[], Any], what: str) -> bool:
    """In a callback: True when the editor holds unsaved work, so ``go`` (``what``) waits for an answer."""
    bench().notices = []
    bench().question = None
    if actions.run_in_progress():
        return False  # the action itself refuses, saying why
    if st.session_state.get(Keys.JSON, "") != bench().json_read:
        actions.edit_json()  # text typed just before the click is part of the work
    why = unsaved_edits()
    if why is None:
        return False
    bench().question = Question(go, what, why)
    return True


def plan_goal() -> None:
    """The Plan button: plan the goal typed, once the editor's unsaved work is settled."""
    goal = str(st.session_state.get(Keys.GOAL, "")).strip()
    if goal and _asked(partial(_plan, goal), f"plan the goal “{goal}”"):
        return
    actions.make_plan()


def _plan(goal: str) -> None:
    """Plan ``goal``, the one typed when the question was asked (the box may hold another now)."""
    st.session_state[Keys.GOAL] = goal
    actions.make_plan()


def open_plan(plan_id: str, version: int | None, goal: str) -> bool:
    """The Library's Open: True when the Plan page should show next (opened, or asking)."""
    if unsaved_edits() is not None and version is None:
        # The latest version now: "Save first" adds one, which is not the plan asked for.
        with actions.reported("open the plan"):
            version = max(v.version for v in get_services().store.versions(plan_id))
    which = "the latest version" if version is None else f"version {version}"
    if _asked(partial(actions.open_saved_plan, plan_id, version), f"open {which} of “{goal or plan_id}”"):
        return True
    return actions.open_saved_plan(plan_id, version)


def open_run(plan_id: str, version: int, run_id: str, goal: str) -> bool:
    """The Library's Open run: True when the Plan page should show next (opened, or asking)."""
    what = f"open run {run_id} of “{goal or plan_id}”"
    if _asked(partial(actions.open_saved_run, plan_id, version, run_id), what):
        return True
    return actions.open_saved_run(plan_id, version, run_id)


def open_review(review_id: str, what: str) -> bool:
    """Reviews' Review or Open (or a ?review= link): True when the Plan page should show next
    (opened, or asking). ``what`` names it for the question, e.g. "review the plan bot sent"."""
    if not review_actions.is_reviewing(review_id) and _asked(partial(review_actions.open_review, review_id), what):
        return True
    return review_actions.open_review(review_id)


def import_plan(text: str, fmt: str) -> None:
    """Import: the plan in ``text`` replaces the editor's, once its unsaved work is settled."""
    if text.strip() and _asked(partial(actions.import_plan, text, fmt), "import the plan"):
        return
    actions.import_plan(text, fmt)


def _discard() -> None:
    question: Question | None = bench().question
    bench().question = None
    if question is not None:
        question.go()


def _save_first() -> None:
    """Save the edits as a version, then go on; a save that did not happen (another tab saved
    first, say) leaves the question and says why."""
    question: Question | None = bench().question
    if question is None:
        return
    actions.save()
    if unsaved_edits() is not None:
        return  # save's own notice (or the conflict panel) says why
    saved = bench().saved
    bench().question = None
    question.go()
    actions.notify("success", f"Your edits were saved first, as version {saved.version}; the Library has them.")


def _keep_editing() -> None:
    bench().question = None
    bench().notices = []
    actions.notify("info", "Nothing was replaced: your edits are as you left them.")


def replace_question() -> None:
    """The question, where the Plan page is drawn, while one waits."""
    question: Question | None = bench().question
    if question is None:
        return
    blocker = actions.json_blocker()
    with st.container(border=True, key="plan.replace"):
        st.warning(md_escape(f"Your edits are not saved: {question.why}. To {question.what}, the editor "
                             "lets them go. Save them first, or discard them?"), icon=":material/edit_note:")
        save, discard, keep, _ = st.columns([1.2, 1.5, 1.3, 3])
        save.button("Save first", key="plan.replace.save", type="primary", on_click=_save_first,
                    disabled=blocker is not None, width="stretch",
                    help=md_escape(blocker) if blocker else "Store the plan as a new version, then go on.")
        discard.button("Discard my edits", key="plan.replace.discard", on_click=_discard, width="stretch")
        keep.button("Keep editing", key="plan.replace.keep", on_click=_keep_editing, width="stretch")
        if blocker is not None:
            st.caption(md_escape(f"Save first waits: {blocker}."))

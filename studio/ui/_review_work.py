"""A review in progress is kept like any draft: a reload, or reopening it from Reviews, brings
back the reviewer's work, not the plan as the agent sent it.

Two records keep it:

- the tab's draft (``_drafts``) holds which review the editor is reviewing, the comment typed
  for the agent and the agent's own tool definitions (``draft_part`` / ``restore_part``), so
  a reloaded tab shows the review bar again and checks and edits the agent's steps against
  their definitions;
- the review's own work record (a draft named ``review-<id>`` in the store, ``keep_review_work``)
  holds the plan as the reviewer has edited it, the Plan JSON text (even while it does not
  parse) and the comment, so opening the pending review again, from this tab after "Later" or
  from another tab, brings that work back (``workbench.open_review``). Deciding the review forgets it.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from ._session import get_services
from ._state import Keys, bench
from ..workbench import log, work_id

__all__ = ["ReviewKeys", "draft_part", "forget_work", "keep_review_work", "restore_part",
           "work_kept"]

_FORMAT = 1  # the work record's layout


class ReviewKeys:
    COMMENT = Keys.REVIEW_COMMENT  # the reviewer's comment, sent with the decision (the workbench holds which review)
    MESSAGE = "review.message"  # (kind, text) for the Reviews page, said once
    LINK_OPENED = "review.link_opened"  # the ?review= id this session already opened
    SEEN = "review.seen"  # what the list showed: (reviews, pending), to notice new ones
    PAGE = "reviews.page"  # the Reviews list's page shown, from 0
    STATUS = "reviews.status"  # the list's status filter: "all", "pending", "approved", "rejected" or "withdrawn"
    AGENT = "reviews.agent"  # the list's agent filter: an agent's name, or None for all
    WORK_WRITTEN = "review.work_written"  # what the review's work record last written holds


# -- in the tab's draft ----------------------------------------------------------------------------

def draft_part() -> dict[str, Any] | None:
    """What the tab's draft keeps of the review held open: its id, the comment, the agent's tools."""
    review_id = bench().review_id
    if review_id is None:
        return None
    held = bench().review_tools
    tools = held[1] if isinstance(held, tuple) and held[0] == review_id else None
    return {"id": review_id, "comment": st.session_state.get(ReviewKeys.COMMENT) or "", "tools": tools}


def restore_part(part: Any) -> None:
    """Hold the review a reloaded tab's draft names open again (the plan came back with the draft)."""
    if not isinstance(part, dict) or not isinstance(part.get("id"), str):
        return
    tools = part.get("tools")
    comment = part.get("comment")
    bench().review_id = part["id"]
    st.session_state[ReviewKeys.COMMENT] = comment if isinstance(comment, str) else ""
    bench().review_tools = (part["id"], tools if isinstance(tools, list) else None)


# -- the review's own work record ------------------------------------------------------------------

def _work_snapshot() -> tuple[Any, ...]:
    state = st.session_state
    return (bench().review_id, bench().plan, state.get(Keys.JSON), state.get(ReviewKeys.COMMENT))


def keep_review_work() -> None:
    """Write the reviewer's work on the pending review held open when it changed since the last
    write; the entry script calls it on every run. A failure is logged and retried on the next
    change: the work is still in the session and in the tab's draft."""
    snapshot = _work_snapshot()
    review_id, plan, text, comment = snapshot
    written = st.session_state.get(ReviewKeys.WORK_WRITTEN)
    if review_id is None or plan is None or (
            written is not None and all(a is b or a == b for a, b in zip(snapshot, written))):
        return
    store = get_services().store
    try:
        if store.get_review(review_id).status == "pending":  # a decided review's work is done
            content = {"format": _FORMAT, "plan": plan.model_dump(mode="json"), "json": text or "",
                       "comment": comment or ""}
            store.save_draft(work_id(review_id), json.dumps(content, ensure_ascii=True, separators=(",", ":")))
    except Exception as exc:
        log.warning("could not keep the work on review %s: %s", review_id, exc)
        return
    st.session_state[ReviewKeys.WORK_WRITTEN] = snapshot


def work_kept() -> str | None:
    """The pending review whose work record holds the editor's plan and Plan JSON as they are
    now (while it is reviewed, or after "Later"), or None: reopening it brings them back, so
    another plan may take the editor's place without asking."""
    written = st.session_state.get(ReviewKeys.WORK_WRITTEN)
    if written is None:
        return None
    review_id, plan, text, _comment = written  # the comment is in the record, not in the editor after "Later"
    state = st.session_state
    if review_id is None or plan is None or bench().plan != plan \
            or (state.get(Keys.JSON) or "") != (text or ""):
        return None
    try:  # a decided review's record is gone (forget_work), though the snapshot matches
        store = get_services().store
        kept = store.review_status(review_id) == "pending" and store.load_draft(work_id(review_id)) is not None
    except Exception as exc:  # then the user is asked: nothing is lost
        log.warning("could not look up the work on review %s: %s", review_id, exc)
        return None
    return review_id if kept else None


def forget_work() -> None:
    """The review is decided (``workbench.decide_review`` deleted its work record): nothing to write."""
    st.session_state[ReviewKeys.WORK_WRITTEN] = _work_snapshot()

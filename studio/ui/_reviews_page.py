"""The Reviews page: plans agents sent for review, pending ones first; open one into the Plan
page to edit it, then approve or reject it there.

Agents send plans over HTTP (``POST /api/reviews``) or MCP while the page is open, so a small
fragment looks at the counts every ``WATCH_SECONDS`` and redraws the page when they change.
A link ``/reviews?review=ID`` (what the API answers) opens that review straight away.
"""

from __future__ import annotations

import streamlit as st

from core.storage import ReviewSummary

from . import _actions as actions
from . import _unsaved as unsaved
from ._navigation import PLAN_PAGE, page
from ._review_actions import ReviewKeys
from ..workbench._services import Services
from ._session import get_services
from ._text import md_escape

__all__ = ["LIST_LIMIT", "WATCH_SECONDS", "reviews_page"]

WATCH_SECONDS = 1.0
LIST_LIMIT = 200
_STATUS_COLOUR = {"pending": "orange", "approved": "green", "rejected": "red"}


def reviews_page() -> None:
    services = actions.page_services("Reviews", "open the reviews")
    if services is None:
        return
    _open_linked()
    st.caption("Plans agents sent for review before they act. Agents send them to `POST /api/reviews` on this "
               "port (token: Settings, or `plan-studio token`), with `ReviewClient`, or through "
               "`plan-studio mcp-server`.")
    message = st.session_state.get(ReviewKeys.MESSAGE)
    st.session_state[ReviewKeys.MESSAGE] = None  # said once
    if message is not None:
        getattr(st, message[0])(md_escape(message[1]))
    with actions.shown("list the reviews"):
        counts = _counts(services)
        st.session_state[ReviewKeys.SEEN] = counts
        total, pending = counts
        if not total:
            st.info("No reviews yet. When an agent sends a plan, it appears here.")
        else:
            st.caption(f"{pending} pending · {total} in all; pending first, newest first")
        for summary in services.store.list_reviews(limit=LIST_LIMIT):
            _card(summary)
    _watch()


def _counts(services: Services) -> tuple[int, int]:
    return services.store.count_reviews(), services.store.count_reviews("pending")


@st.fragment(run_every=WATCH_SECONDS)
def _watch() -> None:
    """Redraw the page when a review arrives or is decided elsewhere."""
    try:
        counts = _counts(get_services())
    except Exception:  # the page itself says what is wrong with the store
        return
    if counts != st.session_state.get(ReviewKeys.SEEN):
        st.rerun()


def _open_linked() -> None:
    """Open the review a ``?review=ID`` link names, once per session and link."""
    review_id = st.query_params.get("review")
    if not review_id or st.session_state.get(ReviewKeys.LINK_OPENED) == review_id:
        return
    st.session_state[ReviewKeys.LINK_OPENED] = review_id
    _open(review_id, f"open review {review_id}")


def _open(review_id: str, what: str) -> None:
    # Opened, or the Plan page asks first what becomes of unsaved edits (_unsaved).
    if unsaved.open_review(review_id, what):
        st.switch_page(page(PLAN_PAGE))
    actions.show_notices()  # why it could not be opened


def _card(summary: ReviewSummary) -> None:
    with st.container(border=True, key=f"reviews.card.{summary.id}"):
        about, button = st.columns([6, 1], vertical_alignment="center")
        about.markdown(f"**{md_escape(summary.goal or '(no goal)')}**")
        decided = f" · decided {summary.decided_at:%Y-%m-%d %H:%M}" if summary.decided_at else ""
        about.markdown(
            f":{_STATUS_COLOUR.get(summary.status, 'gray')}-badge[{md_escape(summary.status)}] from "
            f"**{md_escape(summary.agent)}** · sent {summary.submitted_at:%Y-%m-%d %H:%M:%S} UTC · "
            f"{summary.step_count} step{'s' if summary.step_count != 1 else ''}{decided}")
        label = "Review" if summary.status == "pending" else "Open"
        if button.button(label, key=f"reviews.open.{summary.id}", icon=":material/rate_review:",
                         type="primary" if summary.status == "pending" else "secondary", width="stretch"):
            _open(summary.id, f"{label.lower()} the plan {summary.agent} sent "
                              f"(“{summary.goal or summary.id}”)")

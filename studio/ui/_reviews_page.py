"""The Reviews page: plans agents sent for review, pending ones first; open one into the Plan
page to edit it, then approve or reject it there.

Agents send plans over HTTP (``POST /api/reviews``) or MCP while the page is open, so a small
fragment looks at the counts every ``WATCH_SECONDS`` and redraws the page when they change.
A link ``/reviews?review=ID`` (what the API answers) opens that review straight away.

The list is paged (``PAGE_SIZE`` a page, pending first, newest first; filtered by status and
agent): a draw reads one tally of the statuses, the agents' names and one page of summaries,
whatever the number of reviews (1,000 pending draw as fast as 10; ``benchmarks/reviews_page.py``).
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

__all__ = ["PAGE_SIZE", "WATCH_SECONDS", "reviews_page"]

WATCH_SECONDS = 1.0
PAGE_SIZE = 50
AGENTS_LISTED = 500  # the agent filter's choices, at most
_STATUSES = ("all", "pending", "approved", "rejected", "withdrawn")
_STATUS_COLOUR = {"pending": "orange", "approved": "green", "rejected": "red", "withdrawn": "gray"}


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
        tally = services.store.review_tally()
        counts = _totals(tally)
        st.session_state[ReviewKeys.SEEN] = counts
        total, pending = counts
        if not total:
            st.info("No reviews yet. When an agent sends a plan, it appears here.")
        else:
            st.caption(f"{pending:,} pending · {total:,} in all; pending first, newest first")
            _listing(services, tally)
    _watch()


def _totals(tally: dict[str, int]) -> tuple[int, int]:
    return sum(tally.values()), tally.get("pending", 0)


def _counts(services: Services) -> tuple[int, int]:
    return _totals(services.store.review_tally())


def _to_page(page: int) -> None:
    st.session_state[ReviewKeys.PAGE] = page


def _listing(services: Services, tally: dict[str, int]) -> None:
    """The filters, one page of review cards, and the pager."""
    agents = services.store.review_agents(limit=AGENTS_LISTED)
    if st.session_state.get(ReviewKeys.AGENT) not in (None, *agents):
        st.session_state[ReviewKeys.AGENT] = None  # an agent no longer there: all agents
    by_status, by_agent = st.columns(2)
    status = by_status.selectbox("Status", _STATUSES, key=ReviewKeys.STATUS, on_change=_to_page, args=(0,),
                                 format_func=lambda s: "all statuses" if s == "all" else s)
    agent = by_agent.selectbox("Agent", [None, *agents], key=ReviewKeys.AGENT, on_change=_to_page, args=(0,),
                               format_func=lambda a: "all agents" if a is None else a)
    kept_tally = tally if agent is None else services.store.review_tally(agent=agent)
    kept = sum(kept_tally.values()) if status == "all" else kept_tally.get(status, 0)
    if not kept:
        st.info("No reviews match these filters.")
        return
    last = (kept - 1) // PAGE_SIZE
    page = min(max(int(st.session_state.get(ReviewKeys.PAGE) or 0), 0), last)
    st.session_state[ReviewKeys.PAGE] = page
    for summary in services.store.list_reviews(None if status == "all" else status, agent=agent,
                                               limit=PAGE_SIZE, offset=page * PAGE_SIZE):
        _card(summary)
    if last == 0:
        return
    first_b, back, where, ahead, last_b = st.columns([1, 1, 3, 1, 1], vertical_alignment="center")
    first_b.button("First", key="reviews.page.first", on_click=_to_page, args=(0,), disabled=page == 0,
                   icon=":material/first_page:", width="stretch")
    back.button("Previous", key="reviews.page.previous", on_click=_to_page, args=(page - 1,), disabled=page == 0,
                icon=":material/chevron_left:", width="stretch")
    where.caption(f"Page {page + 1} of {last + 1} · reviews {page * PAGE_SIZE + 1:,}–"
                  f"{min((page + 1) * PAGE_SIZE, kept):,} of {kept:,}")
    ahead.button("Next", key="reviews.page.next", on_click=_to_page, args=(page + 1,), disabled=page == last,
                 icon=":material/chevron_right:", width="stretch")
    last_b.button("Last", key="reviews.page.last", on_click=_to_page, args=(last,), disabled=page == last,
                  icon=":material/last_page:", width="stretch")


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
        how = "withdrawn by its agent" if summary.status == "withdrawn" else "decided"
        decided = f" · {how} {summary.decided_at:%Y-%m-%d %H:%M}" if summary.decided_at else ""
        about.markdown(
            f":{_STATUS_COLOUR.get(summary.status, 'gray')}-badge[{md_escape(summary.status)}] from "
            f"**{md_escape(summary.agent)}** · sent {summary.submitted_at:%Y-%m-%d %H:%M:%S} UTC · "
            f"{summary.step_count} step{'s' if summary.step_count != 1 else ''}{decided}")
        label = "Review" if summary.status == "pending" else "Open"
        if button.button(label, key=f"reviews.open.{summary.id}", icon=":material/rate_review:",
                         type="primary" if summary.status == "pending" else "secondary", width="stretch"):
            _open(summary.id, f"{label.lower()} the plan {summary.agent} sent "
                              f"(“{summary.goal or summary.id}”)")

"""The Reviews page: runs waiting for a person to decide a step, then plans agents sent for
review, pending ones first; open one into the Plan page to decide, edit, approve or reject it
there. The navigation names how many wait (``waiting_for_people``: pending reviews and waiting
runs), as "Reviews (N)".

Agents send plans over HTTP (``POST /api/reviews``) or MCP while the page is open, so a small
fragment looks at the counts (reviews and waiting runs) every ``WATCH_SECONDS`` and redraws the
page when they change.
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
from ..workbench import waiting_count, waiting_runs

__all__ = ["PAGE_SIZE", "WAITING_LISTED", "WATCH_SECONDS", "reviews_page", "waiting_for_people"]

WATCH_SECONDS = 1.0
PAGE_SIZE = 50
WAITING_LISTED = 50  # waiting runs listed, newest first; the count says how many in all
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
    with actions.shown("list the runs waiting"):
        _waiting_runs(services)
    with actions.shown("list the reviews"):
        tally = services.store.review_tally()
        counts = _totals(tally)
        st.session_state[ReviewKeys.SEEN] = (*counts, waiting_count(services))
        total, pending = counts
        if not total:
            st.info("No reviews yet. When an agent sends a plan, it appears here.")
        else:
            st.caption(f"{pending:,} pending · {total:,} in all; pending first, newest first")
            _listing(services, tally)
    _watch()


def _totals(tally: dict[str, int]) -> tuple[int, int]:
    return sum(tally.values()), tally.get("pending", 0)


def _counts(services: Services) -> tuple[int, int, int]:
    return (*_totals(services.store.review_tally()), waiting_count(services))


def waiting_for_people() -> int:
    """How many wait for a person: pending reviews and runs waiting for a decision (the
    navigation's count; 0 when the store cannot say)."""
    try:
        services = get_services()
        return services.store.review_tally().get("pending", 0) + waiting_count(services)
    except Exception:  # the pages say what is wrong with the store
        return 0


def _waiting_runs(services: Services) -> None:
    """The runs waiting for a person to decide a step: each opens in the Plan page to decide."""
    count = waiting_count(services)
    if not count:
        return
    st.subheader(f"Runs waiting for you · {count:,}")
    st.caption("A step of each waits for a person to approve or reject it (a rule, or the reviewer, asked). "
               "Open one to see its arguments and decide in the Plan page.")
    for run in waiting_runs(services, WAITING_LISTED):
        with st.container(border=True, key=f"reviews.run.{run.id}"):
            about, button = st.columns([6, 1], vertical_alignment="center")
            about.markdown(f"**{md_escape(run.goal or '(no goal)')}**")
            about.markdown(f":yellow-badge[waiting] run {md_escape(run.id)} of version {run.version} · started "
                           f"{(run.started_at or run.created_at):%Y-%m-%d %H:%M:%S} UTC")
            if button.button("Decide", key=f"reviews.open_run.{run.id}", icon=":material/gavel:", type="primary",
                             width="stretch"):
                if unsaved.open_run(run.plan_id, run.version, run.id, run.goal):
                    st.switch_page(page(PLAN_PAGE))
                actions.show_notices()
    if count > WAITING_LISTED:
        st.caption(f"The {WAITING_LISTED} newest of {count:,} are listed.")
    st.subheader("Reviews")


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

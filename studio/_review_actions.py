"""What the Reviews page and the Plan page's review bar do: open a review into the editor,
approve or reject it, leave it. Kept apart from ``_actions`` (the plan editor's own actions).
"""

from __future__ import annotations

import streamlit as st

from core import Plan, PlanStudioError, ReviewDecided, Validator
from core.storage import Review

from . import _actions as actions
from ._review_intake import registry_for
from ._services import Services
from ._session import get_services
from ._state import Keys, SavedRef

__all__ = ["ReviewKeys", "close_review", "decide", "open_review", "open_review_id", "review_validator"]


class ReviewKeys:
    OPEN = Keys.REVIEW_OPEN  # id of the review the Plan page is reviewing, or None
    COMMENT = "review.comment"  # the reviewer's comment, sent with the decision
    MESSAGE = "review.message"  # (kind, text) for the Reviews page, said once
    LINK_OPENED = "review.link_opened"  # the ?review= id this session already opened
    SEEN = "review.seen"  # what the list showed: (reviews, pending), to notice new ones


def open_review_id() -> str | None:
    return st.session_state.get(ReviewKeys.OPEN)


def open_review(review_id: str) -> bool:
    """Put the review's plan (as approved, once it is) in the editor; False if it failed."""
    st.session_state[Keys.NOTICES] = []
    if actions.run_in_progress():
        actions.notify("info", "A run is in progress: stop it or let it finish, then open the review.")
        return False
    with actions.reported("open the review"):
        review = get_services().store.get_review(review_id)
        plan = review.approved_plan or review.plan
        saved = (SavedRef(review.plan_id, review.version, actions.fingerprint(plan))
                 if review.plan_id is not None and review.version is not None else None)
        actions.show_plan(plan, saved=saved, keeps_review=True)
        st.session_state[ReviewKeys.OPEN] = review.id
        st.session_state[ReviewKeys.COMMENT] = review.comment
        if review.status == "pending":
            actions.notify("info", f"Reviewing the plan {review.agent} sent. Edit it here if it needs it, "
                                   "then approve or reject it in the review bar.")
        return True
    return False


def close_review() -> None:
    st.session_state[ReviewKeys.OPEN] = None
    st.session_state[ReviewKeys.COMMENT] = ""


def decide(review_id: str, approve: bool) -> None:
    """Approve the plan in the editor (edits included, saved as a version) or reject it."""
    st.session_state[Keys.NOTICES] = []
    if approve and actions.json_blocker() is not None:
        actions.notify("error", "The Plan JSON does not parse: fix it, or undo the edit, before approving.")
        return
    plan: Plan | None = st.session_state[Keys.PLAN]
    saved: SavedRef | None = st.session_state[Keys.SAVED]
    comment = (st.session_state.get(ReviewKeys.COMMENT) or "").strip()
    store = get_services().store
    try:
        review = store.decide_review(review_id, approve=approve, plan=plan, comment=comment,
                                     plan_id=saved.plan_id if saved is not None else None)
    except ReviewDecided as exc:
        actions.notify("error", f"Not recorded: this review was already {exc.status} (in another tab or by "
                                "someone else). Open it from Reviews to see the decision.")
        return
    except Exception as exc:  # shown as a notice, never a traceback
        actions.notify("error", actions.failure_message("record the decision", exc))
        return
    if approve and plan is not None and review.plan_id is not None and review.version is not None:
        st.session_state[Keys.SAVED] = SavedRef(review.plan_id, review.version, actions.fingerprint(plan))
        actions.notify("success", f"Approved and sent back to {review.agent}, with your edits; "
                                  f"saved as version {review.version} of this plan.")
    else:
        actions.notify("success", f"Rejected; {review.agent} gets your comment.")


def review_validator(services: Services) -> Validator:
    """The validator for the plan in the editor: with a review open whose agent sent its own
    tool definitions, those count as tools too."""
    review_id = open_review_id()
    if review_id is None:
        return services.validator
    try:
        tools = _review_tools(services, review_id)
    except PlanStudioError:  # the review cannot be read: check against the studio's tools alone
        return services.validator
    return services.validator if not tools else Validator(registry_for(services, tools))


def _review_tools(services: Services, review_id: str) -> list[dict] | None:
    review: Review = services.store.get_review(review_id)
    return review.tools

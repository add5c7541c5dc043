"""What the Reviews page and the Plan page's review bar do: open a review into the editor,
approve or reject it, leave it. Kept apart from ``_actions`` (the plan editor's own actions).
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from core import Plan, PlanStudioError, ReviewDecided, Validator

from . import _actions as actions
from ._review_intake import registry_for
from ._review_work import ReviewKeys, bring_back_work, forget_work
from ._services import Services
from ._session import get_services
from ._state import Keys, SavedRef

__all__ = ["ReviewKeys", "close_review", "decide", "editor_services", "is_reviewing", "open_review",
           "open_review_id", "review_services"]

_SERVICES = "review.services"  # (studio services, tools, the services with the agent's tools): made once


def open_review_id() -> str | None:
    return st.session_state.get(ReviewKeys.OPEN)


def is_reviewing(review_id: str) -> bool:
    """True when the editor holds ``review_id`` while it is pending: opening it again brings back
    the work as it is (``open_review``), so nothing of it is lost."""
    if open_review_id() != review_id:
        return False
    try:
        return get_services().store.review_status(review_id) == "pending"
    except Exception:  # opening it says what is wrong
        return False


def open_review(review_id: str) -> bool:
    """Put the review in the editor: while it is pending, the reviewer's work on it where there is
    some (kept across reloads and tabs), else the plan as sent; once decided, the plan as
    approved, or as sent when rejected. False if it failed."""
    st.session_state[Keys.NOTICES] = []
    if actions.run_in_progress():
        actions.notify("info", "A run is in progress: stop it or let it finish, then open the review.")
        return False
    with actions.reported("open the review"):
        review = get_services().store.get_review(review_id)
        pending = review.status == "pending"
        if pending and open_review_id() == review.id:  # already in the editor: the work, its undo steps and all
            actions.notify("info", f"Back to the plan {review.agent} sent, with your edits and comment as you left them.")
            return True
        plan = review.approved_plan or review.plan
        saved = (SavedRef(review.plan_id, review.version, actions.fingerprint(plan))
                 if review.plan_id is not None and review.version is not None else None)
        actions.show_plan(plan, saved=saved, keeps_review=True)
        st.session_state[ReviewKeys.OPEN] = review.id
        st.session_state[ReviewKeys.COMMENT] = review.comment
        st.session_state[ReviewKeys.TOOLS] = (review.id, review.tools)
        if pending:
            earlier = bring_back_work(review.id)
            actions.notify("info", f"Reviewing the plan {review.agent} sent"
                                   + (", with your edits and comment so far" if earlier else "")
                                   + ". Edit it here if it needs it, then approve or reject it in the review bar.")
        return True
    return False


def close_review() -> None:
    st.session_state[ReviewKeys.OPEN] = None
    st.session_state[ReviewKeys.COMMENT] = ""


def approval_blocker(services: Services, plan: Plan | None) -> str | None:
    """Why the review cannot be approved now, or None: the gate of the plan page's Approve (the
    Plan JSON parses, the plan has no problems), with the agent's own tools counted."""
    blocker = actions.json_blocker()
    if blocker is not None:
        return blocker
    errors = [] if plan is None else services.validator.errors(plan)
    if errors:
        return (f"The plan has {len(errors)} problem{'s' if len(errors) != 1 else ''} to fix first "
                "(listed below the graph)")
    return None


def decide(review_id: str, approve: bool) -> None:
    """Approve the plan in the editor (edits included, saved as a version) or reject it.
    Approval is checked here, not only by the disabled button: a click the page sent before it
    drew the button disabled must not send the agent a plan with problems."""
    st.session_state[Keys.NOTICES] = []
    if approve and actions.edit_refused("approve the review"):  # a run going on, or the JSON not parsing
        return
    plan: Plan | None = st.session_state[Keys.PLAN]
    if approve:
        try:
            blocker = approval_blocker(editor_services(), plan)
        except Exception as exc:  # shown as a notice, never a traceback
            blocker = actions.failure_message("check the plan", exc)
        if blocker is not None:
            actions.notify("error", f"Not approved. {blocker}. The agent is still waiting for your decision.")
            return
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
    forget_work(review_id)
    if approve and plan is not None and review.plan_id is not None and review.version is not None:
        st.session_state[Keys.SAVED] = SavedRef(review.plan_id, review.version, actions.fingerprint(plan))
        actions.notify("success", f"Approved and sent back to {review.agent}, with your edits; "
                                  f"saved as version {review.version} of this plan.")
    else:
        actions.notify("success", f"Rejected; {review.agent} gets your comment.")


def _review_tools(services: Services, review_id: str) -> list[dict] | None:
    """The agent's own tool definitions of the review held open, as opened (or brought back by
    a reload); read from the store for a session that opened it before they were kept."""
    held = st.session_state.get(ReviewKeys.TOOLS)
    if isinstance(held, tuple) and held[0] == review_id:
        return held[1]
    tools = services.store.get_review(review_id).tools
    st.session_state[ReviewKeys.TOOLS] = (review_id, tools)
    return tools


def review_services(services: Services) -> Services:
    """``services`` for the plan in the editor: with a review open whose agent sent its own tool
    definitions, its registry and validator know those tools too, so the validator checks the
    agent's steps and the inspector and Add step edit them from their schemas."""
    review_id = open_review_id()
    if review_id is None:
        return services
    try:
        tools = _review_tools(services, review_id)
    except PlanStudioError:  # the review cannot be read: the review bar says so
        return services
    if not tools:
        return services
    made = st.session_state.get(_SERVICES)
    if made is not None and made[0] is services and made[1] is tools:
        return made[2]
    try:
        registry = registry_for(services, tools)
    except PlanStudioError as exc:
        actions.log.warning("the agent's tools of review %s do not read: %s", review_id, exc)
        return services
    with_tools = dataclasses.replace(services, registry=registry, validator=Validator(registry))
    st.session_state[_SERVICES] = (services, tools, with_tools)
    return with_tools


def editor_services() -> Services:
    """The services the plan in the editor is checked with, wherever it is checked (the Plan
    page's problems and Approve button, Approve, Approve review): a review's own tools count."""
    return review_services(get_services())

"""What the Reviews page and the Plan page's review bar do, as thin adapters over the
workbench's review use cases (``studio.workbench._reviewing``): open a review into the editor,
approve or reject it, leave it; and the services that know the agent's own tools.
"""

from __future__ import annotations

import streamlit as st

from core import PlanStudioError

from . import _actions as actions
from .. import workbench as wb
from ._review_work import ReviewKeys, forget_work
from ..workbench._services import Services
from ._session import get_services
from ._state import bench

__all__ = ["ReviewKeys", "close_review", "decide", "editor_services", "is_reviewing", "open_review",
           "open_review_id", "review_services"]

_SERVICES = "review.services"  # (studio services, tools, the services with the agent's tools): made once


def open_review_id() -> str | None:
    return bench().review_id


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
    """Put the review in the editor (see ``workbench.open_review``); False if it failed."""
    return actions.act(lambda b: wb.open_review(b, get_services().store, review_id), "open the review").ok


def close_review() -> None:
    actions.act(wb.close_review, "leave the review", clear=False)


def approval_blocker(services: Services) -> str | None:
    """Why the review cannot be approved now, or None: the editor's one approval rule, with the
    agent's own tools counted."""
    return wb.approval_problem(bench(), services.validator)


def decide(review_id: str, approve: bool) -> None:
    """Approve the plan in the editor (edits included, saved as a version) or reject it."""
    out = actions.act(lambda b: wb.decide_review(b, get_services().store, review_id, approve=approve,
                                                 validator=lambda: editor_services().validator,
                                                 services=get_services()),
                      "record the decision")
    if out.ok:
        forget_work()


def _review_tools(services: Services, review_id: str) -> list[dict] | None:
    """The agent's own tool definitions of the review held open, as opened (or brought back by
    a reload); read from the store for a session that opened it before they were kept."""
    held = bench().review_tools
    if isinstance(held, tuple) and held[0] == review_id:
        return held[1]
    tools = services.store.get_review(review_id).tools
    bench().review_tools = (review_id, tools)
    return tools


def review_services(services: Services) -> Services:
    """``services`` for the plan in the editor: with a review open whose agent sent its own tool
    definitions, its registry and validator know those tools too."""
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
        with_tools = wb.services_with_tools(services, tools)
    except PlanStudioError as exc:
        wb.log.warning("the agent's tools of review %s do not read: %s", review_id, exc)
        return services
    st.session_state[_SERVICES] = (services, tools, with_tools)
    return with_tools


def editor_services() -> Services:
    """The services the plan in the editor is checked with, wherever it is checked (the Plan
    page's problems and Approve button, Approve, Approve review): a review's own tools count."""
    return review_services(get_services())

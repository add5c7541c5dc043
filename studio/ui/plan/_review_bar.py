"""The review bar on the Plan page, while a review sent by an agent is open in the editor:
who sent it, a comment, Approve (the plan as edited goes back to the agent) and Reject."""

from __future__ import annotations

import streamlit as st

from core import Plan, Role
from core import step_label
from core.storage import Review, step_decisions

from .. import _actions as actions
from .._review_actions import ReviewKeys, approval_blocker, close_review, decide, open_review_id
from ...workbench._services import Services
from .._state import PERSIST, bench
from .._roles import role_gate, role_note
from .._text import md_escape

__all__ = ["review_bar"]

_STATUS_COLOUR = {"pending": "orange", "approved": "green", "rejected": "red", "withdrawn": "gray"}


def review_bar(services: Services) -> None:
    review_id = open_review_id()
    if review_id is None:
        return
    try:
        review = services.store.get_review(review_id)
    except Exception as exc:
        st.warning(md_escape(actions.failure_message("open the review", exc)))
        close_review()
        return
    with st.container(border=True, key="review.bar"):
        _about(review)
        if review.status != "pending":
            if review.comment:
                st.markdown(f"Comment: {md_escape(review.comment)}")
            st.button("Close review", key="review.close", on_click=close_review, icon=":material/close:")
            return
        decide_gate = role_gate(Role.approver, "approve or reject a review")
        st.text_input("Comment for the agent", key=ReviewKeys.COMMENT, persist_state=PERSIST,
                      placeholder="Optional: why you approved or rejected it, what you changed", **decide_gate)
        # The gate of Approve; decide() checks it again, for a click sent before this was drawn.
        blocker = approval_blocker(services)
        # The choices side by side (the bar sits beside the graph), what Approve sends under them.
        buttons = st.container(horizontal=True, key="review.buttons")
        buttons.button("Approve review", key="review.approve", type="primary", on_click=decide,
                       args=(review.id, True), icon=":material/task_alt:", width="stretch",
                       **role_gate(Role.approver, "approve or reject a review", disabled=blocker is not None))
        buttons.button("Reject", key="review.reject", on_click=decide, args=(review.id, False),
                       icon=":material/block:", width="stretch", **decide_gate)
        buttons.button("Later", key="review.close", on_click=close_review, icon=":material/schedule:",
                       width="stretch", help="Leave the review pending; it stays in Reviews.")
        needs = role_note(Role.approver, "approve or reject a review")
        st.caption(md_escape(needs) if needs is not None else
                   "Approve sends the plan as it is in the editor, your edits included, and saves it "
                   "as a version." + (md_escape(f" {blocker}.") if blocker is not None else ""))
        _changes(review)


def _about(review: Review) -> None:
    status = review.status
    st.markdown(f"**Review** · from **{md_escape(review.agent)}** · sent {review.submitted_at:%Y-%m-%d %H:%M} UTC"
                f" · :{_STATUS_COLOUR.get(status, 'gray')}-badge[{status}]")
    if review.tools:
        names = ", ".join(t["name"] for t in review.tools)
        st.caption(md_escape(f"Checked and drawn against the agent's own tools ({names}); the agent runs "
                             "them itself, they cannot be run here."))


def _changes(review: Review) -> None:
    """What approving would tell the agent about each step, so a plan swapped by mistake shows."""
    plan: Plan | None = bench().plan
    changed = [d for d in step_decisions(review.plan, plan, approved=True) if d.decision != "approved"]
    if not changed:
        st.caption("No changes to the plan as sent.")
        return
    steps = {s.id: s for s in (*review.plan.steps, *(plan.steps if plan is not None else ()))}
    st.caption(md_escape("Your changes: " + ", ".join(f"{step_label(steps[d.step_id])} {d.decision}" for d in changed)))

"""A review withdrawn by the agent that sent it: it no longer waits for a decision, and nobody can
approve or reject it any more (the store refuses, as for a review decided already).

Only its submitter (the actor whose token sent it) or an admin may withdraw a review; the
withdrawal is on the audit (``review.withdrawn``) with who and from which channel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import Actor, Forbidden, ReviewRequestError, Role, require

from ._audit import record
from ._services import Services

if TYPE_CHECKING:
    from core.storage import Review

__all__ = ["withdraw_review"]

_MAX_REASON = 2000


def withdraw_review(services: Services, review_id: str, *, actor: Actor, channel: str, reason: str = "") -> Review:
    """Withdraw pending review ``review_id`` for ``actor`` (its submitter, or an admin), keeping
    ``reason`` as its comment. ``NotFound`` for no such review, ``ReviewDecided`` for one no
    longer pending, ``Forbidden`` for anyone else."""
    require(actor, Role.reviewer, "withdraw a review")
    if not isinstance(reason, str) or len(reason) > _MAX_REASON:
        raise ReviewRequestError("reason", f"must be a string of at most {_MAX_REASON} characters")
    review = services.store.get_review(review_id)
    if review.submitted_by != actor.id and not actor.can(Role.admin):
        raise Forbidden(f"{actor.label} may not withdraw review {review_id}: only the agent that sent it "
                        f"({review.submitted_by or 'unknown'}) or an admin may", actor=actor.id, needed=Role.admin.name)
    withdrawn = services.store.withdraw_review(review_id, comment=reason.strip())
    record(services, actor, "review.withdrawn", {"review": review_id, "agent": review.agent},
           {"reason": withdrawn.comment, "submitted_by": review.submitted_by}, channel=channel)
    return withdrawn

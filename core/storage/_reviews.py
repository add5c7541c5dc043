"""Reviews: plans agents sent for a person to approve or reject, and the decisions on them.

What a review hands back (``Review``, ``ReviewSummary``, ``StepDecision``) and how a decision
per step is worked out from the plan sent and the plan approved. ``PlanStore`` keeps them, in
the ``review`` and ``review_decision`` tables.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from ..plan._diff import diff_plans
from ..plan._model import Plan

__all__ = ["DECISIONS", "REVIEW_STATUSES", "Review", "ReviewStatus", "ReviewSummary", "StepDecision", "step_decisions"]

ReviewStatus = Literal["pending", "approved", "rejected"]
REVIEW_STATUSES: tuple[str, ...] = ("pending", "approved", "rejected")
# approved: kept as sent; edited: kept, changed by the reviewer; added: the reviewer's own step;
# removed: the reviewer took it out; rejected: the whole plan was rejected.
DECISIONS: tuple[str, ...] = ("approved", "edited", "added", "removed", "rejected")


@dataclass(frozen=True)
class StepDecision:
    step_id: str
    decision: str


@dataclass(frozen=True)
class ReviewSummary:
    """One review as the inbox lists it."""

    id: str
    agent: str
    submitted_at: dt.datetime
    goal: str
    status: str
    step_count: int
    decided_at: dt.datetime | None = None


@dataclass(frozen=True)
class Review:
    """A review in full: what the agent sent and, once decided, what the reviewer made of it.

    ``plan`` is the plan as sent; ``approved_plan`` the version the reviewer approved (edits
    included), stored as ``plan_id`` version ``version`` in the plan store.
    """

    id: str
    agent: str
    submitted_at: dt.datetime
    goal: str
    status: str
    format: str
    original_text: str
    plan: Plan
    tools: list[dict[str, Any]] | None = None
    comment: str = ""
    decided_at: dt.datetime | None = None
    decisions: list[StepDecision] = field(default_factory=list)
    plan_id: str | None = None
    version: int | None = None
    approved_plan: Plan | None = None
    submitted_by: str | None = None  # the actor id that submitted it (an agent's token), if known
    callback_url: str | None = None  # where the agent asked to be told of the decision
    callback_secret: str | None = field(default=None, repr=False)  # signs what is posted there

    @property
    def decided(self) -> bool:
        return self.status != "pending"


def step_decisions(sent: Plan, decided: Plan | None, *, approved: bool) -> list[StepDecision]:
    """Each step's decision: for a rejection every step sent is rejected; for an approval
    each step sent is approved, edited or removed, and each new one added.

    The plan diff (``diff_plans``, steps paired by id only: the agent knows its steps by the
    ids it sent) decides what was edited; references name steps by id, so deleting a step
    edits no other step but those whose params read it.
    A lock only guides re-planning and "ask first" only pauses the run, so neither makes a step
    edited; nor does a move alone (the
    step calls the same tool with the same inputs, as before this diff was used)."""
    if not approved or decided is None:
        return [StepDecision(step.id, "rejected") for step in sent.steps]
    diff = diff_plans(sent, decided, match_new_ids=False)
    edited = {change.old_id for change in diff.changed
              if change.params or any(f.name not in ("locked", "ask_first") for f in change.fields)}
    removed = set(diff.removed)
    out = [StepDecision(step.id, "removed" if step.id in removed else "edited" if step.id in edited else "approved")
           for step in sent.steps]
    out += [StepDecision(step_id, "added") for step_id in diff.added]
    return out

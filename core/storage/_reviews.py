"""Reviews: plans agents sent for a person to approve or reject, and the decisions on them.

What a review hands back (``Review``, ``ReviewSummary``, ``StepDecision``) and how a decision
per step is worked out from the plan sent and the plan approved. ``PlanStore`` keeps them, in
the ``review`` and ``review_decision`` tables.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from .._plan import Plan, Step

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

    @property
    def decided(self) -> bool:
        return self.status != "pending"


def _same(a: Step, b: Step) -> bool:
    # A lock only guides re-planning; it does not change what the agent will run.
    return a.model_dump(exclude={"locked"}) == b.model_dump(exclude={"locked"})


def step_decisions(sent: Plan, decided: Plan | None, *, approved: bool) -> list[StepDecision]:
    """Each step's decision: for a rejection every step sent is rejected; for an approval
    each step sent is approved, edited or removed, and each new one added."""
    if not approved or decided is None:
        return [StepDecision(step.id, "rejected") for step in sent.steps]
    kept = {step.id: step for step in decided.steps}
    out = [StepDecision(step.id, "removed" if step.id not in kept else
                        "approved" if _same(step, kept[step.id]) else "edited")
           for step in sent.steps]
    sent_ids = {step.id for step in sent.steps}
    out += [StepDecision(step.id, "added") for step in decided.steps if step.id not in sent_ids]
    return out

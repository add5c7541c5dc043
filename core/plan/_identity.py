"""A plan's content identity: a hash of what runs, and apart from it a hash of its review notes.

Approval holds for what runs, and "is this saved?" asks whether anything at all changed: both
compare identities instead of whole-plan JSON strings. Locks and notes are review metadata: a
re-plan keeps locked steps and a note explains a step, but neither changes which tools run with
which params, so they are hashed apart (``review``) and leave ``runs`` alone; the user may lock or
annotate an approved plan without losing the approval or a finished run. Everything else is what
runs: the steps with their ids, order, tools, params, dependencies and the rest of their fields,
and the goal and metadata too (the answer is made for the goal; ``today`` is the date the
plan's relative dates were read against).

A plan is a value (frozen, and never changed once made: ``docs/decisions/0003-the-plan-is-a-value.md``),
so its identity is a cached property of the plan, ``Plan.identity``, worked out on first use and
kept on the plan itself; ``plan_identity`` reads it. A changed plan is a new object
(``model_copy(update=...)``, which drops the cached identity) with an identity of its own.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

__all__ = ["PlanIdentity", "plan_identity"]

# The step fields that are review metadata, not part of what runs.
_REVIEW_FIELDS = ("note", "locked", "ask_first")
_REVIEW_ONLY = {"steps": {"__all__": set(_REVIEW_FIELDS)}}


@dataclass(frozen=True)
class PlanIdentity:
    """Two plans with equal identities are the same plan; with equal ``runs``, they run the same."""

    runs: str  # what runs: everything but the steps' notes and locks
    review: str  # each step's note and lock, by step id, in plan order


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _identity(plan: Any) -> PlanIdentity:  # a Plan; not imported, as the plan model imports this module
    runs = plan.model_dump_json(exclude=_REVIEW_ONLY)
    review = json.dumps([[s.id, *(getattr(s, f) for f in _REVIEW_FIELDS)] for s in plan.steps])
    return PlanIdentity(runs=_digest(runs), review=_digest(review))


def plan_identity(plan: Any) -> PlanIdentity:
    """``plan``'s identity: worked out once per plan (``Plan.identity``, a cached property)."""
    return plan.identity

"""A plan's content identity: a hash of what runs, and apart from it a hash of its review notes.

Approval holds for what runs, and "is this saved?" asks whether anything at all changed: both
compare identities instead of whole-plan JSON strings. Locks and notes are review metadata: a
re-plan keeps locked steps and a note explains a step, but neither changes which tools run with
which params, so they are hashed apart (``review``) and leave ``runs`` alone; the user may lock or
annotate an approved plan without losing the approval or a finished run. Everything else is what
runs: the steps with their ids, order, tools, params, dependencies and the rest of their fields,
and the goal and metadata too (the answer is made for the goal; ``today`` is the date the
plan's relative dates were read against).

A plan is a mutable pydantic model, so the identity is worked out once per plan object and kept
while the object lives: a plan is treated as a value once made. Every edit in core returns a new
plan (``model_copy(update=...)`` makes a new object, with an identity of its own); code that
changes a plan in place (a planner building one) does so before anyone asks its identity.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from dataclasses import dataclass

from ._model import Plan

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


def _identity(plan: Plan) -> PlanIdentity:
    runs = plan.model_dump_json(exclude=_REVIEW_ONLY)
    review = json.dumps([[s.id, *(getattr(s, f) for f in _REVIEW_FIELDS)] for s in plan.steps])
    return PlanIdentity(runs=_digest(runs), review=_digest(review))


# id(plan) -> (a weak reference to the plan, its identity). The reference tells a live plan
# from a new object given the id of a collected one, and drops the entry when the plan goes.
_known: dict[int, tuple[weakref.ref[Plan], PlanIdentity]] = {}


def _forget(key: int, ref: weakref.ref[Plan]) -> None:
    entry = _known.get(key)
    if entry is not None and entry[0] is ref:
        _known.pop(key, None)


def plan_identity(plan: Plan) -> PlanIdentity:
    """``plan``'s identity, worked out on the first call for this plan object."""
    key = id(plan)
    entry = _known.get(key)
    if entry is not None and entry[0]() is plan:
        return entry[1]
    identity = _identity(plan)
    ref = weakref.ref(plan, lambda dead, key=key: _forget(key, dead))
    _known[key] = (ref, identity)
    return identity

"""A pause for a person: which steps wait for an approval before they run, and the decision.

A step waits when its tool may write (``tool.effects.may_write``) and the run's limits say to
ask (``RunLimits.approve_writes``), or when the reviewer marked it (``Step.ask_first``). The
run pass resolves its arguments (references filled in from earlier results), keeps them on the
step and marks it ``waiting``; steps that do not depend on it go on. A person then approves or
rejects exactly those arguments: the decision, with a hash of the arguments, is kept on the
run's ``StepRun``, so any recorder that stores runs keeps it and a resume sees it. On the next
pass an approved step runs if its arguments resolve to the same hash (else it waits again); a
rejected one ends ``rejected`` and the steps that depend on it are skipped.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .._errors import DecisionRefused
from ._events import now
from ..plan._model import Step
from ..tooling._registry import Tool
from ._model import Run, StepDecision
from ._status import StepStatus

__all__ = ["REJECTED_NOTE", "arguments_hash", "decide_step", "approval_reason", "waiting_steps"]

REJECTED_NOTE = "rejected: a person said no before it ran"


def arguments_hash(arguments: dict[str, Any] | None) -> str:
    """A hash of resolved arguments, the same for equal JSON whatever the order of its keys."""
    text = json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def approval_reason(step: Step, tool: Tool, approve_writes: bool) -> str | None:
    """Why ``step`` must wait for a person, or None when it may just run."""
    if step.ask_first:
        return "the reviewer asked to approve this step before it runs"
    if approve_writes and tool.effects.may_write:
        return f"{tool.name} is not read-only ({tool.effects.label})"
    return None


def waiting_steps(run: Run) -> list[str]:
    """The ids of the steps of ``run`` waiting for a person, in plan order."""
    return [s.id for s in run.plan.steps if run.steps[s.id].status == StepStatus.waiting]


def decide_step(run: Run, step_id: str, approve: bool, *, seen_hash: str | None = None, by: str = "") -> StepDecision:
    """Record a person's decision on a waiting step of ``run`` (not being driven right now).

    ``seen_hash`` is the hash of the arguments the person was shown; if the step's arguments
    are others now, nothing is recorded. A rejected step is ``rejected`` at once; an approved
    one stays ``waiting`` until the run goes on (``resume``), which then runs it.
    """
    state = run.steps.get(step_id)
    if state is None:
        raise DecisionRefused(f"run {run.id} has no step {step_id!r}", step_ids=[step_id])
    label = run.plan.label(step_id)
    if state.status != StepStatus.waiting:
        raise DecisionRefused(f"{label} is not waiting for a decision (it is {state.status.value})",
                              step_ids=[step_id])
    current = arguments_hash(state.arguments)
    if seen_hash is not None and seen_hash != current:
        raise DecisionRefused(f"{label}: its arguments changed since they were shown; look again",
                              step_ids=[step_id])
    decision = StepDecision(approved=approve, arguments_hash=current, decided_at=now(), by=by)
    state.decision = decision
    if not approve:
        state.status = StepStatus.rejected
        state.error = REJECTED_NOTE
    return decision

"""What a run of a plan is: each step's status and result, and the run's own state.

The executor makes and advances runs; the store saves and loads them; the studio, the CLI and
the synthesizer read them. Kept apart from ``_executor`` so that reading or storing a run does
not need the machinery that runs one.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from pydantic import BaseModel, Field

from ..plan._model import Plan
from ._status import StepStatus

__all__ = ["Ask", "Run", "StepAttempt", "StepDecision", "StepRun", "StepStatus"]


class StepAttempt(BaseModel):
    """One call of a step's tool: a step retried under its retry policy has several."""

    number: int  # 1 for the first call
    started_at: dt.datetime
    duration_ms: float | None = None  # None while the call runs
    error: str | None = None  # None when this call succeeded (or still runs)


class StepDecision(BaseModel):
    """A person's answer to a step that waited for one, kept on the run so a resume sees it."""

    approved: bool
    arguments_hash: str  # of the resolved arguments the person saw: an approval holds for those only
    decided_at: dt.datetime
    by: str = ""  # where it was decided: "page", "api", "mcp", "cli"


class Ask(BaseModel):
    """What a waiting step needs before it may run, as the policy said: ``approvers`` distinct
    actors' approvals, each holding one of ``roles`` (role names of ``core.access.Role``; empty:
    the approver role) or belonging to one of ``groups`` when groups are named. ``rule`` is the
    rule that asked (empty for the default policy), ``reason`` says why, for the approver."""

    approvers: int = 1
    roles: list[str] = Field(default_factory=list)
    groups: list[str] = Field(default_factory=list)
    rule: str = ""
    reason: str = ""


class StepRun(BaseModel):
    """What happened to one step in one run."""

    step_id: str
    status: StepStatus = StepStatus.pending
    arguments: dict[str, Any] | None = None
    result: Any = None
    error: str | None = None
    started_at: dt.datetime | None = None
    duration_ms: float | None = None
    # The calls of the tool before the last, each failed and tried again under the retry policy,
    # oldest first; the last call is the step's own result, error and timing above. Empty for a
    # step called once (most), so a run without retries is what it always was.
    retried: list[StepAttempt] = Field(default_factory=list)
    # A person's approval or rejection, for a step that waits for one (``core.run._approval``).
    decision: StepDecision | None = None
    # What the policy asks before the step may run, set when it starts waiting (``Ask``).
    ask: Ask | None = None
    # The token of the worker running the step, while it runs; never saved or dumped.
    worker: str | None = Field(default=None, exclude=True, repr=False)

    @property
    def retried_note(self) -> str | None:
        """How often the tool was called and why the calls before the last failed, for a step
        tried again under its retry policy; None for a step called once."""
        if not self.retried:
            return None
        failures = "; ".join(f"call {a.number}: {a.error or 'failed'}" for a in self.retried)
        return f"called {len(self.retried) + 1} times under its retry policy ({failures})"

    @property
    def rows(self) -> list[Any] | None:
        """The rows of a ``{"data": [...]}`` result, for showing as a table."""
        if isinstance(self.result, dict) and isinstance(self.result.get("data"), list):
            return self.result["data"]
        if isinstance(self.result, list):
            return self.result
        return None


class Run(BaseModel):
    """One execution of a plan, with every step's status and result."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    plan: Plan
    steps: dict[str, StepRun]
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    answer: str | None = None

    @classmethod
    def for_plan(cls, plan: Plan) -> "Run":
        steps = {s.id: StepRun(step_id=s.id) for s in plan.steps}
        if isinstance(plan, Plan):
            # Not validated again: pydantic would run the plan's own checks on it once more (they
            # ran when it was made, and the executor checks its bounds before it starts a run).
            return cls.model_construct(plan=plan, steps=steps)
        return cls(plan=plan, steps=steps)

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    @property
    def status(self) -> str:
        """``succeeded`` or ``failed`` once finished; before that ``running`` while a step runs, ``waiting`` when a step waits for a person,
        ``cancelled`` when a step was cancelled, ``interrupted`` when a step was cut off, ``paused`` between steps, ``pending`` unstarted."""
        statuses = {s.status for s in self.steps.values()}
        if self.finished:
            return "failed" if StepStatus.failed in statuses or StepStatus.rejected in statuses else "succeeded"
        if StepStatus.running in statuses:
            return "running"
        if StepStatus.waiting in statuses:
            return "waiting"
        if StepStatus.cancelled in statuses:
            return "cancelled"
        if StepStatus.interrupted in statuses:
            return "interrupted"
        return "paused" if self.started_at else "pending"

    def appended_results(self) -> dict[str, Any]:
        """Outputs of succeeded steps that asked to be part of the final result (``result_key``)."""
        return {s.result_key: self.steps[s.id].result for s in self.plan.steps
                if s.result_key and self.steps[s.id].status == StepStatus.succeeded}

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.steps.values():
            out[s.status.value] = out.get(s.status.value, 0) + 1
        return out

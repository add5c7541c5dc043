"""What a run of a plan is: each step's status and result, and the run's own state.

The executor makes and advances runs; the store saves and loads them; the studio, the CLI and
the synthesizer read them. Kept apart from ``_executor`` so that reading or storing a run does
not need the machinery that runs one.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from pydantic import AliasChoices, BaseModel, Field

from ..plan._model import Plan
from ._status import StepStatus

__all__ = ["Ask", "Grant", "Rehearsal", "Run", "StepAttempt", "StepDecision", "StepRun", "StepStatus"]


class StepAttempt(BaseModel):
    """One call of a step's tool: a step retried under its retry policy has several."""

    number: int  # 1 for the first call
    started_at: dt.datetime
    duration_ms: float | None = None  # None while the call runs
    error: str | None = None  # None when this call succeeded (or still runs)


class StepDecision(BaseModel):
    """One approver's answer to a step that waited for one (``core.run._approval``), kept on the
    run so a resume sees it: who, when, by which channel, under which rule, and exactly what was
    approved. A step keeps one per approver (``StepRun.approvals``); ``StepRun.decision`` is the
    one that settled it (the last approval a count needed, a rejection, or a grant)."""

    approved: bool
    # Of the arguments the step runs with: the resolved ones shown, or the approver's edit of them.
    arguments_hash: str
    decided_at: dt.datetime
    # Where it was decided: "page", "api", "mcp", "cli", "link", or "grant" (a grant let it pass).
    # Read from "by" too: decisions stored before 0008 named only the channel, as "by".
    channel: str = Field(default="", validation_alias=AliasChoices("channel", "by"))
    actor_id: str = ""  # who decided: "user:alice@example.com", "agent:api", "rule:reads-pass"
    actor_name: str = ""
    actor_kind: str = ""  # person, agent, rule or system (``core.access.ActorKind``)
    rule: str = ""  # the rule that asked for the approval (or decided on its own)
    # Of exactly what was shown: the tool, the resolved arguments and the tool's effects.
    shown_hash: str = ""
    # The approver's edit: the arguments the step runs with, and the resolved ones they replaced.
    arguments: dict[str, Any] | None = None
    original_arguments: dict[str, Any] | None = None
    grant_id: str = ""  # the grant this approval made, or the grant that let the step pass
    scope: str = "once"  # once, run (every later step of the tool in this run) or always

    @property
    def by(self) -> str:
        """The channel, as decisions before 0008 named it."""
        return self.channel

    @property
    def edited(self) -> bool:
        return self.arguments is not None


class Grant(BaseModel):
    """A scoped approval: steps of ``tool`` pass without asking, in run ``run_id`` with any
    arguments (scope ``run``), or in any run with exactly the arguments hashed ``arguments_hash``
    (scope ``always``); until ``expires_at`` (None: no end) unless revoked first."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    tool: str
    scope: str  # "run" or "always"
    run_id: str | None = None
    arguments_hash: str | None = None
    arguments: dict[str, Any] | None = None  # the exact arguments of an ``always`` grant, to show
    granted_by: str  # the approver's actor id
    granted_by_name: str = ""
    granted_by_kind: str = "person"
    channel: str = ""
    created_at: dt.datetime
    expires_at: dt.datetime | None = None
    revoked_at: dt.datetime | None = None
    revoked_by: str | None = None

    def lets_pass(self, run_id: str, tool: str, arguments_hash: str, at: dt.datetime) -> bool:
        """Whether this grant approves a step of ``tool`` with those arguments in ``run_id`` now."""
        if self.revoked_at is not None or tool != self.tool:
            return False
        if self.expires_at is not None and _aware(self.expires_at) <= _aware(at):
            return False
        if self.scope == "run":
            return run_id == self.run_id
        return self.scope == "always" and arguments_hash == self.arguments_hash


def _aware(at: dt.datetime) -> dt.datetime:
    return at if at.tzinfo else at.replace(tzinfo=dt.timezone.utc)


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
    # When the step started to wait (its first ask since it last ran or was decided): the
    # wait's start in its trace (``core.traces``). None for asks kept before it was recorded.
    asked_at: dt.datetime | None = None


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
    # The answer that settled a step that waited (``core.run._approval``): the approval that met
    # the count the step asked for, a rejection, or a grant; None while it waits.
    decision: StepDecision | None = None
    # Every approver's answer so far, oldest first (several when the step asks for N approvers).
    approvals: list[StepDecision] = Field(default_factory=list)
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


class Rehearsal(BaseModel):
    """What marks a run as a rehearsal (``core.run._rehearsal``): no tool was called, each step's
    result stood in from ``sources[step_id]``: "pin" (a result the user pinned), "recording" (the
    step's result in run ``recording``, a real one), "schema" (a value made from the tool's output
    schema) or "none" (a read-only tool with neither: its result is null)."""

    recording: str | None = None
    sources: dict[str, str] = Field(default_factory=dict)

    def source_of(self, step_id: str) -> str:
        """Where the step's result came from, in words: "rehearsal · pinned result"."""
        words = {"pin": "pinned result", "recording": f"recorded in run {self.recording}",
                 "schema": "made from the output schema", "none": "no result (null)"}
        return "rehearsal · " + words.get(self.sources.get(step_id, ""), "no tool called")


class Run(BaseModel):
    """One execution of a plan, with every step's status and result."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    plan: Plan
    steps: dict[str, StepRun]
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    answer: str | None = None
    # The actor id of whoever submitted the plan this run carries out (an agent's owner, a
    # review's submitter), when known: they may not approve its waiting steps themselves.
    submitted_by: str | None = None
    # Set on a rehearsal (no tool called; each step's result stood in): ``Rehearsal``. None: a real run.
    rehearsal: Rehearsal | None = None

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

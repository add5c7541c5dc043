"""What the review API answers, as pydantic models: the same field names as over HTTP and MCP
(a review is ``review_id``; ``id``, its older name, is read too). Unknown fields are kept
(``model_extra``), so a newer studio's answers still read."""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

__all__ = ["DecisionResult", "Review", "ReviewServiceError", "StepVerdict", "Waiting", "WaitingStep"]


class ReviewServiceError(Exception):
    """The studio refused a call or could not be reached: ``status`` is the HTTP status (0 when
    nothing answered), ``field`` the request field at fault when the studio names one."""

    def __init__(self, status: int, message: str, *, field: str | None = None, data: dict[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.field = field
        self.data = data or {}


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class StepVerdict(_Answer):
    """The reviewer's verdict on one step: approved, edited, added, removed or rejected."""

    step_id: str
    decision: str


class Review(_Answer):
    """A review as the studio last answered it. ``plan`` is the native JSON plan: as approved
    (edits included) once approved, as sent otherwise."""

    review_id: str = Field(validation_alias=AliasChoices("review_id", "id"))
    status: str
    url: str = ""
    agent: str = ""
    goal: str = ""
    plan: dict[str, Any] | None = None
    plan_text: str = ""
    format: str = ""
    comment: str = ""
    decisions: list[StepVerdict] = Field(default_factory=list)
    problems: list[dict[str, Any]] = Field(default_factory=list)
    submitted_by: str | None = None
    decided_at: str | None = None
    approved_version: dict[str, Any] | None = None
    callback_secret: str | None = None  # only in the answer to a submission whose secret the studio made

    @property
    def id(self) -> str:
        """``review_id`` by its older name."""
        return self.review_id

    @property
    def approved(self) -> bool:
        return self.status == "approved"

    @property
    def decided(self) -> bool:
        """Approved, rejected or withdrawn: nothing will change it any more."""
        return self.status != "pending"

    def verdicts(self) -> dict[str, str]:
        """Each step's verdict by step id."""
        return {d.step_id: d.decision for d in self.decisions}

    def step_params(self) -> dict[str, dict[str, Any]]:
        """Each step's parameters in the plan as answered (approved: with the reviewer's edits)."""
        steps = (self.plan or {}).get("steps", [])
        return {s["id"]: dict(s.get("params") or {}) for s in steps if isinstance(s, dict) and "id" in s}


class WaitingStep(_Answer):
    """A step of a studio run waiting for a person; decide on it with its ``shown_hash``."""

    step_id: str
    label: str = ""
    tool: str = ""
    effects: str = ""
    reason: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)
    arguments_hash: str = ""
    shown_hash: str = ""
    approvals_needed: int = 1
    approvals: list[dict[str, Any]] = Field(default_factory=list)


class Waiting(_Answer):
    run_id: str
    status: str = ""
    waiting: list[WaitingStep] = Field(default_factory=list)


class DecisionResult(_Answer):
    """What a decision on a waiting step did: ``decided``; ``settled`` once it has every
    approval it asks for; ``why`` when refused (``stale``, ``replayed``, ``not_waiting``, ...)."""

    decided: bool
    settled: bool = False
    approvals_needed: int = 1
    approvals: list[dict[str, Any]] = Field(default_factory=list)
    notices: list[dict[str, Any]] = Field(default_factory=list)
    why: str | None = None

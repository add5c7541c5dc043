"""The plan store's tables.

These rows are not the domain model: a plan is kept whole as the JSON that
``Plan.model_dump_json`` writes and is rebuilt with ``Plan.model_validate_json``, so what
comes back is exactly what went in, whatever fields the model grows. Columns hold only what
the store searches, sorts or counts by.

Deleting a plan deletes its versions and runs, and deleting a run deletes its step results,
through the foreign keys' ``ON DELETE CASCADE`` (the engine turns foreign keys on).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import DateTime, UniqueConstraint
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

__all__ = ["UTCDateTime", "AuditEventRow", "DraftRow", "GrantRow", "PlanRow", "PlanVersionRow", "ReviewDecisionRow", "ReviewRow", "RunRow", "RunClaimRow", "RunWorkerRow", "StepRunRow"]


class UTCDateTime(TypeDecorator[dt.datetime]):
    """A timezone-aware datetime, kept as UTC.

    SQLite has no timezone type and SQLAlchemy writes its datetimes without the offset, so
    values are converted to UTC on the way in and marked UTC on the way out. A naive value
    is taken to be UTC already.
    """

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Any) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc)
        return value.replace(tzinfo=None)

    def process_result_value(self, value: dt.datetime | None, dialect: Any) -> dt.datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=dt.timezone.utc)


class PlanRow(SQLModel, table=True):
    """A saved plan; its content lives in its versions."""

    __tablename__ = "plan"

    id: str = Field(primary_key=True)
    goal: str = Field(description="The latest version's goal, for listing and search.")
    created_at: dt.datetime = Field(sa_type=UTCDateTime)
    updated_at: dt.datetime = Field(sa_type=UTCDateTime, index=True)


class PlanVersionRow(SQLModel, table=True):
    """One saved state of a plan. Versions count from 1 and are never changed."""

    __tablename__ = "plan_version"
    __table_args__ = (UniqueConstraint("plan_id", "version", name="uq_plan_version"),)

    id: int | None = Field(default=None, primary_key=True)
    plan_id: str = Field(foreign_key="plan.id", ondelete="CASCADE")
    version: int
    created_at: dt.datetime = Field(sa_type=UTCDateTime)
    message: str = ""
    planner: str
    plan_json: str


class RunRow(SQLModel, table=True):
    """One execution of a version of a plan."""

    __tablename__ = "run"

    id: str = Field(primary_key=True)
    plan_id: str = Field(foreign_key="plan.id", ondelete="CASCADE", index=True)
    version: int
    created_at: dt.datetime = Field(sa_type=UTCDateTime, description="When the run was first saved; orders runs.")
    started_at: dt.datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: dt.datetime | None = Field(default=None, sa_type=UTCDateTime)
    status: str
    answer: str | None = None
    plan_json: str = Field(description="The plan as it was run.")
    parent_id: str | None = Field(default=None, description="The run a retry or rerun came from.")
    rerun_from: str | None = Field(default=None, description="The step a rerun starts again from.")
    submitted_by: str | None = Field(default=None, description="Who submitted the plan run (may not approve it).")
    rehearsal_json: str | None = Field(default=None, description="What marks a rehearsal (no tool called): the run "
                                       "its results were recorded in and each step's source; NULL for a real run.")


class StepRunRow(SQLModel, table=True):
    """What happened to one step in one run."""

    __tablename__ = "step_run"

    run_id: str = Field(foreign_key="run.id", ondelete="CASCADE", primary_key=True)
    step_id: str = Field(primary_key=True)
    position: int = Field(description="Order of the step in the run's results.")
    status: str
    arguments_json: str | None = None
    result_json: str | None = None
    error: str | None = None
    started_at: dt.datetime | None = Field(default=None, sa_type=UTCDateTime)
    duration_ms: float | None = None
    decision_json: str | None = Field(default=None, description="A person's decision on a step that waited.")
    retried_json: str | None = Field(default=None, description="The calls before the last, each failed and "
                                     "tried again under the retry policy.")
    approvals_json: str | None = Field(default=None, description="Every approver's answer to a step that waited.")
    ask_json: str | None = Field(default=None, description="What the policy asks of a waiting step: approvers, "
                                 "roles, groups, rule, reason.")


class GrantRow(SQLModel, table=True):
    """A scoped approval (``core.run._model.Grant``), kept whole as JSON; the columns it is
    looked up and listed by beside it."""

    __tablename__ = "approval_grant"

    id: str = Field(primary_key=True)
    tool: str = Field(index=True)
    scope: str
    run_id: str | None = None
    arguments_hash: str | None = None
    created_at: dt.datetime = Field(sa_type=UTCDateTime)
    expires_at: dt.datetime | None = Field(default=None, sa_type=UTCDateTime)
    revoked_at: dt.datetime | None = Field(default=None, sa_type=UTCDateTime)
    content: str


class RunWorkerRow(SQLModel, table=True):
    """A worker process taking runs from the shared queue: when it was last seen alive, and who
    took its runs over once it was not."""

    __tablename__ = "run_worker"

    id: str = Field(primary_key=True, description="The worker's DBOS executor id.")
    seen_at: dt.datetime = Field(sa_type=UTCDateTime)
    taken_over_by: str | None = None


class DraftRow(SQLModel, table=True):
    """Unsaved work of one studio tab, kept so a reload brings it back. The content is the
    studio's own JSON: the store keeps it whole and never reads it."""

    __tablename__ = "draft"

    id: str = Field(primary_key=True)
    updated_at: dt.datetime = Field(sa_type=UTCDateTime, index=True, description="Orders pruning.")
    content: str


class ReviewRow(SQLModel, table=True):
    """A plan an agent sent for a person to review, and, once made, the decision on it."""

    __tablename__ = "review"

    id: str = Field(primary_key=True)
    agent: str
    submitted_at: dt.datetime = Field(sa_type=UTCDateTime, index=True)
    goal: str
    status: str = Field(index=True, description="pending, approved, rejected or withdrawn")
    format: str = Field(description="The format the plan was submitted in.")
    original_text: str = Field(description="The plan exactly as submitted.")
    plan_json: str = Field(description="The submitted plan, read.")
    tools_json: str | None = Field(default=None, description="The agent's tool definitions, as MCP lists them.")
    comment: str = ""
    decided_at: dt.datetime | None = Field(default=None, sa_type=UTCDateTime)
    plan_id: str | None = Field(default=None, foreign_key="plan.id", ondelete="SET NULL",
                                description="The stored plan holding the approved version.")
    version: int | None = None
    submitted_by: str | None = Field(default=None, description="The actor id of who submitted it (an agent's token).")
    callback_url: str | None = Field(default=None, description="Where the agent is told of the decision.")
    callback_secret: str | None = Field(default=None, description="Signs what is posted to callback_url.")


class ReviewDecisionRow(SQLModel, table=True):
    """The reviewer's decision on one step: approved, edited, added, removed or rejected."""

    __tablename__ = "review_decision"

    review_id: str = Field(foreign_key="review.id", ondelete="CASCADE", primary_key=True)
    step_id: str = Field(primary_key=True)
    position: int
    decision: str


class AuditEventRow(SQLModel, table=True):
    """One thing done, on record for good: who, when, by which channel, what, on which subject,
    and why (``detail_json``). Rows are only ever added (``_audit``; triggers refuse the rest)."""

    __tablename__ = "audit_event"

    id: int | None = Field(default=None, primary_key=True, description="Orders the audit; the page cursor.")
    at: dt.datetime = Field(sa_type=UTCDateTime)
    actor_id: str
    actor_kind: str = Field(description="person, agent, rule or system")
    actor_name: str
    channel: str = Field(description="page, api, mcp, cli, link, or empty when none applies")
    action: str
    run_id: str | None = None
    review_id: str | None = None
    plan_id: str | None = None
    step_id: str | None = None
    tool: str | None = None
    rule: str | None = None
    agent: str | None = Field(default=None, description="The agent whose submission this concerns.")
    detail_json: str


class RunClaimRow(SQLModel, table=True):
    """Which process carries a stored run on now (``_run_claims``): one claim per run, taken by a
    compare-and-set only one of two processes wins, held for a renewed lease."""

    __tablename__ = "run_claim"

    run_id: str = Field(primary_key=True)
    holder: str = Field(description="The holding process's DBOS executor id (host:pid:random).")
    token: str = Field(description="This claim's own id: only its taker renews or releases it.")
    claimed_at: dt.datetime = Field(sa_type=UTCDateTime)
    lease_until: dt.datetime = Field(sa_type=UTCDateTime)

"""What the plan store hands back: plain frozen records, detached from any database session."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from .._plan import Plan

__all__ = ["PlanHistory", "PlanSummary", "PlanVersion", "RunSummary", "VersionSummary"]


@dataclass(frozen=True)
class PlanSummary:
    """One saved plan as a list shows it; ``goal``, ``step_count`` and ``planner`` are the latest version's."""

    id: str
    goal: str
    latest_version: int
    created_at: dt.datetime
    updated_at: dt.datetime
    step_count: int
    run_count: int
    planner: str


@dataclass(frozen=True)
class PlanVersion:
    """One saved state of a plan; versions count from 1."""

    plan_id: str
    version: int
    created_at: dt.datetime
    message: str
    plan: Plan


@dataclass(frozen=True)
class RunSummary:
    """One run as a list shows it; ``counts`` maps step status to how many steps have it."""

    id: str
    plan_id: str
    version: int
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    status: str
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class VersionSummary:
    """One saved version as a list shows it, without loading the plan itself."""

    plan_id: str
    version: int
    created_at: dt.datetime
    message: str
    step_count: int


@dataclass(frozen=True)
class PlanHistory:
    """A plan's versions (oldest first) and runs (newest first), as the Library lists them."""

    versions: list[VersionSummary] = field(default_factory=list)
    runs: list[RunSummary] = field(default_factory=list)

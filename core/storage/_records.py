"""What the plan store hands back: plain frozen records, detached from any database session."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from ..plan._model import Plan
from ..run._status import FINISHED

__all__ = ["Draft", "PlanHistory", "PlanSummary", "PlanVersion", "RunSummary", "VersionSummary"]


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
    # A retry or rerun: the run it came from, the step it started again from and that step's
    # label (``core.step_label``, with the user's note: untrusted). None for a first run.
    parent_id: str | None = None
    rerun_from: str | None = None
    rerun_from_label: str | None = None
    rehearsal: bool = False  # a rehearsal: no tool was called (``core.Rehearsal``)

    @property
    def paused(self) -> bool:
        """Not finished: stored between steps, mid-run, or cut off. Nothing runs a stored run,
        so one whose steps were still running when it was stored is paused too."""
        return self.finished_at is None

    @property
    def steps_done(self) -> int:
        """How many steps finished: succeeded, failed or skipped."""
        return sum(self.counts.get(status, 0) for status in FINISHED)

    @property
    def steps_total(self) -> int:
        return sum(self.counts.values())

    def shown_counts(self) -> dict[str, int]:
        """``counts`` as a list says them: in a paused run, steps stored as running were cut off."""
        if not self.paused or "running" not in self.counts:
            return dict(self.counts)
        shown = {s: n for s, n in self.counts.items() if s != "running"}
        shown["interrupted"] = shown.get("interrupted", 0) + self.counts["running"]
        return shown

    @property
    def shown_status(self) -> str:
        """What a list says: the stored status once finished, else ``paused (3 of 8 steps done)``."""
        if not self.paused:
            return self.status
        return f"paused ({self.steps_done} of {self.steps_total} steps done)"


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


@dataclass(frozen=True)
class Draft:
    """A studio tab's unsaved work: ``content`` is the studio's JSON, kept as it came."""

    id: str
    updated_at: dt.datetime
    content: str

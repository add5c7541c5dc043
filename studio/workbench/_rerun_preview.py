"""What a retry or a rerun from a step would do, as the user sees it before confirming: each
step by label, whether it runs again or keeps its recorded result, and whether its tool may
write (``_rerunning`` makes it; the Plan page, the review API and the workbench hold it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core import Plan

__all__ = ["RerunPreview", "RerunStep"]


@dataclass(frozen=True)
class RerunStep:
    """One step of a rerun's preview. ``label`` holds the user's note: untrusted, escaped where drawn."""

    step_id: str
    label: str
    again: bool  # runs again; else keeps the result the parent run recorded
    effects: str  # what its tool says a call does ("read-only", "writes, additive", ...)
    writes: bool  # its tool may write: running it again repeats its effect

    def as_json(self) -> dict[str, Any]:
        return {"step_id": self.step_id, "label": self.label, "again": self.again, "effects": self.effects,
                "writes": self.writes}


@dataclass(frozen=True)
class RerunPreview:
    """What a retry or a rerun of ``parent_id`` from ``start`` does, before anything runs;
    ``run_id`` is the new run once it started."""

    parent_id: str
    retry: bool
    start: str | None  # the chosen step (the first failed one, for a retry)
    start_label: str
    steps: tuple[RerunStep, ...]
    plan: Plan = field(repr=False, compare=False)  # the parent's plan, to tell when the editor's changed
    run_id: str | None = None

    @property
    def again(self) -> list[RerunStep]:
        return [s for s in self.steps if s.again]

    def as_json(self) -> dict[str, Any]:
        return {"parent_id": self.parent_id, "run_id": self.run_id, "retry": self.retry, "from": self.start,
                "from_label": self.start_label, "steps": [s.as_json() for s in self.steps]}

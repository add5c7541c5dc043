"""What the Lab reads of the Library: the saved plans, newest first, and each one's latest version.

The Lab asks for no more than this, so it holds no store: ``PlanStore`` answers it, and so does
any list of plans a test or another front end hands over.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from ..plan._model import Plan

__all__ = ["Library", "SavedPlan"]


class SavedPlan(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def goal(self) -> str: ...

    @property
    def latest_version(self) -> int: ...


class Library(Protocol):
    def list_plans(self, search: str = "", *, limit: int | None = None) -> Sequence[SavedPlan]: ...

    def load_plan(self, plan_id: str, version: int | None = None) -> Plan: ...

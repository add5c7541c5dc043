"""Saved plans and their versions: save, list, search, count, load, delete.

Every save of a changed plan adds a version; old versions are never rewritten, so any of
them can be loaded, compared or run again. Plans go in and come out as ``Plan``; the rows in
``_tables`` are an implementation detail.
"""

from __future__ import annotations

import functools
import secrets
from types import ModuleType
from typing import Any

from sqlalchemy import and_, bindparam, delete, func
from sqlmodel import Session, select

from .._errors import NotFound, VersionConflict
from ..plan._model import Plan
from ._engine import Database
from ._records import PlanSummary, PlanVersion
from ._tables import PlanRow, PlanVersionRow, RunRow
from ._values import found, now, plan_json

__all__ = ["Plans", "latest_version_row", "plan_row"]

_PLAN_ID_BYTES = 4  # 8 hex characters; a clash is checked for and drawn again
_ORDER = (PlanRow.updated_at.desc(), PlanRow.created_at.desc(), PlanRow.id)


def plan_row(session: Session, plan_id: str) -> PlanRow:
    """The plan's row; ``NotFound`` when there is no plan with that id."""
    return found(session.get(PlanRow, plan_id), f"no plan with id {plan_id!r}")


def latest_version_row(session: Session, plan_id: str) -> PlanVersionRow | None:
    return session.exec(select(PlanVersionRow).where(PlanVersionRow.plan_id == plan_id)
                        .order_by(PlanVersionRow.version.desc()).limit(1)).first()  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=None)
def _list_query(dialect: ModuleType, through_index: bool | None, limited: bool) -> Any:
    """``Plans.summaries``'s statement: for no search (``through_index`` None), or a search through
    the trigram index or not; the search text and ``:limit`` come as parameters. Built once per
    kind: building it per call cost more than the database took to answer it."""
    # The plans to list first, from the plan table or the search tables alone (which hold the
    # plans' sort keys); only those few then have their latest version and runs looked up.
    if through_index is None:
        chosen: Any = select(PlanRow.id).order_by(*_ORDER)
        if limited:
            chosen = chosen.limit(bindparam("limit"))
    else:
        found = dialect.matching_ids(through_index=through_index, limited=limited).subquery()
        chosen = select(found.c.plan_id)
    latest = (select(func.max(PlanVersionRow.version)).where(PlanVersionRow.plan_id == PlanRow.id)
              .correlate(PlanRow).scalar_subquery())
    runs = (select(func.count()).select_from(RunRow).where(RunRow.plan_id == PlanRow.id)
            .correlate(PlanRow).scalar_subquery())
    return (
        select(PlanRow.id, PlanRow.goal, PlanRow.created_at, PlanRow.updated_at,
               PlanVersionRow.version, PlanVersionRow.planner,
               dialect.step_count(PlanVersionRow.plan_json), runs)
        .join(PlanVersionRow, and_(PlanVersionRow.plan_id == PlanRow.id,
                                   PlanVersionRow.version == latest))
        .where(PlanRow.id.in_(chosen))  # type: ignore[attr-defined]
        .order_by(*_ORDER)
    )


class Plans:
    """The saved plans of one store file, each with all its versions."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def save(self, plan: Plan, *, plan_id: str | None = None, message: str = "",
             expected_version: int | None = None) -> PlanVersion:
        """See ``PlanStore.save_plan``."""
        text = plan_json(plan)
        with self._db.session("save the plan", write=True) as session:
            return self.save_in(session, plan, text, plan_id=plan_id, message=message,
                                expected_version=expected_version)

    def save_in(self, session: Session, plan: Plan, text: str, *, plan_id: str | None,
                message: str, expected_version: int | None) -> PlanVersion:
        """``save`` inside an open write session (a review's approval saves with it); ``text``
        is ``plan_json(plan)``."""
        at = now()
        if plan_id is None:
            plan_id = self._new_plan_id(session)
            session.add(PlanRow(id=plan_id, goal=plan.goal, created_at=at, updated_at=at))
            number = 1
        else:
            row = plan_row(session, plan_id)
            latest = latest_version_row(session, plan_id)
            # The same plan, even written by an older release (without a field added since, at
            # its default now), makes no new version.
            if latest is not None and (latest.plan_json == text
                                       or self._db.read_plan(latest.plan_json, f"plan {plan_id!r}", self._db.path) == plan):
                return self._version(latest)
            if expected_version is not None and latest is not None and latest.version != expected_version:
                raise VersionConflict(plan_id, expected=expected_version, latest=latest.version,
                                      saved_at=latest.created_at, message=latest.message)
            number = 1 if latest is None else latest.version + 1
            row.goal = plan.goal
            row.updated_at = at
            session.add(row)
        version_row = PlanVersionRow(plan_id=plan_id, version=number, created_at=at,
                                     message=message, planner=plan.metadata.planner,
                                     plan_json=text)
        session.add(version_row)
        session.flush()  # the plan row first: its folded goal points at it
        self._db.dialect.index_goal(session, plan_id, plan.goal)
        return PlanVersion(plan_id=plan_id, version=number, created_at=at, message=message, plan=plan)

    def summaries(self, search: str = "", *, limit: int | None = None) -> list[PlanSummary]:
        """See ``PlanStore.list_plans``."""
        dialect, indexed = self._db.dialect, self._db.indexed
        needle = search.strip().casefold()
        params: dict[str, Any] = {} if limit is None else {"limit": max(limit, 0)}
        if needle:
            params.update(dialect.search_params(needle, indexed=indexed))
        query = _list_query(dialect, dialect.uses_index(needle, indexed=indexed) if needle else None,
                            limit is not None)
        with self._db.session("list plans") as session:
            rows = session.execute(query, params).all()
        return [PlanSummary(id=plan_id, goal=goal, latest_version=number, created_at=created,
                            updated_at=updated, step_count=steps or 0, run_count=run_count, planner=planner)
                for plan_id, goal, created, updated, number, planner, steps, run_count in rows]

    def count(self, search: str = "") -> int:
        """How many saved plans ``summaries(search)`` would list."""
        needle = search.strip().casefold()
        with self._db.session("count plans") as session:
            if needle:  # straight from the search tables: every folded goal belongs to a plan
                query = self._db.dialect.count_matching(needle, indexed=self._db.indexed)
                return session.execute(query).scalar_one()
            return session.exec(select(func.count()).select_from(PlanRow)).one()

    def load(self, plan_id: str, version: int | None = None) -> Plan:
        """The plan as saved in ``version``, or in its latest version when ``version`` is None."""
        with self._db.session("load the plan") as session:
            plan_row(session, plan_id)
            if version is None:
                row = latest_version_row(session, plan_id)
            else:
                row = session.exec(select(PlanVersionRow).where(
                    PlanVersionRow.plan_id == plan_id, PlanVersionRow.version == version)).first()
            if row is None:
                latest = latest_version_row(session, plan_id)
                have = f"versions 1 to {latest.version}" if latest else "no versions"
                raise NotFound(f"plan {plan_id!r} has no version {version} (it has {have})")
            return self._db.read_plan(row.plan_json, f"plan {plan_id!r} version {row.version}", self._db.path)

    def versions(self, plan_id: str) -> list[PlanVersion]:
        """Every version of the plan, oldest first."""
        with self._db.session("list the plan's versions") as session:
            plan_row(session, plan_id)
            rows = session.exec(select(PlanVersionRow).where(PlanVersionRow.plan_id == plan_id)
                                .order_by(PlanVersionRow.version)).all()
            return [self._version(row) for row in rows]

    def delete(self, plan_id: str) -> None:
        """Delete the plan with all its versions and runs."""
        with self._db.session("delete the plan", write=True) as session:
            plan_row(session, plan_id)
            session.exec(delete(PlanRow).where(PlanRow.id == plan_id))  # type: ignore[call-overload]

    @staticmethod
    def _new_plan_id(session: Session) -> str:
        while True:
            candidate = secrets.token_hex(_PLAN_ID_BYTES)
            if session.get(PlanRow, candidate) is None:
                return candidate

    def _version(self, row: PlanVersionRow) -> PlanVersion:
        plan = self._db.read_plan(row.plan_json, f"plan {row.plan_id!r} version {row.version}", self._db.path)
        return PlanVersion(plan_id=row.plan_id, version=row.version, created_at=row.created_at,
                           message=row.message, plan=plan)

"""The plan store: saved plans with every version, and runs with each step's result.

Every save of a changed plan adds a version; old versions are never rewritten, so any of
them can be loaded, compared or run again. Plans and runs go in and come out as the domain
models (``Plan``, ``Run``); the rows in ``_tables`` are an implementation detail.

Drafts are the studio's unsaved work per tab: opaque text under an id, replaced whole on each
write (one upsert) and pruned by age.

Database failures surface as ``StorageError`` naming the file and the action; asking for a
plan, version or run that is not there raises ``NotFound``.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import secrets
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from pydantic import ValidationError
from sqlalchemy import Engine, and_, bindparam, case, delete, func, insert, inspect
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlmodel import Session, SQLModel, select

from .._errors import NotFound, PlanError, ReviewDecided, StorageError, VersionConflict
from .._run import Run, StepRun, StepStatus
from .._limits import check_plan
from .._plan import Plan
from ._engine import make_engine, reading_session, writing_session
from . import _search
from ._records import Draft, PlanHistory, PlanSummary, PlanVersion, RunSummary, VersionSummary
from ._reviews import Review, ReviewSummary, StepDecision, step_decisions
from ._tables import DraftRow, PlanRow, PlanVersionRow, ReviewDecisionRow, ReviewRow, RunRow, StepRunRow

__all__ = ["PlanStore"]

_PLAN_ID_BYTES = 4  # 8 hex characters; a clash is checked for and drawn again
_REVIEW_ID_BYTES = 8  # review links are shared: 16 hex characters are not guessed

_clock_lock = threading.Lock()
_last_time = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def _now() -> dt.datetime:
    """The current UTC time, strictly later than any earlier call in this process.

    Lists sort by these stamps; two saves within one clock tick must still keep their order.
    """
    global _last_time
    with _clock_lock:
        now = dt.datetime.now(dt.timezone.utc)
        if now <= _last_time:
            now = _last_time + dt.timedelta(microseconds=1)
        _last_time = now
        return now


def _reason(exc: BaseException) -> str:
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return str(exc.orig)
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _plan_json(plan: Plan) -> tuple[str, Plan]:
    """The JSON the store keeps for ``plan``, and the plan read back from it.

    Made and read back before anything is written, so a plan that cannot be stored (one
    edited in place past a bound of ``core._limits``) is refused whole and leaves no
    half-written version behind.
    """
    check_plan(plan)
    try:
        text = plan.model_dump_json()
        return text, Plan.model_validate_json(text)
    except (ValueError, TypeError, RecursionError) as exc:
        raise PlanError(f"the plan cannot be stored: {_reason(exc)}") from exc


_ORDER = (PlanRow.updated_at.desc(), PlanRow.created_at.desc(), PlanRow.id)


@functools.lru_cache(maxsize=None)
def _list_query(through_index: bool | None, limited: bool) -> Any:
    """``list_plans``'s statement: for no search (``through_index`` None), or a search through
    the trigram index or not; the search text and ``:limit`` come as parameters. Built once per
    kind: building it per call cost more than SQLite took to answer it."""
    # The plans to list first, from the plan table or the search tables alone (which hold the
    # plans' sort keys); only those few then have their latest version and runs looked up.
    if through_index is None:
        chosen: Any = select(PlanRow.id).order_by(*_ORDER)
        if limited:
            chosen = chosen.limit(bindparam("limit"))
    else:
        found = _search.matching_ids(through_index=through_index, limited=limited).subquery()
        chosen = select(found.c.plan_id)
    latest = (select(func.max(PlanVersionRow.version)).where(PlanVersionRow.plan_id == PlanRow.id)
              .correlate(PlanRow).scalar_subquery())
    runs = (select(func.count()).select_from(RunRow).where(RunRow.plan_id == PlanRow.id)
            .correlate(PlanRow).scalar_subquery())
    return (
        select(PlanRow.id, PlanRow.goal, PlanRow.created_at, PlanRow.updated_at,
               PlanVersionRow.version, PlanVersionRow.planner,
               func.json_array_length(PlanVersionRow.plan_json, "$.steps"), runs)
        .join(PlanVersionRow, and_(PlanVersionRow.plan_id == PlanRow.id,
                                   PlanVersionRow.version == latest))
        .where(PlanRow.id.in_(chosen))  # type: ignore[attr-defined]
        .order_by(*_ORDER)
    )


class PlanStore:
    """Plans, their versions and their runs in one SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self._indexed = False  # whether goals are searched through FTS5 (see _search)
        try:
            self._engine: Engine = make_engine(self.path)
        except OSError as exc:
            raise StorageError(f"cannot create the plan store at {self.path}: {exc}") from exc
        self._open()

    # -- lifecycle ---------------------------------------------------------------------------
    def _open(self) -> None:
        action = "open the plan store"
        try:
            # Table creation checks, then creates: under the write lock, so two processes
            # opening a new file at once do not both create.
            with self._engine.connect() as connection:
                connection = connection.execution_options(plan_studio_write=True)
                with connection.begin():
                    SQLModel.metadata.create_all(connection)
                    self._check_columns(connection)
                    self._indexed = _search.ensure_tables(connection)
        except (SQLAlchemyError, sqlite3.Error) as exc:
            self._engine.dispose()
            raise StorageError(f"cannot {action} at {self.path}: {_reason(exc)}") from exc
        except StorageError:
            self._engine.dispose()
            raise

    def _check_columns(self, connection: Any) -> None:
        inspector = inspect(connection)
        for table in SQLModel.metadata.sorted_tables:
            present = {c["name"] for c in inspector.get_columns(table.name)}
            missing = [c.name for c in table.columns if c.name not in present]
            if missing:
                raise StorageError(
                    f"{self.path} is not a Plan Studio store: table {table.name!r} lacks "
                    f"column(s) {', '.join(missing)}")

    def close(self) -> None:
        """Release the store's connections; the file stays as it is."""
        self._engine.dispose()

    def __enter__(self) -> "PlanStore":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PlanStore({str(self.path)!r})"

    @contextmanager
    def _session(self, action: str, *, write: bool = False) -> Iterator[Session]:
        """A session in one transaction, committed when the block ends without an error."""
        try:
            with (writing_session if write else reading_session)(self._engine) as session:
                with session.begin():
                    yield session
        except (SQLAlchemyError, sqlite3.Error) as exc:
            raise StorageError(f"cannot {action} in {self.path}: {_reason(exc)}") from exc

    # -- plans -------------------------------------------------------------------------------
    def save_plan(self, plan: Plan, *, plan_id: str | None = None, message: str = "",
                  expected_version: int | None = None) -> PlanVersion:
        """Save ``plan`` as a new plan (``plan_id`` None) or as the next version of ``plan_id``.

        Saving a plan identical to the latest version returns that version and adds none.
        A plan that cannot be stored raises ``PlanError`` and nothing is written.
        With ``expected_version``, the save is refused with ``VersionConflict`` when the
        plan's latest version is another one (someone saved since it was opened); the check
        and the insert share one write transaction, so two savers cannot both pass it.
        """
        plan_json, stored = _plan_json(plan)
        with self._session("save the plan", write=True) as session:
            return self._save_in(session, plan, plan_json, stored, plan_id=plan_id, message=message,
                                 expected_version=expected_version)

    def _save_in(self, session: Session, plan: Plan, plan_json: str, stored: Plan, *, plan_id: str | None,
                 message: str, expected_version: int | None) -> PlanVersion:
        """``save_plan`` inside an open write session (a review's approval saves with it)."""
        now = _now()
        if plan_id is None:
            plan_id = self._new_plan_id(session)
            session.add(PlanRow(id=plan_id, goal=plan.goal, created_at=now, updated_at=now))
            number = 1
        else:
            row = self._plan_row(session, plan_id)
            latest = self._latest_version_row(session, plan_id)
            if latest is not None and latest.plan_json == plan_json:
                return self._version(latest)
            if expected_version is not None and latest is not None and latest.version != expected_version:
                raise VersionConflict(plan_id, expected=expected_version, latest=latest.version,
                                      saved_at=latest.created_at, message=latest.message)
            number = 1 if latest is None else latest.version + 1
            row.goal = plan.goal
            row.updated_at = now
            session.add(row)
        version_row = PlanVersionRow(plan_id=plan_id, version=number, created_at=now,
                                     message=message, planner=plan.metadata.planner,
                                     plan_json=plan_json)
        session.add(version_row)
        session.flush()  # the plan row first: its folded goal points at it
        _search.index_goal(session, plan_id, plan.goal)
        return PlanVersion(plan_id=plan_id, version=number, created_at=now, message=message, plan=stored)

    def list_plans(self, search: str = "", *, limit: int | None = None) -> list[PlanSummary]:
        """Saved plans, most recently updated first; ``search`` matches the goal, ignoring case.

        ``limit`` keeps the first that many. One query whatever the number of plans: the latest
        version and the run count are looked up per listed plan through their indexes, not
        aggregated over the whole store.
        """
        needle = search.strip().casefold()
        params: dict[str, Any] = {} if limit is None else {"limit": max(limit, 0)}
        if needle:
            params.update(_search.search_params(needle, indexed=self._indexed))
        query = _list_query(_search.uses_index(needle, indexed=self._indexed) if needle else None,
                            limit is not None)
        with self._session("list plans") as session:
            rows = session.execute(query, params).all()
        return [PlanSummary(id=plan_id, goal=goal, latest_version=number, created_at=created,
                            updated_at=updated, step_count=steps or 0, run_count=run_count, planner=planner)
                for plan_id, goal, created, updated, number, planner, steps, run_count in rows]

    def count_plans(self, search: str = "") -> int:
        """How many saved plans ``list_plans(search)`` would list."""
        needle = search.strip().casefold()
        with self._session("count plans") as session:
            if needle:  # straight from the search tables: every folded goal belongs to a plan
                return session.execute(_search.count_matching(needle, indexed=self._indexed)).scalar_one()
            return session.exec(select(func.count()).select_from(PlanRow)).one()

    def histories(self, plan_ids: list[str]) -> dict[str, PlanHistory]:
        """The versions and runs of each of ``plan_ids``, in three queries however many plans.

        Versions come without their plans (``step_count`` says how long each was); a plan id
        that is not stored maps to an empty history.
        """
        ids = list(dict.fromkeys(plan_ids))
        if not ids:
            return {}
        with self._session("list versions and runs") as session:
            versions = session.exec(
                select(PlanVersionRow.plan_id, PlanVersionRow.version, PlanVersionRow.created_at,
                       PlanVersionRow.message, func.json_array_length(PlanVersionRow.plan_json, "$.steps"))
                .where(PlanVersionRow.plan_id.in_(ids))  # type: ignore[attr-defined]
                .order_by(PlanVersionRow.plan_id, PlanVersionRow.version)).all()
            runs = session.exec(select(RunRow.id, RunRow.plan_id, RunRow.version, RunRow.started_at,
                                       RunRow.finished_at, RunRow.status)
                                .where(RunRow.plan_id.in_(ids))  # type: ignore[attr-defined]
                                .order_by(RunRow.created_at.desc(), RunRow.id)).all()
            tallies = session.exec(
                select(StepRunRow.run_id, StepRunRow.status, func.count())
                .join(RunRow, RunRow.id == StepRunRow.run_id)
                .where(RunRow.plan_id.in_(ids))  # type: ignore[attr-defined]
                .group_by(StepRunRow.run_id, StepRunRow.status)).all()
        counts = self._counts(tallies)
        found: dict[str, PlanHistory] = {plan_id: PlanHistory() for plan_id in ids}
        for plan_id, number, created, message, steps in versions:
            found[plan_id].versions.append(VersionSummary(plan_id=plan_id, version=number, created_at=created,
                                                          message=message, step_count=steps or 0))
        for run_id, plan_id, number, started, finished, status in runs:
            found[plan_id].runs.append(RunSummary(id=run_id, plan_id=plan_id, version=number, started_at=started,
                                                  finished_at=finished, status=status, counts=counts.get(run_id, {})))
        return found

    def load_plan(self, plan_id: str, version: int | None = None) -> Plan:
        """The plan as saved in ``version``, or in its latest version when ``version`` is None."""
        with self._session("load the plan") as session:
            self._plan_row(session, plan_id)
            if version is None:
                row = self._latest_version_row(session, plan_id)
            else:
                row = session.exec(select(PlanVersionRow).where(
                    PlanVersionRow.plan_id == plan_id, PlanVersionRow.version == version)).first()
            if row is None:
                latest = self._latest_version_row(session, plan_id)
                have = f"versions 1 to {latest.version}" if latest else "no versions"
                raise NotFound(f"plan {plan_id!r} has no version {version} (it has {have})")
            return self._parse_plan(row.plan_json, f"plan {plan_id!r} version {row.version}")

    def versions(self, plan_id: str) -> list[PlanVersion]:
        """Every version of the plan, oldest first."""
        with self._session("list the plan's versions") as session:
            self._plan_row(session, plan_id)
            rows = session.exec(select(PlanVersionRow).where(PlanVersionRow.plan_id == plan_id)
                                .order_by(PlanVersionRow.version)).all()
            return [self._version(row) for row in rows]

    def delete_plan(self, plan_id: str) -> None:
        """Delete the plan with all its versions and runs."""
        with self._session("delete the plan", write=True) as session:
            self._plan_row(session, plan_id)
            session.exec(delete(PlanRow).where(PlanRow.id == plan_id))  # type: ignore[call-overload]

    # -- runs --------------------------------------------------------------------------------
    def save_run(self, run: Run, *, plan_id: str, version: int) -> None:
        """Insert the run, or update it if a run with ``run.id`` is saved already, with every step's result.

        Everything is serialised before the first write: a run that cannot be stored raises
        ``PlanError`` (its plan) or ``StorageError`` (a step's result) and nothing is written.
        """
        plan_json, _stored = _plan_json(run.plan)
        try:
            step_rows = [self._step_values(run.id, position, state)
                         for position, state in enumerate(run.steps.values())]
        except (ValueError, TypeError, RecursionError) as exc:
            raise StorageError(f"cannot save run {run.id!r}: a step's result cannot be stored: "
                               f"{_reason(exc)}") from exc
        with self._session("save the run", write=True) as session:
            self._plan_row(session, plan_id)
            exists = session.exec(select(PlanVersionRow.id).where(
                PlanVersionRow.plan_id == plan_id, PlanVersionRow.version == version)).first()
            if exists is None:
                raise NotFound(f"plan {plan_id!r} has no version {version}")
            row = session.get(RunRow, run.id)
            if row is None:
                row = RunRow(id=run.id, plan_id=plan_id, version=version, created_at=_now(),
                             status=run.status, plan_json="")
            elif row.plan_id != plan_id:
                raise StorageError(f"run {run.id!r} belongs to plan {row.plan_id!r}, not {plan_id!r}")
            row.version = version
            row.started_at = run.started_at
            row.finished_at = run.finished_at
            row.status = run.status
            row.answer = run.answer
            row.plan_json = plan_json
            session.add(row)
            session.exec(delete(StepRunRow).where(StepRunRow.run_id == run.id))  # type: ignore[call-overload]
            session.flush()  # the run row must exist before its steps point at it
            if step_rows:  # one executemany, not an ORM object per step
                session.execute(insert(StepRunRow), step_rows)

    def list_runs(self, plan_id: str) -> list[RunSummary]:
        """The plan's runs, newest first."""
        with self._session("list the plan's runs") as session:
            self._plan_row(session, plan_id)
            runs = session.exec(select(RunRow).where(RunRow.plan_id == plan_id)
                                .order_by(RunRow.created_at.desc(), RunRow.id)).all()
            tallies = session.exec(
                select(StepRunRow.run_id, StepRunRow.status, func.count())
                .join(RunRow, RunRow.id == StepRunRow.run_id)
                .where(RunRow.plan_id == plan_id)
                .group_by(StepRunRow.run_id, StepRunRow.status)).all()
        counts = self._counts(tallies)
        return [RunSummary(id=r.id, plan_id=r.plan_id, version=r.version, started_at=r.started_at,
                           finished_at=r.finished_at, status=r.status, counts=counts.get(r.id, {}))
                for r in runs]

    def load_run(self, run_id: str) -> Run:
        """The run as last saved, with every step's status, arguments, result and error."""
        with self._session("load the run") as session:
            row = session.get(RunRow, run_id)
            if row is None:
                raise NotFound(f"no run with id {run_id!r}")
            step_rows = session.exec(select(StepRunRow).where(StepRunRow.run_id == run_id)
                                     .order_by(StepRunRow.position)).all()
        where = f"run {run_id!r}"
        plan = self._parse_plan(row.plan_json, where)
        try:
            steps = {s.step_id: StepRun(step_id=s.step_id, status=StepStatus(s.status),
                                        arguments=_load(s.arguments_json), result=_load(s.result_json),
                                        error=s.error, started_at=s.started_at, duration_ms=s.duration_ms)
                     for s in step_rows}
            return Run(id=row.id, plan=plan, steps=steps, started_at=row.started_at,
                       finished_at=row.finished_at, answer=row.answer)
        except (ValueError, ValidationError) as exc:
            raise StorageError(f"{where} in {self.path} is unreadable: {exc}") from exc

    def latest_run_id(self, plan_id: str, version: int | None = None) -> str | None:
        """The id of the plan's most recently stored run (of ``version`` if given), or None."""
        query = select(RunRow.id).where(RunRow.plan_id == plan_id)
        if version is not None:
            query = query.where(RunRow.version == version)
        with self._session("find the plan's latest run") as session:
            return session.exec(query.order_by(RunRow.created_at.desc(), RunRow.id).limit(1)).first()  # type: ignore[attr-defined]

    # -- drafts ------------------------------------------------------------------------------
    # A draft is a studio tab's unsaved work, written on every change so a reload finds it.
    # One upsert per write; the content is opaque here.
    def save_draft(self, draft_id: str, content: str) -> Draft:
        """Keep ``content`` as the draft ``draft_id``, replacing what it held."""
        if not draft_id:
            raise StorageError("cannot save a draft without an id")
        try:
            content.encode("utf-8")  # SQLite stores UTF-8, which has no lone surrogates
        except UnicodeEncodeError as exc:
            raise StorageError(f"cannot save draft {draft_id!r}: {_reason(exc)}") from exc
        now = _now()
        with self._session("save the draft", write=True) as session:
            upsert = sqlite_insert(DraftRow).values(id=draft_id, updated_at=now, content=content)
            session.execute(upsert.on_conflict_do_update(
                index_elements=["id"], set_={"updated_at": now, "content": content}))
        return Draft(id=draft_id, updated_at=now, content=content)

    def load_draft(self, draft_id: str) -> Draft | None:
        """The draft ``draft_id``, or None when there is none (never saved, deleted or pruned)."""
        with self._session("load the draft") as session:
            row = session.get(DraftRow, draft_id)
        return None if row is None else Draft(id=row.id, updated_at=row.updated_at, content=row.content)

    def delete_draft(self, draft_id: str) -> None:
        """Forget the draft; deleting one that is not there does nothing."""
        with self._session("delete the draft", write=True) as session:
            session.exec(delete(DraftRow).where(DraftRow.id == draft_id))  # type: ignore[call-overload]

    def prune_drafts(self, older_than: dt.timedelta) -> int:
        """Delete the drafts not written for ``older_than``; how many rows went.

        A draft ``<id>`` may have parts, ``<id>.<part>`` (the studio keeps a tab's run apart,
        written only when the run changes): a part goes with its draft, not before it, so a
        draft still in use never loses a part that was written long ago."""
        cutoff = _now() - older_than
        newer = DraftRow.__table__.alias("newer")  # type: ignore[attr-defined]
        fresh = select(_draft_owner(newer.c.id)).where(newer.c.updated_at >= cutoff)
        with self._session("prune old drafts", write=True) as session:
            result = session.exec(delete(DraftRow).where(  # type: ignore[call-overload]
                DraftRow.updated_at < cutoff, _draft_owner(DraftRow.id).not_in(fresh)))  # type: ignore[arg-type]
            return result.rowcount or 0

    # -- reviews -----------------------------------------------------------------------------
    def submit_review(self, plan: Plan, *, agent: str, fmt: str, original_text: str,
                      tools: list[dict[str, Any]] | None = None) -> Review:
        """Keep ``plan``, sent by ``agent`` in format ``fmt`` as ``original_text``, for review."""
        plan_json, stored = _plan_json(plan)
        tools_json = _dump(tools)
        with self._session("store the review", write=True) as session:
            review_id = self._new_review_id(session)
            now = _now()
            session.add(ReviewRow(id=review_id, agent=agent, submitted_at=now, goal=plan.goal, status="pending",
                                  format=fmt, original_text=original_text, plan_json=plan_json,
                                  tools_json=tools_json))
        return Review(id=review_id, agent=agent, submitted_at=now, goal=plan.goal, status="pending", format=fmt,
                      original_text=original_text, plan=stored, tools=tools)

    def get_review(self, review_id: str) -> Review:
        """The review with its decision, if made; ``NotFound`` when there is none with that id."""
        with self._session("load the review") as session:
            row = session.get(ReviewRow, review_id)
            if row is None:
                raise NotFound(f"no review with id {review_id!r}")
            decisions = session.exec(select(ReviewDecisionRow).where(ReviewDecisionRow.review_id == review_id)
                                     .order_by(ReviewDecisionRow.position)).all()
            version = None
            if row.plan_id is not None and row.version is not None:
                version = session.exec(select(PlanVersionRow.plan_json).where(
                    PlanVersionRow.plan_id == row.plan_id, PlanVersionRow.version == row.version)).first()
        where = f"review {review_id!r}"
        return Review(id=row.id, agent=row.agent, submitted_at=row.submitted_at, goal=row.goal, status=row.status,
                      format=row.format, original_text=row.original_text,
                      plan=self._parse_plan(row.plan_json, where), tools=_load(row.tools_json),
                      comment=row.comment, decided_at=row.decided_at,
                      decisions=[StepDecision(d.step_id, d.decision) for d in decisions],
                      plan_id=row.plan_id, version=row.version,
                      approved_plan=None if version is None else self._parse_plan(version, where))

    def review_status(self, review_id: str) -> str:
        """Only the review's status: what a waiting agent polls, one indexed lookup."""
        with self._session("look up the review") as session:
            status = session.exec(select(ReviewRow.status).where(ReviewRow.id == review_id)).first()
        if status is None:
            raise NotFound(f"no review with id {review_id!r}")
        return status

    def list_reviews(self, status: str | None = None, *, limit: int | None = None) -> list[ReviewSummary]:
        """Reviews, pending ones first, then the most recently sent; ``status`` keeps one kind."""
        pending_first = case((ReviewRow.status == "pending", 0), else_=1)
        query = select(ReviewRow.id, ReviewRow.agent, ReviewRow.submitted_at, ReviewRow.goal, ReviewRow.status,
                       func.json_array_length(ReviewRow.plan_json, "$.steps"), ReviewRow.decided_at)
        if status is not None:
            query = query.where(ReviewRow.status == status)
        query = query.order_by(pending_first, ReviewRow.submitted_at.desc(), ReviewRow.id)  # type: ignore[union-attr]
        if limit is not None:
            query = query.limit(max(limit, 0))
        with self._session("list reviews") as session:
            rows = session.exec(query).all()
        return [ReviewSummary(id=i, agent=a, submitted_at=t, goal=g, status=s, step_count=n or 0, decided_at=d)
                for i, a, t, g, s, n, d in rows]

    def count_reviews(self, status: str | None = None) -> int:
        query = select(func.count()).select_from(ReviewRow)
        if status is not None:
            query = query.where(ReviewRow.status == status)
        with self._session("count reviews") as session:
            return session.exec(query).one()

    def decide_review(self, review_id: str, *, approve: bool, plan: Plan | None = None, comment: str = "",
                      plan_id: str | None = None) -> Review:
        """Approve (with ``plan``, the reviewer's version, edits included) or reject the review.

        An approved plan is saved in the plan store, as the next version of ``plan_id`` or as a
        new plan, in the same transaction as the decision. A review already decided raises
        ``ReviewDecided`` and nothing is written: two reviewers cannot both decide it.
        """
        approved = _plan_json(plan) if approve and plan is not None else None
        with self._session("record the review's decision", write=True) as session:
            row = session.get(ReviewRow, review_id)
            if row is None:
                raise NotFound(f"no review with id {review_id!r}")
            if row.status != "pending":
                raise ReviewDecided(review_id, row.status)
            sent = self._parse_plan(row.plan_json, f"review {review_id!r}")
            if approve:
                plan_json, stored = approved if approved is not None else _plan_json(sent)
                saved = self._save_in(session, stored, plan_json, stored, plan_id=plan_id,
                                      message=f"approved in review {review_id} (sent by {row.agent})",
                                      expected_version=None)
                row.plan_id, row.version = saved.plan_id, saved.version
                decided = stored
            else:
                decided = None
            row.status = "approved" if approve else "rejected"
            row.comment = comment
            row.decided_at = _now()
            session.add(row)
            session.flush()
            decisions = step_decisions(sent, decided, approved=approve)
            if decisions:
                session.execute(insert(ReviewDecisionRow), [
                    dict(review_id=review_id, step_id=d.step_id, position=n, decision=d.decision)
                    for n, d in enumerate(decisions)])
        return self.get_review(review_id)

    # -- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _new_plan_id(session: Session) -> str:
        while True:
            candidate = secrets.token_hex(_PLAN_ID_BYTES)
            if session.get(PlanRow, candidate) is None:
                return candidate

    @staticmethod
    def _new_review_id(session: Session) -> str:
        while True:
            candidate = secrets.token_hex(_REVIEW_ID_BYTES)
            if session.get(ReviewRow, candidate) is None:
                return candidate

    @staticmethod
    def _plan_row(session: Session, plan_id: str) -> PlanRow:
        row = session.get(PlanRow, plan_id)
        if row is None:
            raise NotFound(f"no plan with id {plan_id!r}")
        return row

    @staticmethod
    def _latest_version_row(session: Session, plan_id: str) -> PlanVersionRow | None:
        return session.exec(select(PlanVersionRow).where(PlanVersionRow.plan_id == plan_id)
                            .order_by(PlanVersionRow.version.desc()).limit(1)).first()  # type: ignore[attr-defined]

    def _parse_plan(self, text: str, where: str) -> Plan:
        try:
            return Plan.model_validate_json(text)
        except (ValidationError, PlanError) as exc:
            raise StorageError(f"{where} in {self.path} is unreadable: {exc}") from exc

    def _version(self, row: PlanVersionRow) -> PlanVersion:
        plan = self._parse_plan(row.plan_json, f"plan {row.plan_id!r} version {row.version}")
        return PlanVersion(plan_id=row.plan_id, version=row.version, created_at=row.created_at,
                           message=row.message, plan=plan)

    @staticmethod
    def _counts(tallies: Any) -> dict[str, dict[str, int]]:
        """(run id, status, count) rows as each run's counts, in the order of ``StepStatus``."""
        order = {status.value: n for n, status in enumerate(StepStatus)}
        counts: dict[str, dict[str, int]] = {}
        for run_id, status, count in sorted(tallies, key=lambda t: order.get(t[1], len(order))):
            counts.setdefault(run_id, {})[status] = count
        return counts

    @staticmethod
    def _step_values(run_id: str, position: int, state: StepRun) -> dict[str, Any]:
        data = state.model_dump(mode="json", include={"arguments", "result"})
        arguments, result = _dump(data["arguments"]), _dump(data["result"])
        for text in (arguments, result, state.error):
            if text is not None:
                text.encode("utf-8")  # SQLite stores UTF-8, which has no lone surrogates
        return dict(run_id=run_id, step_id=state.step_id, position=position,
                    status=state.status.value, arguments_json=arguments,
                    result_json=result, error=state.error,
                    started_at=state.started_at, duration_ms=state.duration_ms)


def _draft_owner(draft_id: Any) -> Any:
    """The draft a row belongs to, in SQL: ``<id>`` for ``<id>`` and for its parts ``<id>.<part>``."""
    dot = func.instr(draft_id, ".")
    return case((dot > 0, func.substr(draft_id, 1, dot - 1)), else_=draft_id)

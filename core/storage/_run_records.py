"""A run written as it happens: each step's start (with its resolved arguments) before its tool
is called, and its end (result or error, timing) right after; the run's lineage; the list of
recent runs the command line shows.

``Runs.save`` writes a whole run at once (the studio saves a run with its version); a durable
run uses that once to put the run in the store before its first step, then these small
updates, one short write transaction each, so a kill at any moment leaves every finished step
recorded and a step that was cut off recorded as started.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from pydantic_core import PydanticSerializationError, to_jsonable_python
from sqlalchemy import case, func, text, update
from sqlmodel import select

from .._errors import StorageError
from ..run._model import StepRun
from ._engine import Database
from ._tables import PlanRow, RunRow, RunWorkerRow, StepRunRow
from ._values import found, json_text, reason

__all__ = ["RunListing", "RunRecords"]


@dataclass(frozen=True)
class RunListing:
    """One line of ``plan-studio runs``."""

    id: str
    status: str
    plan_id: str
    version: int
    goal: str
    created_at: dt.datetime
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    parent_id: str | None
    rerun_from: str | None
    rehearsal: bool = False  # no tool was called (``core.Rehearsal``)


# The two writes every step makes, compiled once (the store's tables, plain SQL both dialects read).
_STEP_STARTED = text("UPDATE step_run SET status = 'running', arguments_json = :arguments, result_json = NULL, "
                     "error = NULL, started_at = :at, duration_ms = NULL WHERE run_id = :run AND step_id = :step")
_STEP_ENDED = text("UPDATE step_run SET status = :status, arguments_json = :arguments, result_json = :result, "
                   "error = :error, duration_ms = :duration, decision_json = :decision, retried_json = :retried, "
                   "approvals_json = :approvals, ask_json = :ask WHERE run_id = :run AND step_id = :step")

# A run's start and end are written as its steps are (``Database.driver_writes``).
_RUN_STATE = text("UPDATE run SET status = :status, started_at = COALESCE(:started, started_at), "
                  "finished_at = COALESCE(:finished, finished_at) WHERE id = :run")
_RUN_ENDED = text("UPDATE run SET status = :status, finished_at = :finished, answer = :answer WHERE id = :run")


def _stamp(at: dt.datetime) -> dt.datetime:
    """As ``UTCDateTime`` stores it: UTC, without the offset."""
    return at.astimezone(dt.timezone.utc).replace(tzinfo=None) if at.tzinfo else at


def _text(value: Any, what: str, step_id: str) -> str | None:
    try:
        stored = json_text(to_jsonable_python(value))
        if stored is not None:
            stored.encode("utf-8")  # the database stores UTF-8, which has no lone surrogates
        return stored
    except (ValueError, TypeError, RecursionError, PydanticSerializationError) as exc:
        raise StorageError(f"step {step_id!r}: its {what} cannot be stored: {reason(exc)}") from exc


class RunRecords:
    """Step-by-step writes of runs in one store."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def link(self, run_id: str, *, parent_id: str | None, rerun_from: str | None) -> None:
        """Record that ``run_id`` is a retry or rerun of ``parent_id`` (from ``rerun_from``)."""
        with self._db.session("link the run to the one it came from", write=True) as session:
            session.execute(update(RunRow).where(RunRow.id == run_id)  # type: ignore[arg-type]
                            .values(parent_id=parent_id, rerun_from=rerun_from))

    def step_started(self, run_id: str, step_id: str, arguments: dict[str, Any] | None,
                     started_at: dt.datetime) -> None:
        """The step's tool is about to be called with ``arguments``."""
        self.steps_started(run_id, [(step_id, arguments, started_at)])

    def steps_started(self, run_id: str, starts: list[tuple[str, dict[str, Any] | None, dt.datetime]]) -> None:
        """The tools of these steps (id, arguments, when) are about to be called: one transaction."""
        rows = [{"run": run_id, "step": step_id, "arguments": _text(arguments, "arguments", step_id),
                 "at": _stamp(started_at)} for step_id, arguments, started_at in starts]
        self._db.driver_writes.write("record the step's start", _STEP_STARTED, rows)

    def step_finished(self, run_id: str, state: StepRun) -> None:
        """The step ended (or waits, or a person decided on it): its status, result or error, how
        long it took, the person's decision, and what the policy asks of a waiting step."""
        self.steps_finished(run_id, [state])

    def steps_finished(self, run_id: str, states: list[StepRun]) -> None:
        """``step_finished`` of steps that ended together, in one transaction."""
        rows = [{"run": run_id, "step": state.step_id, "status": state.status.value,
                 "arguments": _text(state.arguments, "arguments", state.step_id),
                 "result": _text(state.result, "result", state.step_id), "error": state.error,
                 "duration": state.duration_ms, "decision": _text(state.decision, "decision", state.step_id),
                 "retried": _text(state.retried, "retried", state.step_id) if state.retried else None,
                 "approvals": _text(state.approvals, "approvals", state.step_id) if state.approvals else None,
                 "ask": _text(state.ask, "ask", state.step_id)}
                for state in states]
        self._db.driver_writes.write("record the step's end", _STEP_ENDED, rows)

    def step_marked(self, run_id: str, step_id: str, status: str, error: str | None, *, run_status: str) -> None:
        """Set one step's status and note, and the run's status (a step found in doubt, say)."""
        with self._db.session("mark the step", write=True) as session:
            session.execute(update(StepRunRow).where(StepRunRow.run_id == run_id, StepRunRow.step_id == step_id)  # type: ignore[arg-type]
                            .values(status=status, error=error))
            session.execute(update(RunRow).where(RunRow.id == run_id).values(status=run_status))  # type: ignore[arg-type]

    def run_state(self, run_id: str, *, status: str, started_at: dt.datetime | None = None,
                  finished_at: dt.datetime | None = None) -> None:
        """The run's status now (and when it started or finished, when given)."""
        self._db.driver_writes.write("record the run's state", _RUN_STATE, [
            {"run": run_id, "status": status, "started": None if started_at is None else _stamp(started_at),
             "finished": None if finished_at is None else _stamp(finished_at)}])

    def run_ended(self, run_id: str, *, status: str, finished_at: dt.datetime, answer: str | None) -> None:
        """The run is over: its final status, when it ended, its answer."""
        self._db.driver_writes.write("record the run's end", _RUN_ENDED, [
            {"run": run_id, "status": status, "finished": _stamp(finished_at), "answer": answer}])

    def step_state(self, run_id: str, step_id: str) -> tuple[str, str | None]:
        """The step's recorded status and note."""
        with self._db.session("read the step") as session:
            row = found(session.get(StepRunRow, (run_id, step_id)), f"run {run_id!r} has no step {step_id!r}")
            return row.status, row.error

    def lineage(self, run_id: str) -> tuple[str | None, str | None]:
        """The run ``run_id`` came from, and the step it started again from (None, None: neither)."""
        with self._db.session("read the run's lineage") as session:
            row = found(session.get(RunRow, run_id), f"no run with id {run_id!r}")
            return row.parent_id, row.rerun_from

    def where(self, run_id: str) -> tuple[str, int]:
        """The plan and version ``run_id`` ran."""
        with self._db.session("find the run's plan") as session:
            row = found(session.get(RunRow, run_id), f"no run with id {run_id!r}")
            return row.plan_id, row.version

    def recent(self, limit: int = 50) -> list[RunListing]:
        """The latest runs of every plan, newest first."""
        return self._listed("list the runs", limit=limit)

    def _listed(self, action: str, *where: Any, limit: int) -> list[RunListing]:
        with self._db.session(action) as session:
            rows = session.exec(select(RunRow, PlanRow.goal).join(PlanRow, PlanRow.id == RunRow.plan_id).where(*where)
                                .order_by(RunRow.created_at.desc(), RunRow.id).limit(limit)).all()  # type: ignore[attr-defined]
        return [RunListing(id=r.id, status=r.status, plan_id=r.plan_id, version=r.version, goal=goal,
                           created_at=r.created_at, started_at=r.started_at, finished_at=r.finished_at,
                           parent_id=r.parent_id, rerun_from=r.rerun_from, rehearsal=r.rehearsal_json is not None)
                for r, goal in rows]

    # -- runs not over: what a tab, the Reviews page and a second Run ask about ---------------------
    def unfinished(self, plan_id: str, version: int, statuses: tuple[str, ...], limit: int = 20) -> list[RunListing]:
        """The runs of that version recorded in one of ``statuses`` and not finished, newest first."""
        return self._listed("list the version's runs not over", RunRow.plan_id == plan_id, RunRow.version == version,
                            RunRow.status.in_(statuses), RunRow.finished_at.is_(None), limit=limit)  # type: ignore[attr-defined,union-attr]

    def waiting(self, limit: int = 50) -> list[RunListing]:
        """The runs recorded waiting for a person, newest first."""
        return self._listed("list the runs waiting", RunRow.status == "waiting", RunRow.finished_at.is_(None),  # type: ignore[union-attr]
                            limit=limit)

    def waiting_count(self) -> int:
        """How many runs are recorded waiting for a person."""
        with self._db.session("count the runs waiting") as session:
            return int(session.exec(select(func.count()).select_from(RunRow).where(
                RunRow.status == "waiting", RunRow.finished_at.is_(None))).one())  # type: ignore[union-attr]

    def stamp(self, run_id: str) -> tuple[Any, ...] | None:
        """Where the run is, cheaply (None: no such run): its status and end, and per step status
        how many steps, and of the steps waiting the length of their decisions and approvals (never
        a result: a run's results are most of its bytes). It moves whenever a step starts, ends, waits or
        is decided (a decision is written while its step still waits), so a page can look at it
        every half second instead of loading the whole run."""
        with self._db.session("look at the run") as session:
            head = session.exec(select(RunRow.status, RunRow.finished_at).where(RunRow.id == run_id)).first()
            if head is None:
                return None
            steps = session.exec(
                select(StepRunRow.status, func.count(), func.sum(case(
                    (StepRunRow.status == "waiting",  # only there: a row past its result costs its pages
                     func.length(func.coalesce(StepRunRow.decision_json, ""))
                     + func.length(func.coalesce(StepRunRow.approvals_json, ""))), else_=0)))
                .where(StepRunRow.run_id == run_id).group_by(StepRunRow.status)  # type: ignore[arg-type]
                .order_by(StepRunRow.status)).all()
        return (head[0], head[1], *((status, int(n), int(decided or 0)) for status, n, decided in steps))

    # -- workers -----------------------------------------------------------------------------
    def worker_seen(self, worker_id: str, at: dt.datetime) -> None:
        """The worker is alive at ``at``."""
        with self._db.session("record the worker's sign of life", write=True) as session:
            session.execute(self._db.dialect.upsert(RunWorkerRow, {"id": worker_id, "seen_at": at,
                                                                   "taken_over_by": None}, key=["id"]))

    def worker_last_seen(self, worker_id: str) -> dt.datetime | None:
        with self._db.session("read the worker's sign of life") as session:
            row = session.get(RunWorkerRow, worker_id)
            return row.seen_at if row is not None else None

    def workers_seen_since(self, since: dt.datetime) -> list[str]:
        """The workers seen alive at ``since`` or later (and not taken over), by id."""
        with self._db.session("read the workers' signs of life") as session:
            rows = session.exec(select(RunWorkerRow.id).where(
                RunWorkerRow.seen_at >= since, RunWorkerRow.taken_over_by.is_(None))  # type: ignore[arg-type,union-attr]
                .order_by(RunWorkerRow.id)).all()
        return list(rows)

    def take_over(self, worker_id: str, taker: str, *, silent_since: dt.datetime) -> bool:
        """Claim the runs of ``worker_id`` for ``taker`` when the worker has not been seen since
        ``silent_since`` and nobody claimed them yet; True for the one taker that got them."""
        with self._db.session("take over a worker's runs", write=True) as session:
            result = session.execute(update(RunWorkerRow).where(
                RunWorkerRow.id == worker_id, RunWorkerRow.seen_at < silent_since,  # type: ignore[arg-type]
                RunWorkerRow.taken_over_by.is_(None)).values(taken_over_by=taker))  # type: ignore[union-attr]
            return result.rowcount == 1

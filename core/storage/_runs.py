"""Runs of saved plans, with each step's result: save (insert or update), list, load; and the
plans' histories (versions and runs) the Library shows.

A run goes in and comes out as ``core.run._model.Run``; the store needs what a run is, never the
executor that makes one.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from sqlalchemy import delete, func, insert
from sqlmodel import select

from .._errors import NotFound, StorageError
from ..plan._model import Step
from ..run._model import Rehearsal, Run, StepRun, StepStatus
from ..plan._labels import step_label
from ._engine import Database
from ._plans import plan_row
from ._records import PlanHistory, RunSummary, VersionSummary
from ._tables import PlanVersionRow, RunRow, StepRunRow
from ._values import found, json_text, json_value, now, plan_json, plan_text, reason

__all__ = ["Runs"]


_STEP_COLUMNS = (StepRunRow.step_id, StepRunRow.status, StepRunRow.arguments_json, StepRunRow.result_json,
                 StepRunRow.error, StepRunRow.started_at, StepRunRow.duration_ms, StepRunRow.decision_json,
                 StepRunRow.retried_json, StepRunRow.approvals_json, StepRunRow.ask_json)


class Runs:
    """The runs of one store file's plans."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def save(self, run: Run, *, plan_id: str, version: int) -> None:
        """See ``PlanStore.save_run``."""
        text = plan_text(run.plan)
        try:
            step_rows = [_step_values(run.id, position, state)
                         for position, state in enumerate(run.steps.values())]
        except (ValueError, TypeError, RecursionError) as exc:
            raise StorageError(f"cannot save run {run.id!r}: a step's result cannot be stored: "
                               f"{reason(exc)}") from exc
        with self._db.session("save the run", write=True) as session:
            plan_row(session, plan_id)
            versioned = session.exec(select(PlanVersionRow.plan_json).where(
                PlanVersionRow.plan_id == plan_id, PlanVersionRow.version == version)).first()
            if versioned is None:
                raise NotFound(f"plan {plan_id!r} has no version {version}")
            if versioned != text:
                # Not the version's plan as it was stored (and checked then): checked now, so a
                # plan that cannot be stored is refused before anything is.
                text = plan_json(run.plan)
            row = session.get(RunRow, run.id)
            if row is None:
                row = RunRow(id=run.id, plan_id=plan_id, version=version, created_at=now(),
                             status=run.status, plan_json="")
            elif row.plan_id != plan_id:
                raise StorageError(f"run {run.id!r} belongs to plan {row.plan_id!r}, not {plan_id!r}")
            row.version = version
            row.started_at = run.started_at
            row.finished_at = run.finished_at
            row.status = run.status
            row.answer = run.answer
            row.submitted_by = getattr(run, "submitted_by", None)
            row.rehearsal_json = None if run.rehearsal is None else run.rehearsal.model_dump_json()
            row.plan_json = text
            session.add(row)
            session.exec(delete(StepRunRow).where(StepRunRow.run_id == run.id))  # type: ignore[call-overload]
            session.flush()  # the run row must exist before its steps point at it
            if step_rows:  # one executemany, not an ORM object per step
                session.execute(insert(StepRunRow), step_rows)

    def summaries(self, plan_id: str) -> list[RunSummary]:
        """The plan's runs, newest first."""
        with self._db.session("list the plan's runs") as session:
            plan_row(session, plan_id)
            runs = session.exec(select(RunRow).where(RunRow.plan_id == plan_id)
                                .order_by(RunRow.created_at.desc(), RunRow.id)).all()
            tallies = session.exec(
                select(StepRunRow.run_id, StepRunRow.status, func.count())
                .join(RunRow, RunRow.id == StepRunRow.run_id)
                .where(RunRow.plan_id == plan_id)
                .group_by(StepRunRow.run_id, StepRunRow.status)).all()
        counts = _counts(tallies)
        return [RunSummary(id=r.id, plan_id=r.plan_id, version=r.version, started_at=r.started_at,
                           finished_at=r.finished_at, status=r.status, counts=counts.get(r.id, {}),
                           rehearsal=r.rehearsal_json is not None)
                for r in runs]

    def load(self, run_id: str) -> Run:
        """The run as last saved, with every step's status, arguments, result and error."""
        with self._db.session("load the run") as session:
            row = found(session.get(RunRow, run_id), f"no run with id {run_id!r}")
            # Columns, not ORM objects: an object per step was most of loading a long run.
            step_rows = session.execute(select(*_STEP_COLUMNS).where(StepRunRow.run_id == run_id)  # type: ignore[call-overload]
                                        .order_by(StepRunRow.position)).all()
        where = f"run {run_id!r}"
        plan = self._db.read_plan(row.plan_json, where, self._db.path)
        try:
            steps = {s.step_id: StepRun(step_id=s.step_id, status=StepStatus(s.status),
                                        arguments=json_value(s.arguments_json), result=json_value(s.result_json),
                                        error=s.error, started_at=s.started_at, duration_ms=s.duration_ms,
                                        decision=json_value(s.decision_json),
                                        retried=json_value(s.retried_json) or [],
                                        approvals=json_value(s.approvals_json) or [],
                                        ask=json_value(s.ask_json))
                     for s in step_rows}
            # Built, not validated: pydantic would run the plan's own checks once more, on a plan
            # just read and checked.
            return Run.model_construct(id=row.id, plan=plan, steps=steps, started_at=row.started_at,
                                       finished_at=row.finished_at, answer=row.answer,
                                       submitted_by=row.submitted_by,
                                       rehearsal=None if row.rehearsal_json is None
                                       else Rehearsal.model_validate_json(row.rehearsal_json))
        except (ValueError, ValidationError) as exc:
            raise StorageError(f"{where} in {self._db.path} is unreadable: {exc}") from exc

    def latest_id(self, plan_id: str, version: int | None = None) -> str | None:
        """The id of the plan's most recently stored run (of ``version`` if given), or None."""
        query = select(RunRow.id).where(RunRow.plan_id == plan_id)
        if version is not None:
            query = query.where(RunRow.version == version)
        with self._db.session("find the plan's latest run") as session:
            return session.exec(query.order_by(RunRow.created_at.desc(), RunRow.id).limit(1)).first()  # type: ignore[attr-defined]

    def histories(self, plan_ids: list[str]) -> dict[str, PlanHistory]:
        """See ``PlanStore.histories``."""
        ids = list(dict.fromkeys(plan_ids))
        if not ids:
            return {}
        with self._db.session("list versions and runs") as session:
            versions = session.exec(
                select(PlanVersionRow.plan_id, PlanVersionRow.version, PlanVersionRow.created_at,
                       PlanVersionRow.message, self._db.dialect.step_count(PlanVersionRow.plan_json))
                .where(PlanVersionRow.plan_id.in_(ids))  # type: ignore[attr-defined]
                .order_by(PlanVersionRow.plan_id, PlanVersionRow.version)).all()
            runs = session.exec(select(RunRow.id, RunRow.plan_id, RunRow.version, RunRow.started_at,
                                       RunRow.finished_at, RunRow.status, RunRow.parent_id, RunRow.rerun_from,
                                       RunRow.rehearsal_json.is_not(None))  # type: ignore[union-attr]
                                .where(RunRow.plan_id.in_(ids))  # type: ignore[attr-defined]
                                .order_by(RunRow.created_at.desc(), RunRow.id)).all()
            reruns = [r[0] for r in runs if r[7] is not None]
            # Only reruns' plans are read, for the label of the step each started again from.
            rerun_plans = session.exec(select(RunRow.id, RunRow.plan_json).where(
                RunRow.id.in_(reruns))).all() if reruns else []  # type: ignore[attr-defined]
            tallies = session.exec(
                select(StepRunRow.run_id, StepRunRow.status, func.count())
                .join(RunRow, RunRow.id == StepRunRow.run_id)
                .where(RunRow.plan_id.in_(ids))  # type: ignore[attr-defined]
                .group_by(StepRunRow.run_id, StepRunRow.status)).all()
        counts = _counts(tallies)
        found: dict[str, PlanHistory] = {plan_id: PlanHistory() for plan_id in ids}
        for plan_id, number, created, message, steps in versions:
            found[plan_id].versions.append(VersionSummary(plan_id=plan_id, version=number, created_at=created,
                                                          message=message, step_count=steps or 0))
        plans = {run_id: text for run_id, text in rerun_plans}
        labels = _StepLabels()
        for run_id, plan_id, number, started, finished, status, parent_id, rerun_from, rehearsal in runs:
            label = labels(plans[run_id], rerun_from) if rerun_from is not None else None
            found[plan_id].runs.append(RunSummary(id=run_id, plan_id=plan_id, version=number, started_at=started,
                                                  finished_at=finished, status=status, counts=counts.get(run_id, {}),
                                                  parent_id=parent_id, rerun_from=rerun_from, rerun_from_label=label,
                                                  rehearsal=bool(rehearsal)))
        return found


class _StepLabels:
    """Labels of steps of stored plans (``core.step_label``), each plan's JSON read once: a
    plan's reruns mostly share one text, and a Library lists every run of its plans."""

    def __init__(self) -> None:
        self._steps: dict[str, dict[str, Any]] = {}

    def __call__(self, plan_text: str, step_id: str) -> str:
        steps = self._steps.get(plan_text)
        if steps is None:
            try:
                listed = json.loads(plan_text).get("steps") or []
            except (ValueError, AttributeError, RecursionError):
                listed = []
            steps = self._steps[plan_text] = {s.get("id"): s for s in listed if isinstance(s, dict)}
        try:
            return step_label(Step.model_validate(steps[step_id]))
        except (KeyError, ValidationError):
            return step_id  # a step its plan lacks (or one unreadable): named by its id


def _counts(tallies: Any) -> dict[str, dict[str, int]]:
    """(run id, status, count) rows as each run's counts, in the order of ``StepStatus``."""
    order = {status: n for n, status in enumerate(StepStatus)}  # a str enum: looked up by the name stored
    counts: dict[str, dict[str, int]] = {}
    for run_id, status, count in sorted(tallies, key=lambda t: order.get(t[1], len(order))):
        counts.setdefault(run_id, {})[status] = count
    return counts


def _step_values(run_id: str, position: int, state: StepRun) -> dict[str, Any]:
    data = state.model_dump(mode="json", include={"arguments", "result", "decision", "retried", "approvals", "ask"})
    arguments, result = json_text(data["arguments"]), json_text(data["result"])
    for text in (arguments, result, state.error):
        if text is not None:
            text.encode("utf-8")  # the database stores UTF-8, which has no lone surrogates
    return dict(run_id=run_id, step_id=state.step_id, position=position,
                status=state.status.value, arguments_json=arguments,
                result_json=result, error=state.error,
                started_at=state.started_at, duration_ms=state.duration_ms,
                decision_json=json_text(data["decision"]),
                retried_json=json_text(data["retried"]) if data["retried"] else None,
                approvals_json=json_text(data["approvals"]) if data["approvals"] else None,
                ask_json=json_text(data["ask"]))

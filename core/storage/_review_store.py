"""Reviews kept: plans agents send for a person to decide on, and the decisions made.

(What a review is, and how a decision per step is worked out, is ``_reviews``; this module
keeps them in the ``review`` and ``review_decision`` tables.) An approval saves the approved
plan through ``Plans`` in the same transaction as the decision.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import case, func, insert
from sqlmodel import Session, select

from .._errors import NotFound, ReviewDecided
from ..plan._model import Plan
from ._engine import Database
from ._plans import Plans
from ._reviews import Review, ReviewSummary, StepDecision, step_decisions
from ._tables import PlanVersionRow, ReviewDecisionRow, ReviewRow
from ._values import found, json_text, json_value, now, plan_json

__all__ = ["Reviews"]

_REVIEW_ID_BYTES = 8  # review links are shared: 16 hex characters are not guessed


class Reviews:
    """The reviews of one store file; approvals are saved as versions in ``plans``."""

    def __init__(self, database: Database, plans: Plans) -> None:
        self._db = database
        self._plans = plans

    def submit(self, plan: Plan, *, agent: str, fmt: str, original_text: str,
               tools: list[dict[str, Any]] | None = None, submitted_by: str | None = None,
               callback_url: str | None = None, callback_secret: str | None = None) -> Review:
        """Keep ``plan``, sent by ``agent`` in format ``fmt`` as ``original_text``, for review;
        ``submitted_by`` is the actor id that sent it (an approver may not approve their own);
        ``callback_url`` where the agent is told of the decision, signed with ``callback_secret``."""
        text = plan_json(plan)
        tools_json = json_text(tools)
        with self._db.session("store the review", write=True) as session:
            review_id = _new_review_id(session)
            at = now()
            session.add(ReviewRow(id=review_id, agent=agent, submitted_at=at, goal=plan.goal, status="pending",
                                  format=fmt, original_text=original_text, plan_json=text,
                                  tools_json=tools_json, submitted_by=submitted_by, callback_url=callback_url,
                                  callback_secret=callback_secret))
        return Review(id=review_id, agent=agent, submitted_at=at, goal=plan.goal, status="pending", format=fmt,
                      original_text=original_text, plan=plan, tools=tools, submitted_by=submitted_by,
                      callback_url=callback_url, callback_secret=callback_secret)

    def get(self, review_id: str) -> Review:
        """The review with its decision, if made; ``NotFound`` when there is none with that id."""
        with self._db.session("load the review") as session:
            row = found(session.get(ReviewRow, review_id), f"no review with id {review_id!r}")
            decisions = session.exec(select(ReviewDecisionRow).where(ReviewDecisionRow.review_id == review_id)
                                     .order_by(ReviewDecisionRow.position)).all()
            version = None
            if row.plan_id is not None and row.version is not None:
                version = session.exec(select(PlanVersionRow.plan_json).where(
                    PlanVersionRow.plan_id == row.plan_id, PlanVersionRow.version == row.version)).first()
        where, path = f"review {review_id!r}", self._db.path
        return Review(id=row.id, agent=row.agent, submitted_at=row.submitted_at, goal=row.goal, status=row.status,
                      format=row.format, original_text=row.original_text,
                      plan=self._db.read_plan(row.plan_json, where, path), tools=json_value(row.tools_json),
                      comment=row.comment, decided_at=row.decided_at,
                      decisions=[StepDecision(d.step_id, d.decision) for d in decisions],
                      plan_id=row.plan_id, version=row.version,
                      approved_plan=None if version is None else self._db.read_plan(version, where, path),
                      submitted_by=row.submitted_by, callback_url=row.callback_url,
                      callback_secret=row.callback_secret)

    def status(self, review_id: str) -> str:
        """Only the review's status: what a waiting agent polls, one indexed lookup."""
        with self._db.session("look up the review") as session:
            status = session.exec(select(ReviewRow.status).where(ReviewRow.id == review_id)).first()
        if status is None:
            raise NotFound(f"no review with id {review_id!r}")
        return status

    def summaries(self, status: str | None = None, *, agent: str | None = None, limit: int | None = None,
                  offset: int = 0) -> list[ReviewSummary]:
        """Reviews, pending ones first, then the most recently sent; ``status`` and ``agent`` keep
        one kind, ``limit`` and ``offset`` one page. One query, of the summary's columns only (a
        page of 1,000 reviews' list reads no plan but its step count)."""
        pending_first = case((ReviewRow.status == "pending", 0), else_=1)
        query = select(ReviewRow.id, ReviewRow.agent, ReviewRow.submitted_at, ReviewRow.goal, ReviewRow.status,
                       self._db.dialect.step_count(ReviewRow.plan_json), ReviewRow.decided_at)
        query = _kept(query, status, agent)
        query = query.order_by(pending_first, ReviewRow.submitted_at.desc(), ReviewRow.id)  # type: ignore[union-attr]
        if limit is not None:
            query = query.limit(max(limit, 0))
        if offset > 0:
            query = query.offset(offset)
        with self._db.session("list reviews") as session:
            rows = session.exec(query).all()
        return [ReviewSummary(id=i, agent=a, submitted_at=t, goal=g, status=s, step_count=n or 0, decided_at=d)
                for i, a, t, g, s, n, d in rows]

    def count(self, status: str | None = None, *, agent: str | None = None) -> int:
        query = _kept(select(func.count()).select_from(ReviewRow), status, agent)
        with self._db.session("count reviews") as session:
            return session.exec(query).one()

    def tally(self, *, agent: str | None = None) -> dict[str, int]:
        """How many reviews there are of each status (of ``agent``'s, when given), in one query."""
        query = _kept(select(ReviewRow.status, func.count()).group_by(ReviewRow.status), None, agent)
        with self._db.session("count reviews") as session:
            return {status: n for status, n in session.exec(query).all()}

    def agents(self, *, limit: int) -> list[str]:
        """The names of the agents that sent reviews, sorted, at most ``limit``."""
        query = select(ReviewRow.agent).distinct().order_by(ReviewRow.agent).limit(max(limit, 0))
        with self._db.session("list the reviews' agents") as session:
            return list(session.exec(query).all())

    def withdraw(self, review_id: str, *, comment: str = "") -> Review:
        """See ``PlanStore.withdraw_review``."""
        with self._db.session("withdraw the review", write=True) as session:
            row = found(session.get(ReviewRow, review_id), f"no review with id {review_id!r}")
            if row.status != "pending":
                raise ReviewDecided(review_id, row.status)
            row.status, row.comment, row.decided_at = "withdrawn", comment, now()
            session.add(row)
        return self.get(review_id)

    def callback_of(self, submitted_by: str) -> tuple[str, str] | None:
        """The callback URL and secret of the latest review ``submitted_by`` sent with one: where
        that agent is told of decisions on the waiting steps of its runs."""
        query = (select(ReviewRow.callback_url, ReviewRow.callback_secret)
                 .where(ReviewRow.submitted_by == submitted_by, ReviewRow.callback_url.is_not(None))  # type: ignore[union-attr]
                 .order_by(ReviewRow.submitted_at.desc()).limit(1))  # type: ignore[union-attr]
        with self._db.session("look up the agent's callback") as session:
            found_row = session.exec(query).first()
        return None if found_row is None or not found_row[0] else (found_row[0], found_row[1] or "")

    def decide(self, review_id: str, *, approve: bool, plan: Plan | None = None, comment: str = "",
               plan_id: str | None = None) -> Review:
        """See ``PlanStore.decide_review``."""
        approved = plan_json(plan) if approve and plan is not None else None  # checked before the write
        with self._db.session("record the review's decision", write=True) as session:
            row = found(session.get(ReviewRow, review_id), f"no review with id {review_id!r}")
            if row.status != "pending":
                raise ReviewDecided(review_id, row.status)
            sent = self._db.read_plan(row.plan_json, f"review {review_id!r}", self._db.path)
            if approve:
                stored = plan if approved is not None and plan is not None else sent
                text = approved if approved is not None else plan_json(sent)
                saved = self._plans.save_in(session, stored, text, plan_id=plan_id,
                                            message=f"approved in review {review_id} (sent by {row.agent})",
                                            expected_version=None)
                row.plan_id, row.version = saved.plan_id, saved.version
                decided = stored
            else:
                decided = None
            row.status = "approved" if approve else "rejected"
            row.comment = comment
            row.decided_at = now()
            session.add(row)
            session.flush()
            decisions = step_decisions(sent, decided, approved=approve)
            if decisions:
                session.execute(insert(ReviewDecisionRow), [
                    dict(review_id=review_id, step_id=d.step_id, position=n, decision=d.decision)
                    for n, d in enumerate(decisions)])
        return self.get(review_id)


def _new_review_id(session: Session) -> str:
    while True:
        candidate = secrets.token_hex(_REVIEW_ID_BYTES)
        if session.get(ReviewRow, candidate) is None:
            return candidate


def _kept(query: Any, status: str | None, agent: str | None) -> Any:
    """``query`` of the reviews of ``status`` and ``agent`` (each when given)."""
    if status is not None:
        query = query.where(ReviewRow.status == status)
    if agent is not None:
        query = query.where(ReviewRow.agent == agent)
    return query

"""The audit: an append-only record of what was done in the studio, who did it, and why.

    event = store.audit.append(actor, "review.decided", channel="api",
                               subject={"review": "3f2a…", "agent": "ci-bot"}, detail={"approve": True})
    page = store.audit.query(AuditFilter(tool="refund", since=yesterday), limit=50)
    older = store.audit.query(AuditFilter(tool="refund"), limit=50, cursor=page.next_cursor)

``AuditLog`` has two ways in, ``append`` and ``query`` (and ``count``): nothing here changes or
deletes a row, and the database refuses to as well (triggers made by revision ``0010`` abort any
UPDATE or DELETE of ``audit_event``, whoever sends it). Pages are newest first by the row's id,
and the cursor is the last id seen: each filter has an index ending in the id, so a filtered page
is read from one index however long the audit grows.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from sqlalchemy import func, insert
from sqlmodel import select

from .._errors import StorageError
from ..access._actor import Actor
from ._engine import Database
from ._tables import AuditEventRow
from ._values import now

__all__ = ["AuditEvent", "AuditFilter", "AuditLog", "AuditPage", "SUBJECT_KEYS", "MAX_PAGE"]

# What an event can be about, each a column of its own (searched by): the subject's keys.
SUBJECT_KEYS = ("run", "review", "plan", "step", "tool", "rule", "agent")
_COLUMNS = {"run": "run_id", "review": "review_id", "plan": "plan_id", "step": "step_id", "tool": "tool",
            "rule": "rule", "agent": "agent"}
MAX_PAGE = 1000  # the most events one query returns
_MAX_DETAIL_CHARS = 64_000  # a detail longer than this is cut (and says so): the audit is not a file store
_MAX_FIELD_CHARS = 500  # an id, name or action longer than this is cut


@dataclass(frozen=True)
class AuditEvent:
    """One thing done. ``subject`` holds the ids it concerns (keys from ``SUBJECT_KEYS``);
    ``detail`` why and how (the decision, the hash shown, the status a run ended with)."""

    id: int
    at: dt.datetime
    actor_id: str
    actor_kind: str
    actor_name: str
    channel: str
    action: str
    subject: dict[str, str] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "at": self.at.isoformat(), "actor": {"id": self.actor_id, "kind": self.actor_kind,
                                                                     "name": self.actor_name},
                "channel": self.channel, "action": self.action, "subject": dict(self.subject),
                "detail": self.detail}


@dataclass(frozen=True)
class AuditFilter:
    """Which events a query keeps; each given field must match (all of them). ``person``: events
    a person did; ``agent``: events about an agent's submissions or done by it; ``since`` and
    ``until`` bound the time (``since`` included, ``until`` not)."""

    agent: str | None = None
    person: str | None = None
    actor: str | None = None
    tool: str | None = None
    rule: str | None = None
    action: str | None = None
    run: str | None = None
    review: str | None = None
    since: dt.datetime | None = None
    until: dt.datetime | None = None


@dataclass(frozen=True)
class AuditPage:
    """A page of events, newest first; ``next_cursor`` asks for the page after it (None: the last)."""

    events: list[AuditEvent]
    next_cursor: int | None


def _cut(text: object) -> str:
    value = str(text)
    return value if len(value) <= _MAX_FIELD_CHARS else value[:_MAX_FIELD_CHARS] + "…"


def _detail_text(detail: Mapping[str, Any] | None) -> str:
    try:
        text = json.dumps(dict(detail or {}), ensure_ascii=False, default=str, sort_keys=True)
    except (TypeError, ValueError) as exc:  # a key that is no string, a circular value
        raise StorageError(f"cannot record the audit event: its detail is not JSON ({exc})") from exc
    if len(text) > _MAX_DETAIL_CHARS:
        text = json.dumps({"cut": f"the detail was {len(text)} characters; its first {_MAX_DETAIL_CHARS // 2} "
                                  "are kept", "start": text[:_MAX_DETAIL_CHARS // 2]}, ensure_ascii=False)
    return text


class AuditLog:
    """The audit of one store: append and query, nothing else."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def append(self, actor: Actor, action: str, *, channel: str = "", subject: Mapping[str, object] | None = None,
               detail: Mapping[str, Any] | None = None) -> AuditEvent:
        """Put one event on record, now, in a transaction of its own; the event as recorded.
        ``subject`` keys outside ``SUBJECT_KEYS`` are refused (``StorageError`` naming them)."""
        given = {key: _cut(value) for key, value in (subject or {}).items() if value not in (None, "")}
        unknown = sorted(set(given) - set(SUBJECT_KEYS))
        if unknown:
            raise StorageError(f"cannot record the audit event {action!r}: unknown subject key(s) "
                               f"{', '.join(unknown)} (known: {', '.join(SUBJECT_KEYS)})")
        if not action:
            raise StorageError("cannot record an audit event without an action")
        if actor.kind == "agent":
            given.setdefault("agent", _cut(actor.id))
        text = _detail_text(detail)
        at = now()
        values = {"at": at, "actor_id": _cut(actor.id), "actor_kind": actor.kind, "actor_name": _cut(actor.name),
                  "channel": _cut(channel), "action": _cut(action), "detail_json": text,
                  **{_COLUMNS[key]: value for key, value in given.items()}}
        with self._db.session("record the audit event", write=True) as session:
            event_id = session.execute(insert(AuditEventRow).values(**values)
                                       .returning(AuditEventRow.id)).scalar_one()  # type: ignore[arg-type]
        return AuditEvent(id=event_id, at=at, actor_id=values["actor_id"], actor_kind=actor.kind,
                          actor_name=values["actor_name"], channel=values["channel"], action=values["action"],
                          subject=given, detail=json.loads(text))

    def query(self, where: AuditFilter | None = None, *, limit: int = 100, cursor: int | None = None) -> AuditPage:
        """The events ``where`` keeps, newest first, at most ``limit`` (1 to ``MAX_PAGE``), older
        than ``cursor`` (a page's ``next_cursor``) when given."""
        if not 1 <= limit <= MAX_PAGE:
            raise StorageError(f"an audit page holds 1 to {MAX_PAGE} events, not {limit}")
        statement = self._filtered(select(AuditEventRow), where or AuditFilter())
        if cursor is not None:
            statement = statement.where(AuditEventRow.id < cursor)  # type: ignore[operator]
        statement = statement.order_by(AuditEventRow.id.desc()).limit(limit + 1)  # type: ignore[union-attr]
        with self._db.session("read the audit") as session:
            rows = session.exec(statement).all()
        events = [_event(row) for row in rows[:limit]]
        return AuditPage(events, events[-1].id if len(rows) > limit else None)

    def count(self, where: AuditFilter | None = None) -> int:
        """How many events ``where`` keeps."""
        statement = self._filtered(select(func.count()).select_from(AuditEventRow), where or AuditFilter())
        with self._db.session("count the audit") as session:
            return int(session.exec(statement).one())

    def statement(self, where: AuditFilter | None = None, *, limit: int = 100, cursor: int | None = None) -> Any:
        """The query ``query`` sends (for a test to read its plan)."""
        statement = self._filtered(select(AuditEventRow), where or AuditFilter())
        if cursor is not None:
            statement = statement.where(AuditEventRow.id < cursor)  # type: ignore[operator]
        return statement.order_by(AuditEventRow.id.desc()).limit(limit + 1)  # type: ignore[union-attr]

    @staticmethod
    def _filtered(statement: Any, where: AuditFilter) -> Any:
        row = AuditEventRow
        if where.person:
            statement = statement.where(row.actor_id == where.person, row.actor_kind == "person")
        if where.actor:
            statement = statement.where(row.actor_id == where.actor)
        for key in ("agent", "tool", "rule", "action"):
            value = getattr(where, key)
            if value:
                statement = statement.where(getattr(row, key) == value)
        if where.run:
            statement = statement.where(row.run_id == where.run)
        if where.review:
            statement = statement.where(row.review_id == where.review)
        if where.since is not None:
            statement = statement.where(row.at >= where.since)
        if where.until is not None:
            statement = statement.where(row.at < where.until)
        return statement


def _event(row: AuditEventRow) -> AuditEvent:
    subject = {key: getattr(row, column) for key, column in _COLUMNS.items() if getattr(row, column) is not None}
    return AuditEvent(id=row.id or 0, at=row.at, actor_id=row.actor_id, actor_kind=row.actor_kind,
                      actor_name=row.actor_name, channel=row.channel, action=row.action, subject=subject,
                      detail=json.loads(row.detail_json))

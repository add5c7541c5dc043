"""Drafts: a studio tab's unsaved work, written on every change so a reload finds it.

Opaque text under an id, replaced whole on each write (one upsert) and pruned by age.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import delete
from sqlmodel import select

from .._errors import StorageError
from ._engine import Database
from ._records import Draft
from ._tables import DraftRow
from ._values import now, reason

__all__ = ["Drafts"]


class Drafts:
    """The drafts of one store file."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def save(self, draft_id: str, content: str) -> Draft:
        """Keep ``content`` as the draft ``draft_id``, replacing what it held."""
        if not draft_id:
            raise StorageError("cannot save a draft without an id")
        try:
            content.encode("utf-8")  # the database stores UTF-8, which has no lone surrogates
        except UnicodeEncodeError as exc:
            raise StorageError(f"cannot save draft {draft_id!r}: {reason(exc)}") from exc
        at = now()
        with self._db.session("save the draft", write=True) as session:
            session.execute(self._db.dialect.upsert(
                DraftRow, {"id": draft_id, "updated_at": at, "content": content}, key=["id"]))
        return Draft(id=draft_id, updated_at=at, content=content)

    def load(self, draft_id: str) -> Draft | None:
        """The draft ``draft_id``, or None when there is none (never saved, deleted or pruned)."""
        with self._db.session("load the draft") as session:
            row = session.get(DraftRow, draft_id)
        return None if row is None else Draft(id=row.id, updated_at=row.updated_at, content=row.content)

    def delete(self, draft_id: str) -> None:
        """Forget the draft; deleting one that is not there does nothing."""
        with self._db.session("delete the draft", write=True) as session:
            session.exec(delete(DraftRow).where(DraftRow.id == draft_id))  # type: ignore[call-overload]

    def prune(self, older_than: dt.timedelta) -> int:
        """See ``PlanStore.prune_drafts``."""
        owner = self._db.dialect.draft_owner
        cutoff = now() - older_than
        newer = DraftRow.__table__.alias("newer")  # type: ignore[attr-defined]
        fresh = select(owner(newer.c.id)).where(newer.c.updated_at >= cutoff)
        with self._db.session("prune old drafts", write=True) as session:
            result = session.exec(delete(DraftRow).where(  # type: ignore[call-overload]
                DraftRow.updated_at < cutoff, owner(DraftRow.id).not_in(fresh)))  # type: ignore[arg-type]
            return result.rowcount or 0

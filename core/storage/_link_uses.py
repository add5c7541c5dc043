"""Signed links already used: a link's nonce is claimed when it decides something, so the same
link cannot decide twice (``studio.workbench._links``).

``claim`` is one write transaction: of two claims of one nonce at once, one wins (the primary
key refuses the second insert on PostgreSQL; SQLite's write lock orders them).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import delete

from .._errors import StorageError
from ._engine import Database
from ._link_tables import LinkUseRow
from ._values import now

__all__ = ["LinkUse", "LinkUses"]


@dataclass(frozen=True)
class LinkUse:
    """When a link was used, and by whom."""

    nonce: str
    kind: str
    subject: str
    step_id: str
    used_at: dt.datetime
    used_by: str


def _use(row: LinkUseRow) -> LinkUse:
    return LinkUse(row.nonce, row.kind, row.subject, row.step_id, row.used_at, row.used_by)


class LinkUses:
    """The used links of one store."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def claim(self, nonce: str, *, kind: str, subject: str, step_id: str = "", by: str) -> LinkUse | None:
        """Mark the link of ``nonce`` used by ``by``; None when this call claimed it, else the
        earlier use (nothing changed)."""
        try:
            with self._db.session("mark the link used", write=True) as session:
                row = session.get(LinkUseRow, nonce)
                if row is not None:
                    return _use(row)
                session.add(LinkUseRow(nonce=nonce, kind=kind, subject=subject, step_id=step_id,
                                       used_at=now(), used_by=by))
                return None
        except StorageError:
            earlier = self.get(nonce)  # another claim of it committed first
            if earlier is not None:
                return earlier
            raise

    def get(self, nonce: str) -> LinkUse | None:
        """The use of ``nonce``'s link, or None while it is unused."""
        with self._db.session("read the link's use") as session:
            row = session.get(LinkUseRow, nonce)
        return None if row is None else _use(row)

    def release(self, nonce: str) -> None:
        """Unmark a link whose decision could not be made, so it can be tried again."""
        with self._db.session("unmark the link", write=True) as session:
            session.exec(delete(LinkUseRow).where(LinkUseRow.nonce == nonce))  # type: ignore[call-overload]

"""Scoped approvals kept in the store: grants an approver gave when approving a waiting step
(``core.run._model.Grant``): for every later step of one tool in one run, or always for one
tool with exactly these arguments, each until it expires or is revoked.

The run pass asks ``letting_pass`` before a step waits (``core.run._approval.GrantBook``); the
Settings page and ``GET/DELETE /api/grants`` list and revoke them. A revoked grant stays, marked
(when, by whom): what it let pass before stays explained.
"""

from __future__ import annotations

import datetime as dt

from pydantic import ValidationError
from sqlmodel import select

from .._errors import NotFound, StorageError
from ..run._model import Grant
from ._engine import Database
from ._tables import GrantRow

__all__ = ["Grants"]

# Listing more than this many grants at once is a mistake somewhere; the newest are shown.
_LISTED = 500


def _utc(at: dt.datetime) -> dt.datetime:
    return at if at.tzinfo else at.replace(tzinfo=dt.timezone.utc)


class Grants:
    """The grants of one store file."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def add(self, grant: Grant) -> Grant:
        with self._db.session("keep the grant", write=True) as session:
            session.add(GrantRow(id=grant.id, tool=grant.tool, scope=grant.scope, run_id=grant.run_id,
                                 arguments_hash=grant.arguments_hash, created_at=grant.created_at,
                                 expires_at=grant.expires_at, revoked_at=grant.revoked_at,
                                 content=grant.model_dump_json()))
        return grant

    def listed(self, *, active_only: bool = True, at: dt.datetime | None = None) -> list[Grant]:
        """The grants, newest first; with ``active_only`` those not revoked nor expired at ``at``."""
        at = _utc(at or dt.datetime.now(dt.timezone.utc))
        with self._db.session("list the grants") as session:
            query = select(GrantRow).order_by(GrantRow.created_at.desc()).limit(_LISTED)  # type: ignore[attr-defined]
            if active_only:
                query = query.where(GrantRow.revoked_at.is_(None))  # type: ignore[union-attr]
            rows = session.exec(query).all()
            grants = [self._grant(row.content, row.id) for row in rows]
        if active_only:
            grants = [g for g in grants if g.expires_at is None or _utc(g.expires_at) > at]
        return grants

    def get(self, grant_id: str) -> Grant:
        with self._db.session("read the grant") as session:
            row = session.get(GrantRow, grant_id)
            if row is None:
                raise NotFound(f"no grant with id {grant_id!r}")
            return self._grant(row.content, row.id)

    def revoke(self, grant_id: str, *, by: str, at: dt.datetime | None = None) -> Grant:
        """Revoke the grant (it lets nothing pass from now); the revoked grant. Revoking one
        revoked already keeps the first revocation."""
        at = at or dt.datetime.now(dt.timezone.utc)
        with self._db.session("revoke the grant", write=True) as session:
            row = session.get(GrantRow, grant_id)
            if row is None:
                raise NotFound(f"no grant with id {grant_id!r}")
            grant = self._grant(row.content, row.id)
            if grant.revoked_at is None:
                grant = grant.model_copy(update={"revoked_at": at, "revoked_by": by})
                row.revoked_at, row.content = at, grant.model_dump_json()
                session.add(row)
            return grant

    def letting_pass(self, run_id: str, tool: str, arguments_hash: str) -> Grant | None:
        """The oldest live grant that approves a step of ``tool`` with those arguments in ``run_id``."""
        at = dt.datetime.now(dt.timezone.utc)
        with self._db.session("look for a grant") as session:
            rows = session.exec(select(GrantRow).where(GrantRow.tool == tool, GrantRow.revoked_at.is_(None))  # type: ignore[union-attr]
                                .order_by(GrantRow.created_at)).all()
            grants = [self._grant(row.content, row.id) for row in rows]
        return next((g for g in grants if g.lets_pass(run_id, tool, arguments_hash, at)), None)

    def _grant(self, content: str, grant_id: str) -> Grant:
        try:
            return Grant.model_validate_json(content)
        except ValidationError as exc:
            raise StorageError(f"grant {grant_id!r} in {self._db.path} is unreadable: {exc}") from exc

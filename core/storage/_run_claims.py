"""Claims on runs: which process carries a stored run on now, so two processes never both do.

    claim = store.claims.take(run_id, holder="host:1234:ab12cd34", lease=dt.timedelta(seconds=60),
                              gone=lambda holder: not alive(holder))
    if claim.token is None: ...   # refused: ``claim.holder`` has it (since ``claim.claimed_at``)
    store.claims.renew(run_id, claim.token, lease)   # while it goes on
    store.claims.release(run_id, claim.token)        # when it ends

Taking is a compare-and-set in one writing transaction (SQLite's write lock, PostgreSQL's
advisory lock: the same statements on both): the claim is taken when there is none, when its
lease ran out, or when ``gone`` says its holder's process is gone. Of two takers at once exactly
one wins; the other is told who holds it.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from typing import Callable

from sqlalchemy import delete, update

from ._engine import Database
from ._tables import RunClaimRow
from ._values import now

__all__ = ["RunClaim", "RunClaims"]


@dataclass(frozen=True)
class RunClaim:
    """A claim on ``run_id``: ``token`` is set when the caller took it, None when another holds it."""

    run_id: str
    holder: str
    claimed_at: dt.datetime
    lease_until: dt.datetime
    token: str | None = None

    @property
    def taken(self) -> bool:
        return self.token is not None


class RunClaims:
    """The claims on the runs of one store."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def take(self, run_id: str, *, holder: str, lease: dt.timedelta, gone: Callable[[str], bool]) -> RunClaim:
        """Claim ``run_id`` for ``holder`` (see the module's docstring)."""
        with self._db.session("claim the run", write=True) as session:
            at = now()
            row = session.get(RunClaimRow, run_id)
            if row is not None and row.lease_until > at and not gone(row.holder):
                return RunClaim(run_id, row.holder, row.claimed_at, row.lease_until)
            token = secrets.token_hex(8)
            if row is None:
                session.add(RunClaimRow(run_id=run_id, holder=holder, token=token, claimed_at=at,
                                        lease_until=at + lease))
            else:
                row.holder, row.token, row.claimed_at, row.lease_until = holder, token, at, at + lease
        return RunClaim(run_id, holder, at, at + lease, token)

    def renew(self, run_id: str, token: str, lease: dt.timedelta) -> bool:
        """Hold the claim ``lease`` longer from now; False when it is no longer this token's."""
        with self._db.session("renew the claim on the run", write=True) as session:
            result = session.execute(update(RunClaimRow).where(RunClaimRow.run_id == run_id, RunClaimRow.token == token)
                                     .values(lease_until=now() + lease))  # type: ignore[arg-type]
            return bool(result.rowcount)

    def release(self, run_id: str, token: str) -> None:
        """Give the claim up (a claim another took since is left as it is)."""
        with self._db.session("release the claim on the run", write=True) as session:
            session.execute(delete(RunClaimRow).where(RunClaimRow.run_id == run_id,  # type: ignore[arg-type]
                                                      RunClaimRow.token == token))

    def holder(self, run_id: str) -> RunClaim | None:
        """The claim on ``run_id`` now, whoever holds it, or None."""
        with self._db.session("read the claim on the run") as session:
            row = session.get(RunClaimRow, run_id)
        return None if row is None else RunClaim(run_id, row.holder, row.claimed_at, row.lease_until)

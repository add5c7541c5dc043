"""The database gone in the middle of a durable run: the run stops with one clear error saying
so, instead of DBOS waiting for it forever, and ``resume`` carries it on once it is back.

A durable run writes each step to the store as it happens; when a write fails because the
database cannot be reached (PostgreSQL down, its connection cut) or another program holds the
SQLite file's write lock past the busy timeout, the engine stops the run there (a recorder that
raises stops it), and DBOS's own writes fail the same way (``_runtime`` turns off DBOS's endless
retry of a lost connection). Everything written before stays; the step that was running is cut
off and handled as after a kill (run again if it may repeat, else in doubt).
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterator

from .._errors import DatabaseGone, HeldByAnotherWriter

__all__ = ["database_trouble", "stops_clearly"]

_SHOWN_CHARS = 200


def database_trouble(exc: BaseException) -> BaseException | None:
    """The driver's error behind ``exc`` when it says the database cannot be used now (gone,
    connection cut, locked), else None (a bug, a bad value: not an outage)."""
    from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (OperationalError, InterfaceError, DisconnectionError)):
            return getattr(current, "orig", None) or current
        if isinstance(current, sqlite3.OperationalError) or type(current).__name__ == "OperationalError":
            return current
        current = current.__cause__ or current.__context__
    return None


def _said(trouble: BaseException) -> str:
    text = " ".join(str(trouble).split())
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS - 1] + "…"


@contextmanager
def stops_clearly(run_id: str | None, where: str) -> Iterator[None]:
    """Turn a run's stop on a database outage into ``DatabaseGone`` naming the database and
    saying how to carry the run on (no ``run_id``: before any run, as durable runs start up);
    any other error passes unchanged."""
    try:
        yield
    except DatabaseGone:
        raise
    except Exception as exc:
        trouble = database_trouble(exc)
        if trouble is None:
            raise
        problem = ("is locked by another program" if isinstance(trouble, HeldByAnotherWriter)
                   or "locked" in str(trouble) else "cannot be reached")
        if run_id is None:
            raise DatabaseGone(f"the database {where} {problem} ({_said(trouble)})") from None
        raise DatabaseGone(f"run {run_id!r} stopped: the database {where} {problem} ({_said(trouble)}); "
                           f"the steps recorded so far are kept: carry it on with "
                           f"`plan-studio resume {run_id}` once the database is back") from None

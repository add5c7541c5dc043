"""The SQLite engine behind the plan store, and the sessions the store works in.

SQLite needs two things switched on per connection, so a ``connect`` listener does it:
write-ahead logging (readers never wait for the writer) and foreign keys (so deleting a plan
cascades to its versions and runs). Goals are casefolded in Python when saved, for search
(see ``_search``), so no SQL function is needed to read them.

Python's ``sqlite3`` module opens transactions on its own and never for ``SELECT``, which would
let two writers both read "latest version is 3" and both insert version 4. So the driver's
transaction handling is turned off and every transaction is begun here: ``BEGIN IMMEDIATE``
for writing sessions (taking SQLite's write lock before the first read), plain ``BEGIN`` for
reading ones.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session, SQLModel, create_engine

from .._private_files import private_sqlite
from . import _tables  # noqa: F401  (registers the tables on SQLModel.metadata)

__all__ = ["make_engine", "create_tables", "reading_session", "writing_session"]

# How long a connection waits for another process's write lock before giving up.
_BUSY_TIMEOUT_SECONDS = 30.0
_WRITE_OPTION = "plan_studio_write"


def make_engine(path: str | Path) -> Engine:
    """An engine for the SQLite file at ``path``; parent folders are created.

    The file is created empty and private (0600) here, so SQLite, which opens it on first use,
    never makes it readable by others; its -wal and -shm files take its mode.
    """
    file = private_sqlite(Path(path))
    engine = create_engine(
        f"sqlite:///{file}",
        # Streamlit runs each session's script in its own thread; the pool hands a
        # connection to one thread at a time.
        connect_args={"check_same_thread": False, "timeout": _BUSY_TIMEOUT_SECONDS},
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun in _begin below
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        writing = connection.get_execution_options().get(_WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")

    return engine


def create_tables(engine: Engine) -> None:
    SQLModel.metadata.create_all(engine)


def reading_session(engine: Engine) -> Session:
    return Session(engine, expire_on_commit=False)


def writing_session(engine: Engine) -> Session:
    """A session whose transaction holds SQLite's write lock from its first statement."""
    return Session(engine, expire_on_commit=False, execution_options={_WRITE_OPTION: True})

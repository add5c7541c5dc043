"""The one factory of engines and sessions the record stores share.

``Database`` opens the file or the server (through its dialect module: ``_sqlite`` for a file,
``_postgres`` for a ``postgresql+psycopg://`` URL), makes or checks
its tables (``_schema``), and hands out sessions, each one transaction, whose failures come out
as ``StorageError`` naming the file and the action. The record stores (``_plans``, ``_runs``,
``_drafts``, ``_review_store``) take one ``Database`` and never make engines of their own.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Iterator

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from .._errors import StorageError
from .._settings import is_database_url
from . import _schema, _sqlite
from ._driver_writes import DriverWrites
from ._values import ReadPlans, reason

__all__ = ["Database"]

# The execution option that makes a session's transaction a writing one (the dialect takes
# its write lock when the transaction begins, before the first read).
_WRITE_OPTION = "plan_studio_write"


class Database:
    """One store (a SQLite file or a PostgreSQL database): its engine, its dialect's
    statements, and sessions over it."""

    def __init__(self, location: str | Path) -> None:
        self.indexed = False  # whether goals are searched through a full-text index
        self.read_plan = ReadPlans()  # stored plan JSON → the plan, each text parsed once
        if is_database_url(location):
            self._open_server(str(location))
        else:
            self.path: Path | str = Path(location).expanduser()
            # The module with every statement only this database understands (see _sqlite).
            self.dialect: ModuleType = _sqlite
            try:
                self.engine: Engine = self.dialect.make_engine(self.path, write_option=_WRITE_OPTION)
            except OSError as exc:
                raise StorageError(f"cannot create the plan store at {self.path}: {exc}") from exc
        self._open()
        self.driver_writes = DriverWrites(self.engine, self.dialect, self.path)

    def _open_server(self, text: str) -> None:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        from . import _postgres  # psycopg is imported only by a store that uses it

        try:
            url = make_url(text)
        except ArgumentError as exc:
            raise StorageError(f"{text!r} is not a database URL: {exc}") from exc
        if url.drivername in ("postgres", "postgresql"):
            url = url.set(drivername="postgresql+psycopg")
        if url.drivername != "postgresql+psycopg":
            raise StorageError(f"the plan store needs postgresql+psycopg://, not {url.drivername}://")
        # Messages name the database without its password.
        self.path = url.render_as_string(hide_password=True)
        self.url = url
        self.dialect = _postgres
        self.engine = self.dialect.make_engine(url, write_option=_WRITE_OPTION)

    def _open(self) -> None:
        try:
            # Table creation checks, then creates: under the write lock, so two processes
            # opening a new file at once do not both create.
            with self.engine.connect() as connection:
                connection = connection.execution_options(**{_WRITE_OPTION: True})
                with connection.begin():
                    self.indexed = _schema.prepare(connection, self.path, self.dialect)
        except (SQLAlchemyError, *self.dialect.ERRORS) as exc:
            self.engine.dispose()
            raise StorageError(f"cannot open the plan store at {self.path}: {reason(exc)}") from exc
        except StorageError:
            self.engine.dispose()
            raise

    def close(self) -> None:
        self.driver_writes.close()
        self.engine.dispose()

    @contextmanager
    def session(self, action: str, *, write: bool = False) -> Iterator[Session]:
        """A session in one transaction, committed when the block ends without an error;
        ``write`` takes the write lock from its first statement."""
        options = {_WRITE_OPTION: True} if write else {}
        try:
            with Session(self.engine, expire_on_commit=False, execution_options=options) as session:
                with session.begin():
                    yield session
        except (SQLAlchemyError, *self.dialect.ERRORS) as exc:
            raise StorageError(f"cannot {action} in {self.path}: {reason(exc)}") from exc

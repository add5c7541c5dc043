"""The one factory of engines and sessions the record stores share.

``Database`` opens the file (through its dialect module, today ``_sqlite``), makes or checks
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
from . import _schema, _sqlite
from ._values import reason

__all__ = ["Database"]

# The execution option that makes a session's transaction a writing one (the dialect takes
# its write lock when the transaction begins, before the first read).
_WRITE_OPTION = "plan_studio_write"


class Database:
    """One store file: its engine, its dialect's statements, and sessions over it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        # The module with every statement only this database understands (see _sqlite).
        self.dialect: ModuleType = _sqlite
        self.indexed = False  # whether goals are searched through a full-text index
        try:
            self.engine: Engine = self.dialect.make_engine(self.path, write_option=_WRITE_OPTION)
        except OSError as exc:
            raise StorageError(f"cannot create the plan store at {self.path}: {exc}") from exc
        self._open()

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

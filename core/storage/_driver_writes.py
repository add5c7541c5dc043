"""Many rows written by one statement in one write transaction, straight through the driver.

A durable run writes each step twice (its start, its end), one short transaction each. Through
SQLAlchemy's ``Connection`` that cost about 68 µs of CPU a write (the connection's execution
options, its ``begin`` event, compiling and processing each parameter, its commit), most of a
short step's cost; the driver's own connection does it in about 13 µs. The statement is
compiled once for the dialect (its parameter style), datetimes are bound as the dialect's
``DateTime`` binds them (SQLite keeps text), and the dialect takes its write lock as a writing
session does (``begin_write``).

A dialect that says so (``KEEPS_DRIVER_CONNECTIONS``: SQLite's file) has its connections kept
here for the next write (taking one from the pool and giving it back cost 19 µs more, a
write); a server's come from the pool each time, which pings them, so a write after the server
restarted gets a live one.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from typing import Any, Callable

from sqlalchemy import DateTime, Engine, TextClause
from sqlalchemy.exc import SQLAlchemyError

from .._errors import StorageError
from ._values import reason

__all__ = ["DriverWrites"]


class DriverWrites:
    """``write(action, statement, rows)`` for one engine and its dialect module."""

    def __init__(self, engine: Engine, dialect: Any, where: object) -> None:
        self._engine, self._dialect, self._where = engine, dialect, where
        self._compiled: dict[TextClause, tuple[str, tuple[str, ...] | None]] = {}
        self._stamp: Callable[[Any], Any] | None = \
            DateTime().dialect_impl(engine.dialect).bind_processor(engine.dialect)
        self._keeps: bool = dialect.KEEPS_DRIVER_CONNECTIONS
        self._spare: deque[Any] = deque()  # kept connections between writes, each used by one at a time

    def close(self) -> None:
        while self._spare:
            _close(self._spare.pop())

    def write(self, action: str, statement: TextClause, rows: list[dict[str, Any]]) -> None:
        """``statement`` once for each of ``rows`` (its bound values by name), in one write
        transaction; failures as ``StorageError`` naming ``action`` and the database."""
        if not rows:
            return
        sql, names = self._compile(statement)
        values: list[Any] = [tuple(self._bound(row[name]) for name in names) if names is not None
                             else {name: self._bound(value) for name, value in row.items()} for row in rows]
        try:
            connection = self._connection()
            kept = False
            try:
                cursor = connection.cursor()
                try:
                    self._dialect.begin_write(cursor)
                    cursor.executemany(sql, values)
                    connection.commit()
                except BaseException:
                    _roll_back(connection)
                    raise
                finally:
                    cursor.close()
                if self._keeps:
                    self._spare.append(connection)
                    kept = True
            finally:
                if not kept:
                    _close(connection)
        except (SQLAlchemyError, *self._dialect.ERRORS) as exc:
            raise StorageError(f"cannot {action} in {self._where}: {reason(exc)}") from exc

    def _connection(self) -> Any:
        try:
            return self._spare.pop()
        except IndexError:
            connection = self._engine.raw_connection()  # the pool's: set up (and pinged) as it does
            if self._keeps:
                connection.detach()  # ours now: the pool may make another for its own users
            return connection

    def _compile(self, statement: TextClause) -> tuple[str, tuple[str, ...] | None]:
        known = self._compiled.get(statement)
        if known is None:
            compiled = statement.compile(dialect=self._engine.dialect)
            names = tuple(compiled.positiontup or ()) if compiled.positional else None
            known = self._compiled[statement] = (str(compiled), names)
        return known

    def _bound(self, value: Any) -> Any:
        if isinstance(value, dt.datetime) and self._stamp is not None:
            return self._stamp(value)
        return value


def _close(connection: Any) -> None:
    try:
        connection.close()  # a pool's connection goes back to it; a detached one is closed
    except Exception:  # already gone
        pass


def _roll_back(connection: Any) -> None:
    try:
        connection.rollback()
    except Exception:  # the connection is gone: the pool drops it on close; the first error is told
        pass

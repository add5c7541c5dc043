"""Every statement the store makes that only PostgreSQL understands: ``_sqlite``'s counterpart,
with the same functions, picked by ``_engine`` for a ``postgresql+psycopg://`` URL.

**Engine.** PostgreSQL runs each transaction in "read committed", where two writers could both
read "latest version is 3" and both insert version 4 (the unique constraint would then refuse
the second with an error instead of the store's own ``VersionConflict``). SQLite avoids this by
taking its one write lock at ``BEGIN IMMEDIATE``; here a writing session takes one
transaction-level advisory lock before its first statement, so writers queue exactly as they do
on SQLite and readers never wait.

**Search.** The same meaning as on SQLite: a plan matches when its goal, casefolded in Python
when saved (``plan_goal.folded``), contains the casefolded search text. The containment test is
``LIKE`` with the text's ``%``, ``_`` and ``\\`` escaped, so they mean only themselves; where
the server has the ``pg_trgm`` extension (Debian's package ships it), a trigram GIN index on
``folded`` answers it for texts of three or more characters without a scan, as FTS5's trigram
index does on SQLite. Without ``pg_trgm`` the same query scans, with the same answers.
The search tables are made by the first schema revision, as on SQLite.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Engine, String, TextClause, TextualSelect, cast, column, event, func, text
from sqlalchemy.dialects.postgresql import JSON
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.engine import URL
from sqlmodel import create_engine

# Recording a goal for search is the same upsert in both dialects' SQL.
from ._sqlite import index_goal  # noqa: F401  (part of this module's functions)

__all__ = ["GOAL_INDEX", "NULL_SAFE_DIFFERS", "ERRORS", "KEEPS_DRIVER_CONNECTIONS", "begin_write", "count_matching", "draft_owner", "index_goal",
           "make_engine", "matching_ids", "schema_names", "search_params", "step_count", "upsert",
           "uses_index"]


def _driver_errors() -> tuple[type[Exception], ...]:
    import psycopg

    return (psycopg.Error,)


# The driver's own errors, beside SQLAlchemy's, that a store action reports as StorageError.
ERRORS: tuple[type[Exception], ...] = _driver_errors()
# One number for "the store's write lock" among the server's advisory locks ("plan" in ASCII).
_WRITE_LOCK = 0x706C616E
# How long a connection attempt waits for the server.
_CONNECT_TIMEOUT_SECONDS = 10


# -- engine ----------------------------------------------------------------------------------
def make_engine(url: URL, *, write_option: str) -> Engine:
    """An engine for the database at ``url``; a connection whose execution options set
    ``write_option`` begins its transactions holding the store's write lock."""
    engine = create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": _CONNECT_TIMEOUT_SECONDS})

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        if connection.get_execution_options().get(write_option, False):
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_WRITE_LOCK})")

    return engine


def begin_write(cursor: Any) -> None:
    """Take the write lock on a driver's cursor (``_driver_writes``), as ``_begin`` does; psycopg
    begins the transaction with this first statement."""
    cursor.execute(f"SELECT pg_advisory_xact_lock({_WRITE_LOCK})")


# A server's connections can go stale (a restart): ``_driver_writes`` takes each from the pool,
# which pings it first.
KEEPS_DRIVER_CONNECTIONS = False


# -- statements ------------------------------------------------------------------------------
def upsert(table: Any, values: dict[str, Any], *, key: list[str]) -> Any:
    """Insert ``values`` into ``table``, or update the row with the same ``key`` columns."""
    return postgres_insert(table).values(**values).on_conflict_do_update(
        index_elements=key, set_={name: value for name, value in values.items() if name not in key})


def step_count(plan_json: Any) -> Any:
    """How many steps the plan stored as JSON in ``plan_json`` has, in SQL (NULL when none)."""
    return func.json_array_length(cast(plan_json, JSON)["steps"])


def draft_owner(draft_id: Any) -> Any:
    """The draft a row belongs to, in SQL: ``<id>`` for ``<id>`` and for its parts ``<id>.<part>``."""
    return func.split_part(draft_id, ".", 1)


# -- search ----------------------------------------------------------------------------------
def schema_names(connection: Any) -> set[str]:
    """Names the schema holds (tables, indexes) in the connection's current schema."""
    return {name for (name,) in connection.exec_driver_sql(
        "SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i', 'p')")}


# What ``_schema.refresh_search`` says in this dialect: "differs, NULL counting as a value", and
# the index that makes goals searched through trigrams.
NULL_SAFE_DIFFERS = "IS DISTINCT FROM"
GOAL_INDEX = "plan_goal_trigrams"


_TRIGRAM = 3
_ORDER = "ORDER BY g.updated_at DESC, g.created_at DESC, g.plan_id"


def _pattern(needle: str) -> str:
    """``needle`` anywhere in a text, as a LIKE pattern (``\\`` is PostgreSQL's LIKE escape)."""
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def search_params(needle: str, *, indexed: bool) -> dict[str, str]:
    """The parameters ``matching_ids`` takes for ``needle`` (already folded, not empty)."""
    return {"pattern": _pattern(needle)}


@functools.lru_cache(maxsize=None)
def matching_ids(*, through_index: bool, limited: bool) -> TextualSelect:
    """The ids of plans whose folded goal contains the search text, in the Library's order; the
    first ``:limit`` of them when ``limited``. One statement either way: the server's planner
    uses the trigram index where it helps."""
    page = " LIMIT :limit" if limited else ""
    query = text(f"SELECT g.plan_id FROM plan_goal AS g WHERE g.folded LIKE :pattern {_ORDER}{page}")
    return query.columns(column("plan_id", String))


def uses_index(needle: str, *, indexed: bool) -> bool:
    """Whether a search for ``needle`` can go through the trigram index."""
    return indexed and len(needle) >= _TRIGRAM


def count_matching(needle: str, *, indexed: bool) -> TextClause:
    """How many plans' folded goals contain ``needle`` (already folded, not empty)."""
    return text("SELECT count(*) FROM plan_goal WHERE folded LIKE :pattern").bindparams(pattern=_pattern(needle))

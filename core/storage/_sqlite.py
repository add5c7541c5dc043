"""Every statement the store makes that only SQLite understands, behind small functions.

The record modules (``_plans``, ``_runs``, ``_drafts``, ``_review_store``) build portable
SQLAlchemy statements and ask this module for the rest: the engine (pragmas and how
transactions begin), upserts, the length of a JSON array, cutting a draft's id at its dot, and
searching goals (FTS5). A PostgreSQL dialect would be a module beside this one with the same
functions; ``_engine`` picks the module.

**Engine.** SQLite needs two things switched on per connection, so a ``connect`` listener
does it: write-ahead logging (readers never wait for the writer) and foreign keys (so deleting
a plan cascades to its versions and runs). Python's ``sqlite3`` module opens transactions on
its own and never for ``SELECT``, which would let two writers both read "latest version is 3"
and both insert version 4. So the driver's transaction handling is turned off and every
transaction is begun here: ``BEGIN IMMEDIATE`` for writing sessions (taking SQLite's write lock
before the first read), plain ``BEGIN`` for reading ones.

**Search.** A search finds the plans whose goal, casefolded, contains the casefolded search
text (so "STRASSE" finds "Straße", and "50%" or "a_b" mean those characters). Calling Python's
``casefold`` on every goal per search grows with the library; instead ``plan_goal`` holds each
plan's goal casefolded when it is saved (one row per plan, deleted with the plan by its
foreign key), and the FTS5 table ``plan_goal_index`` indexes those texts by trigrams, which
answers "contains this text" for texts of three or more characters without a scan. Triggers
keep the index in step with ``plan_goal`` (FTS5's external-content pattern; the rowid is
``plan_goal.id``, an INTEGER PRIMARY KEY, so VACUUM cannot renumber it).

The user's text goes to FTS5 as one quoted phrase, so quotes, ``*``, ``-``, ``OR`` and the
like are only characters. The trigram tokenizer makes a token of every three characters at
every position, so a phrase matches exactly where its text occurs: no hit needs checking
again, and a count is the index's alone. Shorter texts have no trigram to look up; they, and
every search where SQLite lacks FTS5, use ``instr`` over the folded goals, which stays in C.

Each ``plan_goal`` row also holds a copy of its plan's ``updated_at`` and ``created_at``,
indexed in the Library's order: the first page of a search is then sorted from the search
tables alone. Sorting every hit by the plan table's columns (a lookup per hit) took most of a
search's time. ``index_goal`` copies them in the transaction that saves the plan; opening a
store copies them again wherever a program without this copy left them behind.

The search tables themselves are made by the first schema revision
(``migrations/versions/0001_initial.py``); ``refresh_search`` fills in, at every open, what a
program that did not keep them left behind.
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, String, TextClause, TextualSelect, case, column, event, func, text
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import create_engine

from .._private_files import private_sqlite

__all__ = ["GOAL_INDEX", "NULL_SAFE_DIFFERS", "ERRORS", "KEEPS_DRIVER_CONNECTIONS", "begin_write", "count_matching", "draft_owner", "index_goal",
           "make_engine", "matching_ids", "schema_names", "search_params", "step_count", "upsert",
           "uses_index"]

# The driver's own errors, beside SQLAlchemy's, that a store action reports as StorageError.
ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,)
# How long a connection waits for another process's write lock before giving up.
_BUSY_TIMEOUT_SECONDS = 30.0


# -- engine ----------------------------------------------------------------------------------
def make_engine(path: Path, *, write_option: str) -> Engine:
    """An engine for the SQLite file at ``path``; parent folders are created. A connection
    whose execution options set ``write_option`` begins its transactions holding the write lock.

    The file is created empty and private (0600) here, so SQLite, which opens it on first use,
    never makes it readable by others; its -wal and -shm files take its mode.
    """
    file = private_sqlite(path)
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
            # In WAL mode NORMAL syncs at checkpoints, not at every commit: a killed process
            # loses nothing committed (only a power cut can lose the last commits), and a run
            # writing each step as it happens does not wait on the disk twice per step.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        writing = connection.get_execution_options().get(write_option, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")

    return engine


def begin_write(cursor: Any) -> None:
    """Begin a writing transaction on a driver's cursor (``_driver_writes``), as ``_begin`` does."""
    cursor.execute("BEGIN IMMEDIATE")


# A file's connections cannot go stale: ``_driver_writes`` keeps them between writes.
KEEPS_DRIVER_CONNECTIONS = True


# -- statements ------------------------------------------------------------------------------
def upsert(table: Any, values: dict[str, Any], *, key: list[str]) -> Any:
    """Insert ``values`` into ``table``, or update the row with the same ``key`` columns."""
    return sqlite_insert(table).values(**values).on_conflict_do_update(
        index_elements=key, set_={name: value for name, value in values.items() if name not in key})


def step_count(plan_json: Any) -> Any:
    """How many steps the plan stored as JSON in ``plan_json`` has, in SQL (NULL when none)."""
    return func.json_array_length(plan_json, "$.steps")


def draft_owner(draft_id: Any) -> Any:
    """The draft a row belongs to, in SQL: ``<id>`` for ``<id>`` and for its parts ``<id>.<part>``."""
    dot = func.instr(draft_id, ".")
    return case((dot > 0, func.substr(draft_id, 1, dot - 1)), else_=draft_id)


# -- search ----------------------------------------------------------------------------------
# Names the schema may hold (tables, triggers, indexes): what ``_schema`` reads a file's state from.
def schema_names(connection: Any) -> set[str]:
    return {name for (name,) in connection.exec_driver_sql(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger', 'index')")}


# What ``_schema.refresh_search`` says in this dialect: "differs, NULL counting as a value", and
# the index that makes goals searched through FTS5.
NULL_SAFE_DIFFERS = "IS NOT"
GOAL_INDEX = "plan_goal_index"


def index_goal(session: Any, plan_id: str, goal: str) -> None:
    """Record the plan's goal, folded, and its sort keys for search; call it in the transaction
    that saves the plan, after its row is written."""
    session.execute(text("INSERT INTO plan_goal (plan_id, folded, updated_at, created_at) "
                         "SELECT id, :folded, updated_at, created_at FROM plan WHERE id = :plan_id "
                         "ON CONFLICT (plan_id) DO UPDATE SET folded = excluded.folded, "
                         "updated_at = excluded.updated_at, created_at = excluded.created_at"),
                    {"plan_id": plan_id, "folded": goal.casefold()})


_TRIGRAM = 3
# The Library's order (Plans.summaries); the index plan_goal_order (made by the first schema
# revision) holds it, so a search shorter than a trigram walks it and stops at the page's end.
_ORDER = "ORDER BY g.updated_at DESC, g.created_at DESC, g.plan_id"


def _phrase(needle: str) -> str:
    return '"' + needle.replace('"', '""') + '"'


def _through_index(needle: str, indexed: bool) -> bool:
    return indexed and len(needle) >= _TRIGRAM


def search_params(needle: str, *, indexed: bool) -> dict[str, str]:
    """The parameters ``matching_ids`` takes for ``needle`` (already folded, not empty)."""
    return {"phrase": _phrase(needle)} if _through_index(needle, indexed) else {"needle": needle}


@functools.lru_cache(maxsize=None)
def matching_ids(*, through_index: bool, limited: bool) -> TextualSelect:
    """The ids of plans whose folded goal contains the search text, in the Library's order; the
    first ``:limit`` of them when ``limited``. Built once per kind: the text comes as parameters
    (``search_params``), so SQLAlchemy builds and compiles the statement once, not per search."""
    page = " LIMIT :limit" if limited else ""
    if through_index:
        query = text(f"SELECT g.plan_id FROM plan_goal_index AS i JOIN plan_goal AS g ON g.id = i.rowid "
                     f"WHERE plan_goal_index MATCH :phrase {_ORDER}{page}")
    else:
        query = text(f"SELECT g.plan_id FROM plan_goal AS g WHERE instr(g.folded, :needle) > 0 {_ORDER}{page}")
    return query.columns(column("plan_id", String))


def uses_index(needle: str, *, indexed: bool) -> bool:
    """Whether a search for ``needle`` goes through the trigram index (``matching_ids(through_index=...)``)."""
    return _through_index(needle, indexed)


def count_matching(needle: str, *, indexed: bool) -> TextClause:
    """How many plans' folded goals contain ``needle`` (already folded, not empty)."""
    if _through_index(needle, indexed):
        return text("SELECT count(*) FROM plan_goal_index WHERE plan_goal_index MATCH :phrase"
                    ).bindparams(phrase=_phrase(needle))
    return text("SELECT count(*) FROM plan_goal WHERE instr(folded, :needle) > 0").bindparams(needle=needle)

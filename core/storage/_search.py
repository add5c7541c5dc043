"""Searching plans by goal: every plan's casefolded goal, kept once, and an FTS5 trigram index of it.

A search finds the plans whose goal, casefolded, contains the casefolded search text (so
"STRASSE" finds "Straße", and "50%" or "a_b" mean those characters). Calling Python's
``casefold`` on every goal per search grows with the library; instead ``plan_goal`` holds each
plan's goal casefolded when it is saved (one row per plan, deleted with the plan by its
foreign key), and the FTS5 table ``plan_goal_index`` indexes those texts by trigrams, which
answers "contains this text" for texts of three or more characters without a scan. Triggers
keep the index in step with ``plan_goal`` (FTS5's external-content pattern; the rowid is
``plan_goal.id``, an INTEGER PRIMARY KEY, so VACUUM cannot renumber it).

The user's text goes to FTS5 as one quoted phrase, so quotes, ``*``, ``-``, ``OR`` and the
like are only characters, and ``instr`` re-checks every hit. Shorter texts have no trigram to
look up; they, and every search where SQLite lacks FTS5, use ``instr`` over the folded goals,
which stays in C.

``ensure_tables`` creates what a file lacks (files from before this search) and fills it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, TextualSelect, column, text

__all__ = ["ensure_tables", "index_goal", "matching_ids"]

_TRIGRAM = 3
_GOALS = """CREATE TABLE plan_goal (
    id INTEGER PRIMARY KEY,
    plan_id VARCHAR NOT NULL UNIQUE REFERENCES plan (id) ON DELETE CASCADE,
    folded VARCHAR NOT NULL)"""
_INDEX = ("CREATE VIRTUAL TABLE plan_goal_index USING fts5(folded, content = 'plan_goal', "
          "content_rowid = 'id', tokenize = 'trigram case_sensitive 1')")
_TRIGGERS = [
    """CREATE TRIGGER plan_goal_added AFTER INSERT ON plan_goal BEGIN
        INSERT INTO plan_goal_index (rowid, folded) VALUES (new.id, new.folded); END""",
    """CREATE TRIGGER plan_goal_removed AFTER DELETE ON plan_goal BEGIN
        INSERT INTO plan_goal_index (plan_goal_index, rowid, folded) VALUES ('delete', old.id, old.folded); END""",
    """CREATE TRIGGER plan_goal_changed AFTER UPDATE ON plan_goal BEGIN
        INSERT INTO plan_goal_index (plan_goal_index, rowid, folded) VALUES ('delete', old.id, old.folded);
        INSERT INTO plan_goal_index (rowid, folded) VALUES (new.id, new.folded); END""",
]


def _tables(connection: Any) -> set[str]:
    return {name for (name,) in connection.exec_driver_sql(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}


def ensure_tables(connection: Any) -> bool:
    """Create and fill what the file lacks; True when goals are searched through FTS5."""
    present = _tables(connection)
    if "plan_goal" not in present:
        connection.exec_driver_sql(_GOALS)
    indexed = "plan_goal_index" in present
    if not indexed:
        try:
            connection.exec_driver_sql("SAVEPOINT fts5_probe")
            connection.exec_driver_sql(_INDEX)
            for trigger in _TRIGGERS:
                connection.exec_driver_sql(trigger)
            connection.exec_driver_sql("RELEASE fts5_probe")
            indexed = True
        except Exception as exc:  # sqlite3.OperationalError: no such module: fts5
            connection.exec_driver_sql("ROLLBACK TO fts5_probe")
            connection.exec_driver_sql("RELEASE fts5_probe")
            if "fts5" not in str(exc) and "trigram" not in str(exc):
                raise
    # Plans with no folded goal: all of them in an older file, or any a store of an older
    # version of this program added since.
    missing = connection.exec_driver_sql(
        "SELECT id, goal FROM plan WHERE id NOT IN (SELECT plan_id FROM plan_goal)").all()
    if missing:
        connection.exec_driver_sql("INSERT INTO plan_goal (plan_id, folded) VALUES (?, ?)",
                                   [(plan_id, goal.casefold()) for plan_id, goal in missing])
    return indexed


def index_goal(session: Any, plan_id: str, goal: str) -> None:
    """Record the plan's goal, folded, for search; call it in the transaction that saves the plan."""
    session.execute(text("INSERT INTO plan_goal (plan_id, folded) VALUES (:plan_id, :folded) "
                         "ON CONFLICT (plan_id) DO UPDATE SET folded = excluded.folded"),
                    {"plan_id": plan_id, "folded": goal.casefold()})


def matching_ids(needle: str, *, indexed: bool) -> TextualSelect:
    """The ids of plans whose folded goal contains ``needle`` (already folded, not empty)."""
    if indexed and len(needle) >= _TRIGRAM:
        phrase = '"' + needle.replace('"', '""') + '"'
        query = text("SELECT g.plan_id FROM plan_goal_index AS i JOIN plan_goal AS g ON g.id = i.rowid "
                     "WHERE plan_goal_index MATCH :phrase AND instr(g.folded, :needle) > 0"
                     ).bindparams(phrase=phrase, needle=needle)
    else:
        query = text("SELECT plan_id FROM plan_goal WHERE instr(folded, :needle) > 0").bindparams(needle=needle)
    return query.columns(column("plan_id", String))

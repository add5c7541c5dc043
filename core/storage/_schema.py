"""Making a store file's schema, or bringing one made earlier to the newest.

The schema is the Alembic revisions in ``migrations`` (run by ``_migrate``): the file's
``alembic_version`` says which it has, and only a file behind ``HEAD`` (new, from an older
release, or from before migrations) loads Alembic to catch up. This is the one place the schema
is made and upgraded. Then the dialect copies into its search tables what programs that did not
keep them left behind (``refresh_search``, in the words of the file's dialect): that is data, not schema, and is checked at every open.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from sqlalchemy import text

from .._errors import StorageError
from .migrations import HEAD

__all__ = ["prepare", "refresh_search", "revision"]


def prepare(connection: Any, path: Path, dialect: ModuleType) -> bool:
    """Bring the file to ``HEAD`` in ``connection``'s transaction; True when goals are searched
    through a full-text index."""
    names = dialect.schema_names(connection)
    if revision(connection, names) != HEAD:
        from . import _migrate  # Alembic's import is paid only by a file that needs it

        try:
            _migrate.upgrade(connection)
        except StorageError as exc:
            raise StorageError(f"{path} is {exc}") from exc
        names = dialect.schema_names(connection)
    return refresh_search(connection, names, dialect)


def revision(connection: Any, names: set[str]) -> str | None:
    """The schema revision the file is at; None for a new file or one from before migrations."""
    if "alembic_version" not in names:
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def refresh_search(connection: Any, names: set[str], dialect: ModuleType) -> bool:
    """Copy into the search tables what a program without them left behind; True when goals are
    searched through a full-text index (``names``, from ``schema_names``, holds it)."""
    # Plans with no folded goal: all of them in a file the search tables were just added to,
    # or any a store of an older version of this program added since.
    missing = connection.execute(text("SELECT id, goal FROM plan WHERE id NOT IN (SELECT plan_id FROM plan_goal)")).all()
    if missing:
        connection.execute(text("INSERT INTO plan_goal (plan_id, folded) VALUES (:plan_id, :folded)"),
                           [{"plan_id": plan_id, "folded": goal.casefold()} for plan_id, goal in missing])
    # Sort keys the rows above lack, or that a program without the copy left behind when it saved.
    differs = dialect.NULL_SAFE_DIFFERS
    connection.execute(text(
        "UPDATE plan_goal SET updated_at = p.updated_at, created_at = p.created_at FROM plan AS p "
        f"WHERE p.id = plan_goal.plan_id AND (plan_goal.updated_at {differs} p.updated_at "
        f"OR plan_goal.created_at {differs} p.created_at)"))
    return dialect.GOAL_INDEX in names

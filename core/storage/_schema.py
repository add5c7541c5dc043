"""Making a store file's schema, or bringing one made earlier to the newest.

The schema is the Alembic revisions in ``migrations`` (run by ``_migrate``): the file's
``alembic_version`` says which it has, and only a file behind ``HEAD`` (new, from an older
release, or from before migrations) loads Alembic to catch up. This is the one place the schema
is made and upgraded. Then the dialect copies into its search tables what programs that did not
keep them left behind (``refresh_search``): that is data, not schema, and is checked at every open.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from sqlalchemy import text

from .._errors import StorageError
from .migrations import HEAD

__all__ = ["prepare", "revision"]


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
    return bool(dialect.refresh_search(connection, names))


def revision(connection: Any, names: set[str]) -> str | None:
    """The schema revision the file is at; None for a new file or one from before migrations."""
    if "alembic_version" not in names:
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()

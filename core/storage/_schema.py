"""Making a store file's schema, and checking one made earlier.

The tables come from ``_tables`` (``create_all`` makes what is missing); a file whose tables
lack a column is refused rather than half used; the search tables, which only the dialect can
make, come from its ``ensure_search_tables`` (which also adds columns older files lack). This is
the one place the schema is made and upgraded.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from sqlalchemy import inspect
from sqlmodel import SQLModel

from .._errors import StorageError
from . import _tables  # noqa: F401  (registers the tables on SQLModel.metadata)

__all__ = ["prepare"]


def prepare(connection: Any, path: Path, dialect: ModuleType) -> bool:
    """Make what the file lacks and check the rest, in ``connection``'s transaction; True when
    goals are searched through a full-text index."""
    SQLModel.metadata.create_all(connection)
    _check_columns(connection, path)
    return bool(dialect.ensure_search_tables(connection))


def _check_columns(connection: Any, path: Path) -> None:
    inspector = inspect(connection)
    for table in SQLModel.metadata.sorted_tables:
        present = {c["name"] for c in inspector.get_columns(table.name)}
        missing = [c.name for c in table.columns if c.name not in present]
        if missing:
            raise StorageError(
                f"{path} is not a Plan Studio store: table {table.name!r} lacks "
                f"column(s) {', '.join(missing)}")

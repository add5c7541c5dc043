"""What several revisions do: add nullable columns a file may already have."""

from __future__ import annotations

from typing import Callable

import sqlalchemy as sa
from alembic import op

__all__ = ["add_missing_columns", "column_added"]


def add_missing_columns(table: str, *columns: sa.Column) -> None:
    """Add each of ``columns`` to ``table`` unless it is there already (a file a newer studio
    touched, or an upgrade cut off after its first column)."""
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}
    for column in columns:
        if column.name not in present:
            op.add_column(table, column)


def column_added(table: str, column: sa.Column) -> tuple[Callable[[], None], Callable[[], None]]:
    """The ``upgrade`` and ``downgrade`` of a revision that adds one nullable ``column`` to
    ``table``: a file at the revision before keeps every row as it was."""
    def upgrade() -> None:
        add_missing_columns(table, column)

    def downgrade() -> None:
        op.drop_column(table, column.name)

    return upgrade, downgrade

"""A step tried again under its retry policy keeps each call before the last (its number, when
it started, how long it took, its error) with the run, so the record shows every attempt.

A plain added column, nullable: a file at 0005 keeps every run as it was (no retries).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.storage.migrations._columns import add_missing_columns

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    add_missing_columns("step_run", sa.Column("retried_json", sa.String, nullable=True))


def downgrade() -> None:
    op.drop_column("step_run", "retried_json")

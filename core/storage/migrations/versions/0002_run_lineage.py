"""Runs remember where they came from: a retry or a rerun from a step is a new run linked to
the run it came from (``parent_id``) and the step it starts again from (``rerun_from``).

Plain added columns, nullable, so a file at 0001 keeps every run as it was (no parent).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("run")}
    if "parent_id" not in present:
        op.add_column("run", sa.Column("parent_id", sa.String, nullable=True))
    if "rerun_from" not in present:
        op.add_column("run", sa.Column("rerun_from", sa.String, nullable=True))


def downgrade() -> None:
    op.drop_column("run", "rerun_from")
    op.drop_column("run", "parent_id")

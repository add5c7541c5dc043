"""Runs remember where they came from: a retry or a rerun from a step is a new run linked to
the run it came from (``parent_id``) and the step it starts again from (``rerun_from``).

Plain added columns, nullable, so a file at 0001 keeps every run as it was (no parent).

And ``run_worker``: each ``plan-studio worker``'s last sign of life, and which worker took over
its runs once it stopped giving any (DBOS hands a dead process's runs only to a process with
the same executor id: ``core.durable._worker`` does the taking over).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.storage.migrations._columns import add_missing_columns

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    add_missing_columns("run", sa.Column("parent_id", sa.String, nullable=True),
                        sa.Column("rerun_from", sa.String, nullable=True))
    if "run_worker" not in sa.inspect(op.get_bind()).get_table_names():
        op.create_table("run_worker",
                        sa.Column("id", sa.String, primary_key=True),
                        sa.Column("seen_at", sa.DateTime, nullable=False),
                        sa.Column("taken_over_by", sa.String, nullable=True))


def downgrade() -> None:
    op.drop_table("run_worker")
    op.drop_column("run", "rerun_from")
    op.drop_column("run", "parent_id")

"""Decisions on waiting steps name who and exactly what: each step keeps every approver's
record (``step_run.approvals_json``, several when a step asks for N approvers), a run keeps who
submitted its plan (``run.submitted_by``: they may not approve its steps), and scoped approvals
are kept as grants (``approval_grant``: for one run, or always for one tool with exact
arguments, until they expire or are revoked).

Plain added columns, nullable, and a new table: a file at 0006 keeps every run as it was.
``down_revision`` is the head when this was written; revisions added beside it in parallel are
chained at merge.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.storage.migrations._columns import add_missing_columns

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    add_missing_columns("step_run", sa.Column("approvals_json", sa.String, nullable=True))
    add_missing_columns("run", sa.Column("submitted_by", sa.String, nullable=True))
    if "approval_grant" not in sa.inspect(op.get_bind()).get_table_names():
        op.create_table("approval_grant",
                        sa.Column("id", sa.String, primary_key=True),
                        sa.Column("tool", sa.String, nullable=False, index=True),
                        sa.Column("scope", sa.String, nullable=False),
                        sa.Column("run_id", sa.String, nullable=True),
                        sa.Column("arguments_hash", sa.String, nullable=True),
                        sa.Column("created_at", sa.DateTime, nullable=False),
                        sa.Column("expires_at", sa.DateTime, nullable=True),
                        sa.Column("revoked_at", sa.DateTime, nullable=True),
                        sa.Column("content", sa.String, nullable=False))


def downgrade() -> None:
    op.drop_table("approval_grant")
    op.drop_column("run", "submitted_by")
    op.drop_column("step_run", "approvals_json")

"""People who sign in and agents' API tokens (kept hashed), and who submitted a review.

``down_revision`` is the head when this was written; revisions added beside it in parallel
are chained at merge.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.storage.migrations._columns import add_missing_columns

revision = "0007"
down_revision = "0006"

_TABLES = {
    "person": lambda: (
        sa.Column("id", sa.String, primary_key=True),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("email", sa.String, nullable=False),
        sa.Column("role", sa.String, nullable=False),
        sa.Column("groups_json", sa.String, nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
    ),
    "agent_token": lambda: (
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("agent_id", sa.String, nullable=False),
        sa.Column("role", sa.String, nullable=False),
        sa.Column("token_hash", sa.String, nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("last_used", sa.DateTime, nullable=True),
        sa.Column("revoked_at", sa.DateTime, nullable=True),
    ),
}


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for name, columns in _TABLES.items():
        if name not in present:
            op.create_table(name, *columns())
            if name == "agent_token":
                op.create_index("ix_agent_token_token_hash", "agent_token", ["token_hash"], unique=True)
    add_missing_columns("review", sa.Column("submitted_by", sa.String, nullable=True))


def downgrade() -> None:
    op.drop_column("review", "submitted_by")
    for name in reversed(_TABLES):
        op.drop_table(name)

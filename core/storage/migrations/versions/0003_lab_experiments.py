"""The Lab's tables: saved experiments (kept whole as JSON, with a version counter so a second
tab's stale save is refused) and the tools' fingerprints as last seen (for drift).

``down_revision`` is the head when this was written; a revision added beside it in parallel
is chained before it at merge.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


# Each table as this revision made it, in the order it makes them.
_TABLES = {
    "lab_experiment": lambda: (
        sa.Column("id", sa.String, primary_key=True),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False, index=True),
        sa.Column("content", sa.String, nullable=False),
    ),
    "lab_tool_seen": lambda: (
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("digest", sa.String, nullable=False),
        sa.Column("seen_at", sa.DateTime, nullable=False),
    ),
}


def upgrade() -> None:
    # Only what the file lacks, as 0001 does: a file stamped again from before migrations
    # (its alembic_version lost) runs every revision once more.
    present = set(sa.inspect(op.get_bind()).get_table_names())
    for name, columns in _TABLES.items():
        if name not in present:
            op.create_table(name, *columns())


def downgrade() -> None:
    for name in reversed(_TABLES):
        op.drop_table(name)

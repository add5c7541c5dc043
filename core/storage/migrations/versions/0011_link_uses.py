"""Signed links are single use: the nonce of each link used, when and by whom.

``down_revision`` is the head when this was written; revisions added beside it in parallel are
chained before it at merge.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    if "link_use" in set(sa.inspect(op.get_bind()).get_table_names()):
        return  # a file stamped again from before migrations runs every revision once more
    op.create_table(
        "link_use",
        sa.Column("nonce", sa.String, primary_key=True),
        sa.Column("kind", sa.String, nullable=False),
        sa.Column("subject", sa.String, nullable=False),
        sa.Column("step_id", sa.String, nullable=False),
        sa.Column("used_at", sa.DateTime, nullable=False),
        sa.Column("used_by", sa.String, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("link_use")

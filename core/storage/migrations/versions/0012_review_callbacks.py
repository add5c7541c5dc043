"""A review keeps where its submitting agent asked to be told of the decision (its callback URL)
and the secret that signs what is posted there; a review can also be withdrawn (a status, no column).

Two plain nullable columns: a file at 0011 keeps every review as it was (no callback).
``down_revision`` is the head when this was written; revisions added beside it in parallel are
chained before it at merge.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.storage.migrations._columns import add_missing_columns

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    add_missing_columns("review", sa.Column("callback_url", sa.String, nullable=True),
                        sa.Column("callback_secret", sa.String, nullable=True))


def downgrade() -> None:
    op.drop_column("review", "callback_secret")
    op.drop_column("review", "callback_url")

"""A step tried again under its retry policy keeps each call before the last (its number, when
it started, how long it took, its error) with the run, so the record shows every attempt.

A plain added column, nullable: a file at 0005 keeps every run as it was (no retries).
"""

from __future__ import annotations

import sqlalchemy as sa

from core.storage.migrations._columns import column_added

revision = "0006"
down_revision = "0005"

upgrade, downgrade = column_added("step_run", sa.Column("retried_json", sa.String, nullable=True))

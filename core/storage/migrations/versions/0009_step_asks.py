"""A step waiting for people keeps what the policy asks of it (how many approvers, which roles or
groups, the rule that asked and why) with the run, so a run resumed later still knows it.

A plain added column, nullable: a file at 0006 keeps every run as it was (nothing asked).
"""

from __future__ import annotations

import sqlalchemy as sa

from core.storage.migrations._columns import column_added

revision = "0009"
down_revision = "0008"

upgrade, downgrade = column_added("step_run", sa.Column("ask_json", sa.String, nullable=True))

"""A step that waited for a person keeps the person's decision (approved or rejected, for which
resolved arguments, when, where) with the run, so a run carried on later sees it.

A plain added column, nullable: a file at 0004 keeps every run as it was (no decisions).
"""

from __future__ import annotations

import sqlalchemy as sa

from core.storage.migrations._columns import column_added

revision = "0005"
down_revision = "0004"

upgrade, downgrade = column_added("step_run", sa.Column("decision_json", sa.String, nullable=True))

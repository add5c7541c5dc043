"""A run may be a rehearsal (no tool called; each step's result stood in): what marks it, kept
whole as JSON (``core.run._model.Rehearsal``: the recorded run it took results from and each
step's source).

One plain nullable column: a file at 0012 keeps every run as it was (a real run).
``down_revision`` is the head when this was written; revisions added beside it in parallel are
chained before it at merge.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.storage.migrations._columns import column_added

revision = "0013"
down_revision = "0012"

upgrade, downgrade = column_added("run", sa.Column("rehearsal_json", sa.String, nullable=True))

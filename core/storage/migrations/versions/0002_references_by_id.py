"""References name steps by id: ``${step[N].path}`` in stored plans becomes ``${steps.<id>.path}``.

Until this revision a reference named its step by position, and the editor renumbered every
reference when a step moved (``docs/decisions/0002-step-references-by-id.md``). The ``Plan``
model still reads a positional reference by the order of the plan's steps, so an old plan
means the same either way; this revision writes the stored plans (versions, runs, reviews) in
the id form once, so the store holds one form and saving an unchanged old version does not
make a new one (a save compares the JSON text). Drafts are the editor's text as the user left
it and stay as written: they are read through the same model.

The JSON is rewritten as JSON (the step order of each stored plan gives the ids), not through
today's ``Plan`` model, so this revision keeps its meaning when the model changes. A row that
is not a readable plan is left as it is, for the store to report when it is read.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

from core.plan._positions import has_positions, ids_for_positions

revision = "0002"
down_revision = "0001"

_TABLES = {"plan_version": "id", "run": "id", "review": "id"}


def _converted(text: str) -> str | None:
    """``text`` with its positional references by id; ``None`` when it has none to convert."""
    try:
        plan: Any = json.loads(text)
    except ValueError:
        return None
    steps = plan.get("steps") if isinstance(plan, dict) else None
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        return None
    ids = [s.get("id") for s in steps]
    if not all(isinstance(i, str) for i in ids):
        return None
    changed = False
    for step in steps:
        params = step.get("params")
        if isinstance(params, dict) and has_positions(params):
            step["params"] = ids_for_positions(params, ids)
            changed = True
    # Written as the store writes a plan (pydantic's compact JSON, characters as they are).
    return json.dumps(plan, ensure_ascii=False, separators=(",", ":")) if changed else None


def upgrade() -> None:
    bind = op.get_bind()
    for table, key in _TABLES.items():
        rows = bind.execute(sa.text(f"SELECT {key}, plan_json FROM {table} WHERE plan_json LIKE '%${{step%'"))
        updates = [{"key": row[0], "plan_json": text} for row in rows.fetchall()
                   if (text := _converted(row[1])) is not None]
        if updates:
            bind.execute(sa.text(f"UPDATE {table} SET plan_json = :plan_json WHERE {key} = :key"), updates)


def downgrade() -> None:
    # Positions cannot be told apart from ids written back; an older release reads neither.
    raise NotImplementedError("references by id cannot be turned back into positions in place")

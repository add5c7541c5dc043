"""The audit (``audit_event``): an append-only record of what was submitted, decided, granted,
changed and run, each with who, when, by which channel, on what, and why; and ``run_claim``:
which process carries a run on now (two ``plan-studio resume`` of one run: one wins).

The audit is append-only in the database itself, not only in the store's API: triggers abort
every UPDATE and DELETE of its rows (and on PostgreSQL a TRUNCATE), whoever sends them.
Its indexes pair each filter column with the row id, the page order, so a filtered page of a
large audit is read from an index, never by scanning the table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"

_REFUSED = "the audit is append-only: its rows are never changed or deleted"
# (index name, columns): each filter, then the row id, so a filtered page walks one index.
_INDEXES = [("audit_event_at", ["at", "id"]), ("audit_event_actor", ["actor_id", "id"]),
            ("audit_event_agent", ["agent", "id"]), ("audit_event_tool", ["tool", "id"]),
            ("audit_event_rule", ["rule", "id"]), ("audit_event_action", ["action", "id"]),
            ("audit_event_run", ["run_id", "id"]), ("audit_event_review", ["review_id", "id"])]

_SQLITE_GUARDS = [f"""CREATE TRIGGER IF NOT EXISTS audit_event_no_{what.lower()} BEFORE {what} ON audit_event
BEGIN SELECT RAISE(ABORT, '{_REFUSED}'); END""" for what in ("UPDATE", "DELETE")]
_POSTGRES_GUARDS = [
    f"""CREATE OR REPLACE FUNCTION audit_event_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '{_REFUSED}'; END $$""",
    "DROP TRIGGER IF EXISTS audit_event_no_change ON audit_event",
    "CREATE TRIGGER audit_event_no_change BEFORE UPDATE OR DELETE ON audit_event "
    "FOR EACH ROW EXECUTE FUNCTION audit_event_refuse()",
    "DROP TRIGGER IF EXISTS audit_event_no_truncate ON audit_event",
    "CREATE TRIGGER audit_event_no_truncate BEFORE TRUNCATE ON audit_event "
    "FOR EACH STATEMENT EXECUTE FUNCTION audit_event_refuse()",
]


def upgrade() -> None:
    bind = op.get_bind()
    names = set(sa.inspect(bind).get_table_names())
    if "audit_event" not in names:
        op.create_table(
            "audit_event",
            sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
            sa.Column("at", sa.DateTime, nullable=False),
            sa.Column("actor_id", sa.String, nullable=False),
            sa.Column("actor_kind", sa.String, nullable=False),
            sa.Column("actor_name", sa.String, nullable=False),
            sa.Column("channel", sa.String, nullable=False),
            sa.Column("action", sa.String, nullable=False),
            sa.Column("run_id", sa.String), sa.Column("review_id", sa.String), sa.Column("plan_id", sa.String),
            sa.Column("step_id", sa.String), sa.Column("tool", sa.String), sa.Column("rule", sa.String),
            sa.Column("agent", sa.String),
            sa.Column("detail_json", sa.String, nullable=False))
        for name, columns in _INDEXES:
            op.create_index(name, "audit_event", columns)
    for statement in (_SQLITE_GUARDS if bind.dialect.name == "sqlite" else _POSTGRES_GUARDS):
        op.execute(statement)
    if "run_claim" not in names:
        op.create_table(
            "run_claim",
            sa.Column("run_id", sa.String, primary_key=True),
            sa.Column("holder", sa.String, nullable=False),
            sa.Column("token", sa.String, nullable=False),
            sa.Column("claimed_at", sa.DateTime, nullable=False),
            sa.Column("lease_until", sa.DateTime, nullable=False))


def downgrade() -> None:
    op.drop_table("run_claim")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS audit_event_refuse() CASCADE")
    op.drop_table("audit_event")

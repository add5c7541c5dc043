"""The schema as Plan Studio made it before migrations (main at 68be543).

It makes only what a file lacks, so it also brings a file from before migrations to this
revision: a new file gets every table; a file from an older release gets what that release did
not have yet (the ``draft`` table, the goal search tables, their sort-key columns); a file whose
tables lack a column is refused (it is some other program's database).

The tables are written out here rather than taken from ``_tables``: this revision must keep
meaning today's schema when the models change. The goal search (see ``core.storage._sqlite``)
uses SQLite's FTS5, so those statements are SQLite's; a file whose SQLite lacks FTS5 keeps the
folded goals and is searched without the index. On PostgreSQL (``core.storage._postgres``) the
same folded goals get a trigram GIN index where the server has ``pg_trgm``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core._errors import StorageError

revision = "0001"
down_revision = None

_metadata = sa.MetaData()
sa.Table(
    "plan", _metadata,
    sa.Column("id", sa.String, primary_key=True),
    sa.Column("goal", sa.String, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("updated_at", sa.DateTime, nullable=False, index=True),
)
sa.Table(
    "draft", _metadata,
    sa.Column("id", sa.String, primary_key=True),
    sa.Column("updated_at", sa.DateTime, nullable=False, index=True),
    sa.Column("content", sa.String, nullable=False),
)
sa.Table(
    "plan_version", _metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("plan_id", sa.String, sa.ForeignKey("plan.id", ondelete="CASCADE"), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("message", sa.String, nullable=False),
    sa.Column("planner", sa.String, nullable=False),
    sa.Column("plan_json", sa.String, nullable=False),
    sa.UniqueConstraint("plan_id", "version", name="uq_plan_version"),
)
sa.Table(
    "run", _metadata,
    sa.Column("id", sa.String, primary_key=True),
    sa.Column("plan_id", sa.String, sa.ForeignKey("plan.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("started_at", sa.DateTime),
    sa.Column("finished_at", sa.DateTime),
    sa.Column("status", sa.String, nullable=False),
    sa.Column("answer", sa.String),
    sa.Column("plan_json", sa.String, nullable=False),
)
sa.Table(
    "review", _metadata,
    sa.Column("id", sa.String, primary_key=True),
    sa.Column("agent", sa.String, nullable=False),
    sa.Column("submitted_at", sa.DateTime, nullable=False, index=True),
    sa.Column("goal", sa.String, nullable=False),
    sa.Column("status", sa.String, nullable=False, index=True),
    sa.Column("format", sa.String, nullable=False),
    sa.Column("original_text", sa.String, nullable=False),
    sa.Column("plan_json", sa.String, nullable=False),
    sa.Column("tools_json", sa.String),
    sa.Column("comment", sa.String, nullable=False),
    sa.Column("decided_at", sa.DateTime),
    sa.Column("plan_id", sa.String, sa.ForeignKey("plan.id", ondelete="SET NULL")),
    sa.Column("version", sa.Integer),
)


def _per_step(name: str, parent: str, *columns: sa.Column) -> sa.Table:
    """A table of one row per step of a ``parent`` record (a run, a review), deleted with it."""
    return sa.Table(
        name, _metadata,
        sa.Column(f"{parent}_id", sa.String, sa.ForeignKey(f"{parent}.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("step_id", sa.String, primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
        *columns,
    )


_per_step(
    "step_run", "run",
    sa.Column("status", sa.String, nullable=False),
    sa.Column("arguments_json", sa.String),
    sa.Column("result_json", sa.String),
    sa.Column("error", sa.String),
    sa.Column("started_at", sa.DateTime),
    sa.Column("duration_ms", sa.Float),
)
_per_step("review_decision", "review", sa.Column("decision", sa.String, nullable=False))

# -- goal search (SQLite) --------------------------------------------------------------------
_GOALS = """CREATE TABLE IF NOT EXISTS plan_goal (
    id INTEGER PRIMARY KEY,
    plan_id VARCHAR NOT NULL UNIQUE REFERENCES plan (id) ON DELETE CASCADE,
    folded VARCHAR NOT NULL,
    updated_at DATETIME,
    created_at DATETIME)"""
_SORT_COLUMNS = ("updated_at", "created_at")  # what the search's first version lacked
_ORDER_INDEX = ("CREATE INDEX IF NOT EXISTS plan_goal_order ON plan_goal "
                "(updated_at DESC, created_at DESC, plan_id, folded)")
_INDEX = ("CREATE VIRTUAL TABLE IF NOT EXISTS plan_goal_index USING fts5(folded, content = 'plan_goal', "
          "content_rowid = 'id', tokenize = 'trigram case_sensitive 1')")
_TRIGGERS = [
    """CREATE TRIGGER IF NOT EXISTS plan_goal_added AFTER INSERT ON plan_goal BEGIN
        INSERT INTO plan_goal_index (rowid, folded) VALUES (new.id, new.folded); END""",
    """CREATE TRIGGER IF NOT EXISTS plan_goal_removed AFTER DELETE ON plan_goal BEGIN
        INSERT INTO plan_goal_index (plan_goal_index, rowid, folded) VALUES ('delete', old.id, old.folded); END""",
    """CREATE TRIGGER IF NOT EXISTS plan_goal_changed AFTER UPDATE OF folded ON plan_goal BEGIN
        INSERT INTO plan_goal_index (plan_goal_index, rowid, folded) VALUES ('delete', old.id, old.folded);
        INSERT INTO plan_goal_index (rowid, folded) VALUES (new.id, new.folded); END""",
]


def upgrade() -> None:
    bind = op.get_bind()
    _metadata.create_all(bind)  # only the tables and indexes the file lacks
    _check_columns(bind)
    if bind.dialect.name == "sqlite":
        _search_tables(bind)
    elif bind.dialect.name == "postgresql":
        _postgres_search_tables(bind)


def downgrade() -> None:
    raise NotImplementedError("the first schema has nothing to go back to")


def _check_columns(bind: sa.Connection) -> None:
    inspector = sa.inspect(bind)
    for table in _metadata.sorted_tables:
        present = {c["name"] for c in inspector.get_columns(table.name)}
        missing = [c.name for c in table.columns if c.name not in present]
        if missing:
            raise StorageError(f"not a Plan Studio store: table {table.name!r} lacks column(s) {', '.join(missing)}")


def _search_tables(bind: sa.Connection) -> None:
    op.execute(_GOALS)
    present = {c["name"] for c in sa.inspect(bind).get_columns("plan_goal")}
    for name in _SORT_COLUMNS:
        if name not in present:
            op.execute(f"ALTER TABLE plan_goal ADD COLUMN {name} DATETIME")
    op.execute(_ORDER_INDEX)
    try:
        with bind.begin_nested():  # a SQLite built without FTS5 (or its trigram tokenizer) keeps the rest
            op.execute(_INDEX)
            for trigger in _TRIGGERS:
                op.execute(trigger)
    except sa.exc.OperationalError as exc:  # no such module: fts5
        if "fts5" not in str(exc) and "trigram" not in str(exc):
            raise


# -- goal search (PostgreSQL) ----------------------------------------------------------------
_PG_GOALS = """CREATE TABLE IF NOT EXISTS plan_goal (
    id SERIAL PRIMARY KEY,
    plan_id VARCHAR NOT NULL UNIQUE REFERENCES plan (id) ON DELETE CASCADE,
    folded VARCHAR NOT NULL,
    updated_at TIMESTAMP WITHOUT TIME ZONE,
    created_at TIMESTAMP WITHOUT TIME ZONE)"""
_PG_ORDER_INDEX = ("CREATE INDEX IF NOT EXISTS plan_goal_order ON plan_goal "
                   "(updated_at DESC, created_at DESC, plan_id)")
_PG_TRIGRAMS = "CREATE INDEX IF NOT EXISTS plan_goal_trigrams ON plan_goal USING gin (folded gin_trgm_ops)"


def _postgres_search_tables(bind: sa.Connection) -> None:
    op.execute(_PG_GOALS)
    op.execute(_PG_ORDER_INDEX)
    try:
        with bind.begin_nested():  # a server without pg_trgm (or without the right to add it) keeps the rest
            op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            op.execute(_PG_TRIGRAMS)
    except sa.exc.DBAPIError as exc:
        if "pg_trgm" not in str(exc) and "gin_trgm_ops" not in str(exc) and "permission" not in str(exc):
            raise

"""Drafts (a studio tab's unsaved work) and what lists say about runs, against real SQLite files."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from core import Executor, Plan, Step, StepStatus, StorageError, ToolRegistry
from core.storage import Draft, PlanStore


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.register
    def count(n: int) -> int:
        """Count to n.

        Args:
            n: How far.
        """
        return n

    return registry


def _plan(steps: int = 3) -> Plan:
    return Plan(goal="Count", steps=[Step(id=f"s{n}", tool="count", params={"n": n}) for n in range(steps)])


@pytest.fixture
def store(store_location: str | Path) -> PlanStore:
    with PlanStore(store_location) as opened:
        yield opened


def _sql(store: PlanStore, statement: str, rows: list[dict[str, object]] | None = None) -> list[tuple]:
    """Run ``statement`` on the store's database directly (SQLite or PostgreSQL), as another
    program would; the rows it returns."""
    with store._database.engine.begin() as connection:
        result = connection.execute(text(statement), rows or {})
        return list(result) if result.returns_rows else []


def test_a_draft_round_trips_and_a_second_save_replaces_it(store: PlanStore, tmp_path: Path) -> None:
    assert store.load_draft("tab1") is None
    first = store.save_draft("tab1", '{"goal": "Straße ü"}')
    assert isinstance(first, Draft)
    second = store.save_draft("tab1", '{"goal": "second"}')
    assert second.updated_at > first.updated_at
    loaded = store.load_draft("tab1")
    assert loaded == Draft(id="tab1", updated_at=second.updated_at, content='{"goal": "second"}')
    assert _sql(store, "SELECT count(*) FROM draft") == [(1,)]


def test_drafts_of_two_tabs_are_kept_apart(store: PlanStore) -> None:
    store.save_draft("tab1", "one")
    store.save_draft("tab2", "two")
    assert store.load_draft("tab1").content == "one"
    assert store.load_draft("tab2").content == "two"
    store.delete_draft("tab1")
    store.delete_draft("tab1")  # already gone: nothing to do
    assert store.load_draft("tab1") is None
    assert store.load_draft("tab2").content == "two"


def test_a_draft_survives_reopening_the_file(tmp_path: Path) -> None:
    with PlanStore(tmp_path / "s.sqlite3") as store:
        store.save_draft("tab1", "kept")
    with PlanStore(tmp_path / "s.sqlite3") as store:
        assert store.load_draft("tab1").content == "kept"


def test_a_file_from_before_drafts_gets_the_table(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    plan = _plan()  # one plan: two would differ in created_at when a second ticks between them
    with PlanStore(path) as store:
        plan_id = store.save_plan(plan).plan_id
    with sqlite3.connect(path) as db:  # that release had neither drafts nor migrations
        db.execute("DROP TABLE draft")
        db.execute("DROP TABLE alembic_version")
    with PlanStore(path) as store:
        store.save_draft("tab1", "new")
        assert store.load_draft("tab1").content == "new"
        assert store.load_plan(plan_id) == plan


def test_pruning_deletes_only_drafts_not_written_for_that_long(store: PlanStore, tmp_path: Path) -> None:
    store.save_draft("old", "a")
    store.save_draft("new", "b")
    long_ago = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(days=40)
    _sql(store, "UPDATE draft SET updated_at = :at WHERE id = 'old'", [{"at": long_ago}])
    assert store.prune_drafts(dt.timedelta(days=30)) == 1
    assert store.load_draft("old") is None
    assert store.load_draft("new").content == "b"
    assert store.prune_drafts(dt.timedelta(days=30)) == 0


def test_a_drafts_parts_are_pruned_with_it_not_before_it(store: PlanStore, tmp_path: Path) -> None:
    """A part (``<id>.<part>``, such as the tab's run) is written only when it changes, so it can
    be older than its draft: it goes when the whole draft is old, never while the draft is kept."""
    for draft_id in ("kept", "kept.run", "gone", "gone.run"):
        store.save_draft(draft_id, draft_id)
    long_ago = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(days=40)
    _sql(store, "UPDATE draft SET updated_at = :at WHERE id = :id",
         [{"at": long_ago, "id": d} for d in ("kept.run", "gone", "gone.run")])
    assert store.prune_drafts(dt.timedelta(days=30)) == 2
    assert store.load_draft("kept.run").content == "kept.run"
    assert store.load_draft("gone") is None and store.load_draft("gone.run") is None


def test_a_draft_that_cannot_be_stored_is_refused_with_its_id(store: PlanStore) -> None:
    with pytest.raises(StorageError, match="draft 'tab1'"):
        store.save_draft("tab1", "bad \ud800")
    with pytest.raises(StorageError, match="without an id"):
        store.save_draft("", "x")
    assert store.load_draft("tab1") is None


def test_latest_run_id_is_the_newest_run_of_the_plan_or_version(store: PlanStore) -> None:
    executor = Executor(_registry())
    plan_id = store.save_plan(_plan()).plan_id
    store.save_plan(_plan(2), plan_id=plan_id)
    assert store.latest_run_id(plan_id) is None
    old = executor.execute(_plan())
    store.save_run(old, plan_id=plan_id, version=1)
    newer = executor.execute(_plan(2))
    store.save_run(newer, plan_id=plan_id, version=2)
    assert store.latest_run_id(plan_id) == newer.id
    assert store.latest_run_id(plan_id, 1) == old.id
    assert store.latest_run_id(plan_id, 2) == newer.id
    assert store.latest_run_id(plan_id, 3) is None


def test_a_run_stored_mid_run_is_listed_as_paused_with_the_steps_done(store: PlanStore) -> None:
    executor = Executor(_registry())
    plan = _plan(4)
    plan_id = store.save_plan(plan).plan_id
    run = executor.start(plan)
    for _ in executor.run_next(run):
        pass
    run.steps["s1"].status = StepStatus.running  # stored while a step ran (the studio stopped)
    store.save_run(run, plan_id=plan_id, version=1)
    finished = executor.execute(plan)
    store.save_run(finished, plan_id=plan_id, version=1)

    summaries = {r.id: r for r in store.list_runs(plan_id)}
    mid = summaries[run.id]
    assert mid.paused and (mid.steps_done, mid.steps_total) == (1, 4)
    assert mid.shown_status == "paused (1 of 4 steps done)"
    assert "running" not in mid.shown_status
    assert mid.counts == {"succeeded": 1, "running": 1, "pending": 2}
    assert mid.shown_counts() == {"succeeded": 1, "pending": 2, "interrupted": 1}
    done = summaries[finished.id]
    assert not done.paused and done.shown_status == "succeeded"
    history = store.histories([plan_id])[plan_id]
    assert [r.shown_status for r in history.runs] == [done.shown_status, mid.shown_status]

"""The store at library scale: batched versions and runs, goal search through the index, old
files upgraded on opening, and a Library page whose query count does not grow with the plans."""

from __future__ import annotations

from typing import Any

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Engine, event
from streamlit.testing.v1 import AppTest

from core import Executor, Plan, Step
from core.storage import PlanStore, VersionSummary
from core.storage._migrate import script_directory
from studio import Keys
from studio.ui._library_page import PAGE_SIZE

from apptest_helpers import LIBRARY, no_failures
from toy_tools import toy_registry

GOALS = ["Sites in Berlin", "sites in MÜNCHEN at 50% load", "a_b report", 'Say "hello" to Straße 5',
         "NOT this OR that", "star* and -minus and ^caret: near(x y)", "plain goal", ""]
NEEDLES = ["berlin", "münchen", "MÜNCHEN", "50%", "0%", "%", "_", "a_b", '"hello"', '"', "hello\"",
           "strasse", "STRASSE", "straße", "OR", "or that", "NOT", "star*", "*", "-minus", "^caret",
           "near(x", "x y)", ":", "s", "si", "sit", "sites in", "zz", "no such goal", "'", "''"]


def _plan(goal: str, cities: list[str]) -> Plan:
    return Plan(goal=goal, steps=[Step(id=f"s{n}", tool="sites_list", params={"city": c})
                                  for n, c in enumerate(cities)])


def _fill(store: PlanStore) -> list[str]:
    """Plans with 1 to 3 versions and 0 to 2 runs each, in several run states."""
    executor = Executor(toy_registry())
    ids = []
    for n, goal in enumerate(GOALS):
        saved = store.save_plan(_plan(goal, ["Berlin"]), message=f"first {n}")
        for extra in range(n % 3):
            saved = store.save_plan(_plan(goal, ["Berlin", "Munich"][:extra + 1] + ["X"] * (extra + 1)),
                                    plan_id=saved.plan_id, message=f"more {extra}")
        plan = store.load_plan(saved.plan_id)
        if n % 2 == 0:
            store.save_run(executor.execute(plan), plan_id=saved.plan_id, version=saved.version)
        if n % 4 == 0:
            store.save_run(executor.start(plan), plan_id=saved.plan_id, version=1)  # not started
        ids.append(saved.plan_id)
    return ids


@pytest.fixture
def store(store_location: str | Path) -> PlanStore:
    with PlanStore(store_location) as opened:
        yield opened


def _brute_force(store: PlanStore, needle: str) -> list[str]:
    """What a search must find: every plan whose casefolded goal contains the folded text."""
    folded = needle.strip().casefold()
    return [s.id for s in store.list_plans() if folded in s.goal.casefold()]


def test_histories_match_versions_and_runs_plan_by_plan(store: PlanStore) -> None:
    ids = _fill(store)
    histories = store.histories(ids + ["missing"])
    assert set(histories) == set(ids) | {"missing"}
    assert histories["missing"].versions == [] and histories["missing"].runs == []
    for plan_id in ids:
        expected = [VersionSummary(plan_id=v.plan_id, version=v.version, created_at=v.created_at,
                                   message=v.message, step_count=len(v.plan.steps))
                    for v in store.versions(plan_id)]
        assert histories[plan_id].versions == expected
        assert histories[plan_id].runs == store.list_runs(plan_id)
    assert any(len(h.runs) == 2 for h in histories.values())
    assert any(len(h.versions) == 3 for h in histories.values())
    assert store.histories([]) == {}


def test_list_plans_counts_versions_runs_and_steps(store: PlanStore) -> None:
    ids = _fill(store)
    listed = {s.id: s for s in store.list_plans()}
    assert set(listed) == set(ids)
    for plan_id in ids:
        versions = store.versions(plan_id)
        summary = listed[plan_id]
        assert summary.latest_version == versions[-1].version
        assert summary.step_count == len(versions[-1].plan.steps)
        assert summary.run_count == len(store.list_runs(plan_id))
        assert summary.goal == versions[-1].plan.goal


@pytest.mark.parametrize("needle", NEEDLES)
def test_search_is_a_casefolded_substring_match_whatever_the_characters(store: PlanStore, needle: str) -> None:
    _fill(store)
    found = [s.id for s in store.list_plans(needle)]
    assert found == _brute_force(store, needle)


def test_search_examples(store: PlanStore) -> None:
    _fill(store)
    goals = lambda needle: [s.goal for s in store.list_plans(needle)]  # noqa: E731
    assert goals("STRASSE") == ['Say "hello" to Straße 5']
    assert goals('"hello"') == ['Say "hello" to Straße 5']
    assert goals("or") == ["NOT this OR that", "a_b report"]
    assert goals("star*") == ["star* and -minus and ^caret: near(x y)"]
    assert goals("50%") == ["sites in MÜNCHEN at 50% load"]
    assert goals("no such goal") == []


def test_search_follows_new_goals_and_deletes(store: PlanStore) -> None:
    saved = store.save_plan(_plan("Sites in Berlin", ["Berlin"]))
    store.save_plan(_plan("Sites in Hamburg", ["Hamburg"]), plan_id=saved.plan_id)
    assert store.list_plans("berlin") == []
    assert [s.id for s in store.list_plans("hamburg")] == [saved.plan_id]
    store.delete_plan(saved.plan_id)
    assert store.list_plans("hamburg") == []


def test_search_without_fts5_still_finds_the_same_plans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = script_directory().get_revision("0001").module  # the revision that makes the index
    monkeypatch.setattr(first, "_INDEX", first._INDEX.replace("USING fts5(", "USING fts5_missing("))
    with PlanStore(tmp_path / "plain.sqlite3") as store:
        assert store._database.indexed is False
        _fill(store)
        for needle in NEEDLES:
            assert [s.id for s in store.list_plans(needle)] == _brute_force(store, needle), needle


def test_a_file_from_before_the_search_index_opens_and_searches(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with PlanStore(path) as store:
        ids = _fill(store)
        before = store.list_plans()
    with sqlite3.connect(path) as db:  # the file as an older Plan Studio left it
        for trigger in ("plan_goal_added", "plan_goal_removed", "plan_goal_changed"):
            db.execute(f"DROP TRIGGER {trigger}")
        db.execute("DROP TABLE plan_goal_index")
        db.execute("DROP TABLE plan_goal")
        db.execute("DROP TABLE alembic_version")  # nor migrations
    for _ in range(2):  # the upgrade is done once and is harmless again
        with PlanStore(path) as store:
            assert store.list_plans() == before
            assert [s.id for s in store.list_plans("straße")] == [ids[3]]
            for needle in NEEDLES:
                assert [s.id for s in store.list_plans(needle)] == _brute_force(store, needle), needle


def test_plans_added_by_an_older_program_are_found_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "mixed.sqlite3"
    with PlanStore(path) as store:
        saved = store.save_plan(_plan("Sites in Berlin", ["Berlin"]))
    with sqlite3.connect(path) as db:  # an older version saves a plan, knowing nothing of plan_goal
        db.execute("INSERT INTO plan (id, goal, created_at, updated_at) SELECT 'old1', 'Older BERLIN plan', "
                   "created_at, updated_at FROM plan")
        db.execute("INSERT INTO plan_version (plan_id, version, created_at, message, planner, plan_json) "
                   "SELECT 'old1', 1, created_at, '', planner, plan_json FROM plan_version")
    with PlanStore(path) as store:
        assert sorted(s.id for s in store.list_plans("berlin")) == sorted([saved.plan_id, "old1"])


# -- the Library page ----------------------------------------------------------------------------
def _store_path() -> Path:
    from studio import get_services

    return get_services().store.path  # the store the app's page uses


def _add_plans(first: int, last: int) -> None:
    executor = Executor(toy_registry())
    with PlanStore(_store_path()) as store:
        for n in range(first, last):
            saved = store.save_plan(_plan(f"Plan number {n}", ["Berlin"]))
            saved = store.save_plan(_plan(f"Plan number {n}", ["Berlin", "Munich"]), plan_id=saved.plan_id)
            store.save_run(executor.execute(saved.plan), plan_id=saved.plan_id, version=saved.version)


def _cards(app: AppTest) -> int:
    return len([b for b in app.button if b.key.startswith("library.open.") and b.key.count(".") == 2])


def _statements_to_draw(app: AppTest) -> int:
    statements: list[str] = []

    # Only the page's own store: other engines of this process (a worker's heartbeat, DBOS's
    # background threads left by an earlier test) write on their own schedule.
    path = str(_store_path())

    def count(conn: Any, _cursor: object, statement: str, *_args: object) -> None:
        if conn.engine.url.database == path:
            statements.append(statement)

    event.listen(Engine, "before_cursor_execute", count)
    try:
        app.run()
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    no_failures(app)
    return len(statements)


def test_library_page_queries_do_not_grow_with_the_plans(app: AppTest) -> None:
    _add_plans(0, 3)
    app.switch_page(LIBRARY)
    few = _statements_to_draw(app)
    assert _cards(app) == 3
    _add_plans(3, 30)
    many = _statements_to_draw(app)
    assert _cards(app) == 30
    assert "Plan number 29" in "".join(m.value for m in app.markdown)
    assert 0 < few == many


def test_library_shows_a_page_of_cards_then_more(app: AppTest) -> None:
    with PlanStore(_store_path()) as store:
        for n in range(PAGE_SIZE + 7):
            store.save_plan(_plan(f"Plan number {n}", ["Berlin"]))
    app.switch_page(LIBRARY).run()

    def cards() -> int:
        return _cards(app)

    assert cards() == PAGE_SIZE
    app.button(key="library.more").click().run()
    no_failures(app)
    assert cards() == PAGE_SIZE + 7
    assert not [b for b in app.button if b.key == "library.more"]
    app.text_input(key=Keys.SEARCH).input("number 1").run()  # a new search starts at the first page
    assert cards() == 11  # 1, 10-19


def test_count_and_limit_agree_with_the_full_list(store: PlanStore) -> None:
    _fill(store)
    for needle in ["", "sites", "s", "no such goal", '"']:
        listed = store.list_plans(needle)
        assert store.count_plans(needle) == len(listed)
        assert store.list_plans(needle, limit=2) == listed[:2]
        assert store.list_plans(needle, limit=0) == []


def test_a_new_version_moves_its_plan_first_in_a_search_page(store: PlanStore) -> None:
    first = store.save_plan(_plan("Sites in Berlin, first", ["Berlin"]))
    second = store.save_plan(_plan("Sites in Berlin, second", ["Berlin"]))
    for needle in ("berlin", "in"):  # through the trigram index, and too short for it
        assert [s.id for s in store.list_plans(needle, limit=1)] == [second.plan_id]
    store.save_plan(_plan("Sites in Berlin, first", ["Berlin", "Munich"]), plan_id=first.plan_id)
    for needle in ("berlin", "in"):
        assert [s.id for s in store.list_plans(needle, limit=1)] == [first.plan_id]
        assert [s.id for s in store.list_plans(needle)] == [first.plan_id, second.plan_id]


def test_search_pages_follow_the_plans_order_in_a_file_without_sort_keys(tmp_path: Path) -> None:
    """A file from the search index's first version (no sort keys in plan_goal), then saved to by
    that version again (which moves a plan first in the plan table only): reopening puts the
    search pages in the plans' order."""
    path = tmp_path / "keys.sqlite3"
    with PlanStore(path) as store:
        ids = [store.save_plan(_plan(f"Sites in Berlin {n}", ["Berlin"])).plan_id for n in range(5)]
    with sqlite3.connect(path) as db:
        db.execute("DROP INDEX plan_goal_order")
        db.execute("ALTER TABLE plan_goal DROP COLUMN updated_at")
        db.execute("ALTER TABLE plan_goal DROP COLUMN created_at")
        db.execute("DROP TABLE alembic_version")  # that version had no migrations
    for _ in range(2):  # the upgrade is done once and is harmless again
        with PlanStore(path) as store:
            assert [s.id for s in store.list_plans("berlin", limit=3)] == ids[::-1][:3]
    with sqlite3.connect(path) as db:  # that version saves plan 0 again: only the plan row moves
        db.execute("UPDATE plan SET updated_at = '2999-01-01 00:00:00.000000' WHERE id = ?", (ids[0],))
    with PlanStore(path) as store:
        for needle in ("berlin", "in"):
            assert [s.id for s in store.list_plans(needle, limit=2)] == [ids[0], ids[4]]
            assert [s.id for s in store.list_plans(needle)] == [s.id for s in store.list_plans()]

"""Issue 27, item 5: the audit in the store. Append and query only: the store has no way to
change or delete an event, and the database itself refuses to (SQLite and PostgreSQL); filters
keep what they say; a filtered page of 100,000 events is read through an index (its plan says
so), not by scanning the table."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from sqlalchemy import text

from core import StorageError
from core.access import Actor, Role
from core.storage import AuditFilter, AuditLog, PlanStore

ALICE = Actor(id="user:alice", name="Alice", kind="person", role=Role.approver)
BOB = Actor(id="user:bob", name="Bob", kind="person", role=Role.approver)
BOT = Actor(id="agent:ci-bot", name="ci-bot", kind="agent", role=Role.reviewer)


@pytest.fixture
def store(store_location: str | Path):
    with PlanStore(store_location) as opened:
        yield opened


def _some(store: PlanStore) -> None:
    store.audit.append(BOT, "review.submitted", channel="api", subject={"review": "r1"}, detail={"steps": 3})
    store.audit.append(ALICE, "review.decided", channel="page", subject={"review": "r1", "agent": "agent:ci-bot"},
                       detail={"approve": True})
    store.audit.append(BOB, "step.decided", channel="api", subject={"run": "u1", "step": "s2", "tool": "refund",
                                                                     "rule": "refunds-over-100"},
                       detail={"approve": False, "arguments_hash": "abc"})
    store.audit.append(Actor.system(), "run.ended", subject={"run": "u1"}, detail={"status": "failed"})


def test_the_store_can_only_append_and_query_the_audit(store: PlanStore) -> None:
    public = {name for name in dir(AuditLog) if not name.startswith("_")}
    assert public == {"append", "query", "count", "statement"}  # no update, no delete
    _some(store)
    page = store.audit.query()
    assert [e.action for e in page.events] == ["run.ended", "step.decided", "review.decided", "review.submitted"]
    decided = page.events[1]
    assert (decided.actor_id, decided.actor_kind, decided.channel) == ("user:bob", "person", "api")
    assert decided.subject == {"run": "u1", "step": "s2", "tool": "refund", "rule": "refunds-over-100"}
    assert decided.detail == {"approve": False, "arguments_hash": "abc"}
    assert page.events[3].subject == {"review": "r1", "agent": "agent:ci-bot"}  # an agent acting is its own subject
    assert page.events[0].at > page.events[1].at > page.events[2].at


@pytest.mark.parametrize("statement", ["UPDATE audit_event SET action = 'nothing happened'",
                                       "DELETE FROM audit_event", "DELETE FROM audit_event WHERE id = 1"])
def test_the_database_itself_refuses_to_change_or_delete_an_event(store: PlanStore, statement: str) -> None:
    _some(store)
    with pytest.raises(Exception, match="the audit is append-only"):
        with store.database.engine.begin() as connection:
            connection.execute(text(statement))
    assert store.audit.count() == 4
    assert store.audit.query().events[-1].action == "review.submitted"


def test_postgresql_refuses_a_truncate_of_the_audit_too(postgres) -> None:
    with PlanStore(postgres.new_database()) as store:
        _some(store)
        with pytest.raises(Exception, match="the audit is append-only"):
            with store.database.engine.begin() as connection:
                connection.execute(text("TRUNCATE audit_event"))
        assert store.audit.count() == 4


def test_each_filter_keeps_what_it_names(store: PlanStore) -> None:
    _some(store)

    def actions(**given: object) -> list[str]:
        return [e.action for e in store.audit.query(AuditFilter(**given)).events]

    assert actions(person="user:alice") == ["review.decided"]
    assert actions(person="agent:ci-bot") == []  # an agent is not a person
    assert actions(agent="agent:ci-bot") == ["review.decided", "review.submitted"]
    assert actions(tool="refund") == actions(rule="refunds-over-100") == ["step.decided"]
    assert actions(action="run.ended", run="u1") == ["run.ended"]
    assert actions(review="r1") == ["review.decided", "review.submitted"]
    everything = store.audit.query().events
    middle = everything[2].at  # review.decided
    assert actions(since=middle) == ["run.ended", "step.decided", "review.decided"]
    assert actions(until=middle) == ["review.submitted"]
    assert actions(since=middle, until=everything[0].at) == ["step.decided", "review.decided"]
    assert store.audit.count(AuditFilter(agent="agent:ci-bot")) == 2


def test_pages_walk_the_audit_newest_first_without_gaps_or_repeats(store: PlanStore) -> None:
    for number in range(25):
        store.audit.append(ALICE, "step.decided", subject={"run": f"u{number}"}, detail={"n": number})
    seen, cursor = [], None
    while True:
        page = store.audit.query(limit=10, cursor=cursor)
        seen.extend(e.detail["n"] for e in page.events)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == list(range(24, -1, -1))


def test_bad_events_and_queries_are_refused_by_name(store: PlanStore) -> None:
    with pytest.raises(StorageError, match="unknown subject key\\(s\\) colour"):
        store.audit.append(ALICE, "x", subject={"colour": "red"})
    with pytest.raises(StorageError, match="1 to 1000 events, not 0"):
        store.audit.query(limit=0)
    long = store.audit.append(ALICE, "x", detail={"blob": "y" * 200_000, "at": dt.date(2026, 1, 1)})
    assert "cut" in long.detail and len(json.dumps(long.detail)) < 70_000
    assert store.audit.count() == 1  # the refused ones left nothing


def _plan_text(store: PlanStore, where: AuditFilter) -> str:
    statement = store.audit.statement(where, limit=50)
    compiled = statement.compile(store.database.engine, compile_kwargs={"literal_binds": True})
    with store.database.engine.connect() as connection:
        if store.database.dialect.__name__.endswith("_sqlite"):
            rows = connection.execute(text(f"EXPLAIN QUERY PLAN {compiled}")).all()
            return "\n".join(str(row[-1]) for row in rows)
        connection.execute(text("ANALYZE audit_event"))
        return "\n".join(row[0] for row in connection.execute(text(f"EXPLAIN {compiled}")))


def test_a_filtered_page_of_100000_events_is_read_through_an_index(store: PlanStore) -> None:
    at = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    # Made by the database itself (a row per number): 100,000 rows in a second or two, not a minute.
    sqlite = store.database.dialect.__name__.endswith("_sqlite")
    numbers = ("WITH RECURSIVE numbers(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM numbers WHERE n < 99999) "
               "SELECT n FROM numbers" if sqlite else "SELECT n FROM generate_series(0, 99999) AS n")
    stamp = "datetime('2026-01-01 00:00:00', '+' || n || ' seconds')" if sqlite else \
        "TIMESTAMP '2026-01-01 00:00:00' + n * INTERVAL '1 second'"
    with store.database.engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO audit_event (at, actor_id, actor_kind, actor_name, channel, action, tool, rule, agent, run_id, "
            f"detail_json) SELECT {stamp}, 'user:p' || (n % 50), 'person', 'p', 'api', 'a.' || (n % 11), "
            "'tool_' || (n % 200), 'r' || (n % 300), 'agent:a' || (n % 70), 'u' || (n % 5000), '{}' "
            f"FROM ({numbers}) AS numbered"))
    assert store.audit.count() == 100_000
    for where in (AuditFilter(tool="tool_7"), AuditFilter(person="user:p3"), AuditFilter(agent="agent:a9"),
                  AuditFilter(rule="r17"), AuditFilter(run="u42"),
                  AuditFilter(since=at + dt.timedelta(seconds=99_000), until=at + dt.timedelta(seconds=99_500))):
        plan = _plan_text(store, where)
        assert "audit_event_" in plan, (where, plan)  # one of the audit's indexes
        assert "SCAN audit_event\n" not in plan + "\n" and "Seq Scan" not in plan, (where, plan)
        page = store.audit.query(where, limit=50)
        assert 0 < len(page.events) <= 50
    assert [e.subject["tool"] for e in store.audit.query(AuditFilter(tool="tool_7"), limit=3).events] == ["tool_7"] * 3


def test_a_store_file_from_an_older_release_gets_the_append_only_audit(tmp_path: Path) -> None:
    import shutil

    path = tmp_path / "from-main.sqlite3"
    shutil.copyfile(Path(__file__).resolve().parents[1] / "data" / "store-main-68be543.sqlite3", path)
    with PlanStore(path) as store:
        store.audit.append(ALICE, "policy.changed", detail={"rules": 2})
        with pytest.raises(Exception, match="the audit is append-only"):
            with store.database.engine.begin() as connection:
                connection.execute(text("DELETE FROM audit_event"))
        assert [e.action for e in store.audit.query().events] == ["policy.changed"]

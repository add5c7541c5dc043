"""The plan store against real SQLite files: plans, versions, runs, errors, threads."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from pathlib import Path

import pytest
from typing_extensions import TypedDict

from core import (Executor, NotFound, Plan, PlanMetadata, Step, StepStatus, StorageError,
                  ToolRegistry)
from core.storage import PlanStore, PlanSummary, PlanVersion, RunSummary


# -- fixtures ----------------------------------------------------------------------------------
class Bin(TypedDict):
    id: str
    city: str
    fill: float


class BinPage(TypedDict):
    data: list[Bin]
    count: int


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.register
    def bins_list(city: str) -> BinPage:
        """List the waste bins in a city.

        Args:
            city: The city to look in.
        """
        rows = [Bin(id=f"{city[:3].lower()}-{n}", city=city, fill=n / 4) for n in range(3)]
        return BinPage(data=rows, count=len(rows))

    @registry.register
    def bins_empty(ids: list[str]) -> BinPage:
        """Send a truck to empty the given bins.

        Args:
            ids: Ids of the bins to empty.
        """
        raise RuntimeError(f"no truck free for {len(ids)} bins")

    @registry.register
    def report(ids: list[str], title: str) -> str:
        """Write a report about bins.

        Args:
            ids: Ids of the bins to report on.
            title: Heading of the report.
        """
        return f"{title}: {', '.join(ids)}"

    return registry


def _plan(goal: str = "Empty the full bins in Berlin and report") -> Plan:
    return Plan(
        goal=goal,
        steps=[
            Step(id="s_list", tool="bins_list", params={"city": "Berlin"}, note="find them",
                 locked=True, format_data={"sk": {"output_var": "BINS"}}),
            Step(id="s_empty", tool="bins_empty", params={"ids": "${step[0].data.*.id}"},
                 parallel=True),
            Step(id="s_report", tool="report",
                 params={"ids": "${step[0].data.*.id}", "title": "Emptied ${step[0].count} bins"},
                 depends_on=["s_empty"], result_key="REPORT"),
            Step(id="s_other", tool="report", params={"ids": ["x", "ü"], "title": "unrelated"}),
        ],
        metadata=PlanMetadata(planner="embedded", created_at=dt.datetime(2025, 10, 12, 9, 30, tzinfo=dt.timezone.utc),
                              today=dt.date(2025, 10, 12), model="none", temperature=0.1),
    )


@pytest.fixture
def store(store_location: str | Path) -> PlanStore:
    """The store on a SQLite file and on PostgreSQL (``store_location`` in conftest)."""
    with PlanStore(store_location) as opened:
        yield opened


def _count_rows(path: Path, table: str) -> int:
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


# -- plans -------------------------------------------------------------------------------------
def test_creates_file_and_parent_folders(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "studio.sqlite3"
    PlanStore(path).close()
    assert path.is_file()
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"plan", "plan_version", "run", "step_run"} <= tables


def test_plan_round_trips_exactly(store: PlanStore) -> None:
    plan = _plan()
    saved = store.save_plan(plan, message="first draft")
    assert isinstance(saved, PlanVersion)
    assert (saved.version, saved.message) == (1, "first draft")
    loaded = store.load_plan(saved.plan_id)
    assert loaded == plan
    assert loaded.model_dump_json() == plan.model_dump_json()
    assert loaded.steps[0].locked and loaded.steps[0].note == "find them"
    assert loaded.steps[2].depends_on == ["s_empty"]
    assert loaded.metadata.model_extra == {"model": "none", "temperature": 0.1}
    assert saved.plan == plan


def test_plan_ids_are_short_random_hex(store: PlanStore) -> None:
    ids = {store.save_plan(_plan(f"goal {n}")).plan_id for n in range(5)}
    assert len(ids) == 5
    for plan_id in ids:
        assert 6 <= len(plan_id) <= 16
        int(plan_id, 16)


def test_every_changed_save_is_a_new_version_and_old_ones_stay(store: PlanStore) -> None:
    first = _plan()
    plan_id = store.save_plan(first, message="v1").plan_id
    second = first.model_copy(deep=True)
    second.steps[1].params["ids"] = ["b-1"]
    third = second.model_copy(update={"goal": "Only bin b-1"}, deep=True)
    assert store.save_plan(second, plan_id=plan_id, message="v2").version == 2
    assert store.save_plan(third, plan_id=plan_id).version == 3

    assert store.load_plan(plan_id) == third
    assert store.load_plan(plan_id, 1) == first
    assert store.load_plan(plan_id, 2) == second
    versions = store.versions(plan_id)
    assert [v.version for v in versions] == [1, 2, 3]
    assert [v.message for v in versions] == ["v1", "v2", ""]
    assert [v.plan for v in versions] == [first, second, third]
    assert versions[0].created_at < versions[1].created_at < versions[2].created_at
    assert all(v.created_at.tzinfo is not None and v.created_at.utcoffset() == dt.timedelta(0)
               for v in versions)
    summary = store.list_plans()[0]
    assert (summary.goal, summary.latest_version) == ("Only bin b-1", 3)


def test_saving_an_identical_plan_adds_no_version(store: PlanStore) -> None:
    plan = _plan()
    first = store.save_plan(plan, message="v1")
    again = store.save_plan(Plan.model_validate_json(plan.model_dump_json()),
                            plan_id=first.plan_id, message="ignored")
    assert again == first
    assert [v.version for v in store.versions(first.plan_id)] == [1]
    assert store.list_plans()[0].updated_at == first.created_at


def test_list_orders_by_last_update_and_searches_goal(store: PlanStore) -> None:
    berlin = store.save_plan(_plan("Empty bins in BERLIN"))
    munich = store.save_plan(_plan("Inspect München facilities, 50% full"))
    cologne = store.save_plan(_plan("Report on Cologne"))
    assert [s.id for s in store.list_plans()] == [cologne.plan_id, munich.plan_id, berlin.plan_id]

    store.save_plan(_plan("Empty bins in Berlin today"), plan_id=berlin.plan_id)
    listed = store.list_plans()
    assert [s.id for s in listed] == [berlin.plan_id, cologne.plan_id, munich.plan_id]
    top = listed[0]
    assert isinstance(top, PlanSummary)
    assert (top.goal, top.latest_version, top.step_count, top.run_count, top.planner) == (
        "Empty bins in Berlin today", 2, 4, 0, "embedded")
    assert top.created_at == berlin.created_at < top.updated_at

    assert [s.id for s in store.list_plans("berlin")] == [berlin.plan_id]
    assert [s.id for s in store.list_plans("  MÜNCHEN ")] == [munich.plan_id]
    assert [s.id for s in store.list_plans("50%")] == [munich.plan_id]
    assert [s.id for s in store.list_plans("0%")] == [munich.plan_id]
    assert store.list_plans("_") == []
    assert store.list_plans("Hamburg") == []
    assert len(store.list_plans("")) == 3


def test_list_counts_steps_of_latest_version(store: PlanStore) -> None:
    plan = _plan()
    saved = store.save_plan(plan)
    shorter = plan.model_copy(update={"steps": plan.steps[:1]}, deep=True)
    store.save_plan(shorter, plan_id=saved.plan_id)
    assert store.list_plans()[0].step_count == 1


def test_delete_removes_plan_versions_runs_and_step_results(tmp_path: Path) -> None:
    path = tmp_path / "studio.sqlite3"
    store = PlanStore(path)
    keep = store.save_plan(_plan("keep me"))
    doomed = store.save_plan(_plan("delete me"))
    store.save_plan(_plan("delete me, v2"), plan_id=doomed.plan_id)
    executor = Executor(_registry())
    store.save_run(executor.execute(_plan()), plan_id=doomed.plan_id, version=2)
    store.save_run(executor.execute(_plan()), plan_id=keep.plan_id, version=1)
    assert _count_rows(path, "step_run") == 8

    store.delete_plan(doomed.plan_id)
    store.close()

    assert [s.id for s in PlanStore(path).list_plans()] == [keep.plan_id]
    assert _count_rows(path, "plan_version") == 1
    assert _count_rows(path, "run") == 1
    assert _count_rows(path, "step_run") == 4
    with pytest.raises(NotFound):
        store.load_plan(doomed.plan_id)


def test_a_second_store_on_the_same_file_sees_the_data(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    writer = PlanStore(path)
    plan = _plan()  # one plan: two would differ in created_at when a second ticks between them
    saved = writer.save_plan(plan, message="from the writer")
    run = Executor(_registry()).execute(plan)
    writer.save_run(run, plan_id=saved.plan_id, version=1)
    reader = PlanStore(path)
    assert reader.load_plan(saved.plan_id) == plan
    assert reader.versions(saved.plan_id) == writer.versions(saved.plan_id)
    assert reader.load_run(run.id) == run
    assert reader.list_plans() == writer.list_plans()
    writer.close()
    reader.close()

    reopened = PlanStore(path)
    assert reopened.list_plans()[0].run_count == 1
    assert reopened.load_plan(saved.plan_id) == plan


# -- runs --------------------------------------------------------------------------------------
def test_run_round_trips_with_failed_and_skipped_steps(store: PlanStore) -> None:
    saved = store.save_plan(_plan())
    executor = Executor(_registry(), synthesizer=lambda run: ["Two ", "bins ", "failed."])
    run = executor.execute(store.load_plan(saved.plan_id))
    statuses = {sid: s.status for sid, s in run.steps.items()}
    assert statuses == {"s_list": StepStatus.succeeded, "s_empty": StepStatus.failed,
                        "s_report": StepStatus.skipped, "s_other": StepStatus.succeeded}

    store.save_run(run, plan_id=saved.plan_id, version=1)
    loaded = store.load_run(run.id)

    assert loaded == run
    assert loaded.model_dump_json() == run.model_dump_json()
    assert list(loaded.steps) == list(run.steps)
    assert loaded.status == "failed" and loaded.answer == "Two bins failed."
    assert "no truck free for 3 bins" in loaded.steps["s_empty"].error
    assert loaded.steps["s_empty"].arguments == {"ids": ["ber-0", "ber-1", "ber-2"]}
    assert loaded.steps["s_report"].error.startswith("skipped")
    assert loaded.steps["s_list"].rows == run.steps["s_list"].rows
    assert loaded.steps["s_other"].result == "unrelated: x, ü"
    assert loaded.steps["s_list"].duration_ms == run.steps["s_list"].duration_ms
    assert loaded.started_at.tzinfo is not None and loaded.finished_at == run.finished_at
    assert loaded.counts() == {"succeeded": 2, "failed": 1, "skipped": 1}


def test_saving_a_run_again_updates_it(store: PlanStore) -> None:
    saved = store.save_plan(_plan())
    executor = Executor(_registry())
    run = executor.start(store.load_plan(saved.plan_id))
    store.save_run(run, plan_id=saved.plan_id, version=1)
    pending = store.load_run(run.id)
    assert pending.status == "pending" and pending.started_at is None
    assert all(s.status == StepStatus.pending and s.result is None and s.arguments is None
               for s in pending.steps.values())
    assert store.list_runs(saved.plan_id)[0].counts == {"pending": 4}

    for _ in executor.run_next(run):
        pass
    store.save_run(run, plan_id=saved.plan_id, version=1)
    assert store.load_run(run.id) == run
    assert store.list_runs(saved.plan_id)[0].status == "paused"  # between steps, nothing runs

    for _ in executor.run_all(run):
        pass
    store.save_run(run, plan_id=saved.plan_id, version=1)
    assert store.load_run(run.id) == run
    summaries = store.list_runs(saved.plan_id)
    assert len(summaries) == 1
    assert summaries[0].counts == {"succeeded": 2, "failed": 1, "skipped": 1}


def test_list_runs_newest_first_with_status_and_counts(store: PlanStore) -> None:
    plan = _plan()
    saved = store.save_plan(plan)
    ok_plan = plan.model_copy(update={"steps": [plan.steps[0], plan.steps[3]]}, deep=True)
    second = store.save_plan(ok_plan, plan_id=saved.plan_id)
    executor = Executor(_registry())
    failing = executor.execute(plan)
    passing = executor.execute(ok_plan)
    store.save_run(failing, plan_id=saved.plan_id, version=1)
    store.save_run(passing, plan_id=saved.plan_id, version=second.version)

    runs = store.list_runs(saved.plan_id)
    assert all(isinstance(r, RunSummary) for r in runs)
    assert [r.id for r in runs] == [passing.id, failing.id]
    assert [(r.version, r.status) for r in runs] == [(2, "succeeded"), (1, "failed")]
    assert runs[0].counts == {"succeeded": 2}
    assert runs[1].counts == {"succeeded": 2, "failed": 1, "skipped": 1}
    assert runs[1].started_at == failing.started_at and runs[1].finished_at == failing.finished_at
    assert store.list_plans()[0].run_count == 2
    assert store.load_run(failing.id).plan == plan


# -- errors ------------------------------------------------------------------------------------
def test_unknown_ids_raise_not_found(store: PlanStore) -> None:
    saved = store.save_plan(_plan())
    run = Executor(_registry()).execute(_plan())
    calls = [
        lambda: store.load_plan("nope"),
        lambda: store.versions("nope"),
        lambda: store.delete_plan("nope"),
        lambda: store.list_runs("nope"),
        lambda: store.load_run("nope"),
        lambda: store.save_plan(_plan(), plan_id="nope"),
        lambda: store.save_run(run, plan_id="nope", version=1),
    ]
    for call in calls:
        with pytest.raises(NotFound, match="nope"):
            call()
    with pytest.raises(NotFound, match="no version 7"):
        store.load_plan(saved.plan_id, 7)
    with pytest.raises(NotFound, match="no version 2"):
        store.save_run(run, plan_id=saved.plan_id, version=2)
    assert issubclass(NotFound, StorageError)
    assert store.list_runs(saved.plan_id) == []


def test_a_run_cannot_move_to_another_plan(store: PlanStore) -> None:
    first = store.save_plan(_plan("first"))
    other = store.save_plan(_plan("other"))
    run = Executor(_registry()).execute(_plan())
    store.save_run(run, plan_id=first.plan_id, version=1)
    with pytest.raises(StorageError, match=f"belongs to plan '{first.plan_id}'"):
        store.save_run(run, plan_id=other.plan_id, version=1)
    assert [r.id for r in store.list_runs(first.plan_id)] == [run.id]


def test_a_file_that_is_not_a_database_gives_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite3"
    path.write_text("These are my notes, not a database.\n" * 200)
    with pytest.raises(StorageError, match="not a database") as caught:
        PlanStore(path)
    assert str(path) in str(caught.value)
    assert not isinstance(caught.value, NotFound)


def test_a_foreign_database_gives_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "other-app.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE plan (name TEXT)")
    with pytest.raises(StorageError, match="'plan' lacks column"):
        PlanStore(path)


def test_a_folder_in_the_files_place_gives_storage_error(tmp_path: Path) -> None:
    path = tmp_path / "studio.sqlite3"
    path.mkdir()
    with pytest.raises(StorageError, match="cannot open the plan store"):
        PlanStore(path)


# -- threads -----------------------------------------------------------------------------------
def test_concurrent_saves_from_threads_do_not_fail(store: PlanStore) -> None:
    base = store.save_plan(_plan("shared plan"))
    executor = Executor(_registry())
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(worker: int) -> None:
        try:
            start.wait()
            for n in range(6):
                edited = _plan(f"shared plan, edit {worker}.{n}")
                version = store.save_plan(edited, plan_id=base.plan_id).version
                store.save_plan(_plan(f"own plan {worker}.{n}"))
                store.save_run(executor.execute(edited), plan_id=base.plan_id, version=version)
                store.list_plans("plan")
                store.list_runs(base.plan_id)
        except BaseException as exc:  # collected: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert [v.version for v in store.versions(base.plan_id)] == list(range(1, 8 * 6 + 2))
    assert len(store.list_plans()) == 1 + 8 * 6
    assert len(store.list_runs(base.plan_id)) == 8 * 6

"""The database gone in the middle of a durable run: the run stops with a clear error naming the
database (no endless wait), nothing recorded is lost, and ``resume`` finishes it once the
database is back, running no finished step again.

PostgreSQL: a server of the test's own, stopped as a crash stops it (``pg_ctl -m immediate``)
from inside a step, then started again. SQLite: another program holding the file's write lock
(a database browser, a backup tool) past the busy timeout.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Callable, Iterator

import pytest

from core import PlanStudioError
from core.durable import DurableRuns
from core.storage import PlanStore

import outage_child
from outage_child import STEPS
from outage_child import chain as _chain
from test_durable_kill import start_child

pytestmark = pytest.mark.usefixtures("stop_durable_runs")

_BOUND_SECONDS = 60  # a stuck run fails the test instead of hanging it


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[object]:
    """A PostgreSQL of this module's own: the tests stop it, which the session's must not see."""
    from postgres_server import PostgresServer

    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


def _bounded(call: Callable[[], object]) -> object:
    """``call()`` on a thread, failing the test when it has not returned within the bound."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(_BOUND_SECONDS)
    assert not worker.is_alive(), "the run neither ended nor stopped while the database was away"
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome.get("value")


def _check_stopped_then_resumed(store: PlanStore, runs: DurableRuns, run_id: str, calls: list[str],
                                error: PlanStudioError, bring_back: Callable[[], None]) -> None:
    said = str(error)
    assert run_id in said and "database" in said and f"plan-studio resume {run_id}" in said
    assert "Traceback" not in said
    assert calls == [f"c{n}" for n in range(4)]  # stopped: nothing ran after the outage
    bring_back()
    stopped = store.load_run(run_id)
    assert {s: stopped.steps[s].result for s in ("c0", "c1", "c2")} == {"c0": 1, "c1": 2, "c2": 3}  # nothing lost
    assert stopped.status != "succeeded"
    resumed = _bounded(lambda: runs.resume(run_id))
    assert resumed.status == "succeeded"
    assert {k: s.result for k, s in store.load_run(run_id).steps.items()} == {f"c{n}": n + 1 for n in range(STEPS)}
    # No finished step ran again; the one cut off by the outage (idempotent) did.
    assert calls == [f"c{n}" for n in range(4)] + [f"c{n}" for n in range(3, STEPS)]


def test_postgresql_gone_mid_run_stops_the_run_clearly_and_resume_finishes_it_once_back(own_postgres) -> None:
    calls: list[str] = []
    tools, plan = _chain(calls, own_postgres.halt)
    with PlanStore(own_postgres.new_database()) as store:
        runs = DurableRuns(store, tools)
        run_id = runs.start(plan)
        with pytest.raises(PlanStudioError) as stopped:
            _bounded(lambda: runs.execute(run_id))
        assert "cannot be reached" in str(stopped.value)
        _check_stopped_then_resumed(store, runs, run_id, calls, stopped.value, own_postgres.start_again)


def test_sqlite_locked_by_another_program_mid_run_stops_the_run_clearly_and_resume_finishes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.storage import _sqlite

    monkeypatch.setattr(_sqlite, "_BUSY_TIMEOUT_SECONDS", 0.5)  # how long a write waits for a lock
    location = tmp_path / "studio.sqlite3"
    other = sqlite3.connect(location, isolation_level=None, check_same_thread=False)

    def lock() -> None:
        other.execute("BEGIN EXCLUSIVE")  # another program takes the file's write lock, and keeps it

    calls: list[str] = []
    tools, plan = _chain(calls, lock)
    with PlanStore(location) as store:
        runs = DurableRuns(store, tools)
        run_id = runs.start(plan)
        with pytest.raises(PlanStudioError) as stopped:
            _bounded(lambda: runs.execute(run_id))
        assert "locked" in str(stopped.value)
        _check_stopped_then_resumed(store, runs, run_id, calls, stopped.value, lambda: other.execute("ROLLBACK"))
    other.close()


def test_the_cli_says_in_one_line_that_the_database_went_away_and_resume_finishes_the_run(
        own_postgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import dataclasses
    import json

    import studio.cli._main
    from studio.cli._main import main

    for name in [n for n in os.environ if n.startswith(("OPENAI_", "PLAN_STUDIO_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "user-data"))
    monkeypatch.setenv("PLAN_STUDIO_DB", own_postgres.new_database())
    real_build_services = studio.cli._main.build_services
    called: list[str] = []

    def services_with_an_outage(settings):
        services = real_build_services(settings)
        tool = services.registry.get("shipments_list")
        real = tool.runner.func

        def shipments(**params):
            called.append("shipments_list")
            if len(called) == 1:
                own_postgres.halt()
            return real(**params)
        tool.runner = dataclasses.replace(tool.runner, func=shipments)
        return services

    monkeypatch.setattr(studio.cli._main, "build_services", services_with_an_outage)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": [
        {"tool": "facilities_list", "params": {"location": "Berlin"}},
        {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0]},
    ]}), encoding="utf-8")

    def cli(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        status = _bounded(lambda: main([*argv, "--data-dir", str(tmp_path / "data")]))
        out, err = capsys.readouterr()
        return status, out, err  # type: ignore[return-value]

    status, out, err = cli("run", str(plan))
    assert status != 0
    assert "Traceback" not in out + err
    said = err.strip().splitlines()
    assert len(said) == 1, err  # one line: no DBOS retries or tracebacks beside it
    line = said[0]
    assert line.startswith("plan-studio: error: run ") and "cannot be reached" in line
    assert out.splitlines()[0].startswith("step 0 (facilities_list): succeeded")
    run_id = line.split("run '", 1)[1].split("'", 1)[0]
    own_postgres.start_again()
    status, out, err = cli("resume", run_id)
    assert status == 0, err
    lines = [line for line in out.splitlines() if line.startswith("step ")]  # each step's line as it ends
    assert lines[0].startswith("step 0 (facilities_list): succeeded") and lines[0].endswith("(done before)")
    assert lines[1].startswith("step 1 (shipments_list): succeeded")
    assert called == ["shipments_list", "shipments_list"]  # the read-only step cut off ran again


def test_a_worker_whose_runs_stopped_for_an_outage_carries_them_on_once_the_database_is_back(
        own_postgres, tmp_path: Path) -> None:
    import json
    import time

    location = own_postgres.new_database()
    log = tmp_path / "calls.log"
    tools, plan = _chain([], lambda: None)  # the worker's own, with the outage, is in its process
    with PlanStore(location) as store:
        run_id = DurableRuns(store, tools).start(plan)
        halt = own_postgres.halt_command()
        worker = start_child(["worker", location, str(log), json.dumps(halt)], tmp_path / "worker.out",
                             main=outage_child.main)
        try:
            DurableRuns(store, tools).enqueue(run_id)
            deadline = time.monotonic() + _BOUND_SECONDS

            def lines() -> list[str]:
                return log.read_text().splitlines() if log.exists() else []

            while "halted" not in lines():
                assert worker.poll() is None, (tmp_path / "worker.out").read_text()
                assert time.monotonic() < deadline, "the worker never got to the outage"
                time.sleep(0.02)
            own_postgres.start_again()
            while store.load_run(run_id).status != "succeeded":  # the worker alive all along carries it on
                assert time.monotonic() < deadline, f"the run was not carried on: {store.load_run(run_id).status}"
                time.sleep(0.05)
        finally:
            worker.kill()
            worker.wait()
        assert {k: s.result for k, s in store.load_run(run_id).steps.items()} == {f"c{n}": n + 1 for n in range(STEPS)}
        calls_logged = [line for line in lines() if line.startswith("call ")]
        assert calls_logged == [f"call c{n}" for n in range(4)] + [f"call c{n}" for n in range(3, STEPS)]


def test_a_run_whose_workflow_ended_on_an_error_before_it_finished_is_carried_on_by_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The database back before DBOS wrote the workflow's end: DBOS holds it as ended in error,
    # the store as unfinished. Resume goes by the store.
    from core import StorageError
    from core.durable import _workflow

    calls: list[str] = []
    tools, plan = _chain(calls, lambda: None)
    real_steps_ended = _workflow.StoreRecorder.steps_ended  # ends are written in batches
    failing = {"c3"}

    def steps_ended(self, run, step_ids):
        if failing & set(step_ids):
            failing.clear()
            raise StorageError("cannot record the step's end: the disk is busy")
        return real_steps_ended(self, run, step_ids)

    monkeypatch.setattr(_workflow.StoreRecorder, "steps_ended", steps_ended)
    with PlanStore(tmp_path / "studio.sqlite3") as store:
        runs = DurableRuns(store, tools)
        run_id = runs.start(plan)
        with pytest.raises(StorageError):
            runs.execute(run_id)
        assert store.load_run(run_id).status != "succeeded"
        resumed = runs.resume(run_id)
        assert resumed.status == "succeeded"
        assert {k: s.result for k, s in resumed.steps.items()} == {f"c{n}": n + 1 for n in range(STEPS)}
        assert calls == [f"c{n}" for n in range(4)] + [f"c{n}" for n in range(3, STEPS)]

"""A durable run's per-step writes go straight through the driver (``_driver_writes``): on
SQLite its connections are kept between writes; each write is still one transaction, used by
one thread at a time, and closing the store closes them."""

from __future__ import annotations

import datetime as dt
import os
import threading
from pathlib import Path

import pytest

from core import Plan, Step, ToolRegistry
from core.storage import PlanStore


def _a_stored_run(store: PlanStore, steps: int) -> str:
    from core import Executor

    plan = Plan(goal="g", steps=[Step(id=f"s{n}", tool="t") for n in range(steps)])
    tools = ToolRegistry()

    @tools.register
    def t() -> int:
        """Return one."""
        return 1

    saved = store.save_plan(plan)
    run = Executor(tools).start(plan)
    store.save_run(run, plan_id=saved.plan_id, version=saved.version)
    return run.id


def _open_files(path: Path) -> list[str]:
    names = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(path)):
            names.append(target)
    return names


def test_writes_from_many_threads_at_once_each_land_in_their_own_transaction(store_location) -> None:
    with PlanStore(store_location) as store:
        run_id = _a_stored_run(store, 8)
        failures: list[BaseException] = []

        def write(step: int) -> None:
            from core import StepRun, StepStatus

            try:
                for n in range(60):
                    state = StepRun(step_id=f"s{step}", status=StepStatus.succeeded, result={"n": n})
                    store.records.steps_finished(run_id, [state])
            except BaseException as exc:  # told below, not lost in a thread
                failures.append(exc)

        threads = [threading.Thread(target=write, args=(step,)) for step in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        stored = store.load_run(run_id)
        assert [(s.status.value, s.result) for s in stored.steps.values()] == [("succeeded", {"n": 59})] * 8


def test_closing_the_store_closes_the_connections_kept_for_writes(tmp_path: Path) -> None:
    path = tmp_path / "studio.sqlite3"
    store = PlanStore(path)
    run_id = _a_stored_run(store, 2)
    store.records.steps_started(run_id, [("s0", {"n": 1}, dt.datetime.now(dt.timezone.utc))])
    assert _open_files(path)
    store.close()
    assert _open_files(path) == []


def test_a_failed_write_names_the_step_action_and_keeps_no_half_written_rows(tmp_path: Path) -> None:
    from core import StepRun, StepStatus
    from core._errors import StorageError

    with PlanStore(tmp_path / "studio.sqlite3") as store:
        run_id = _a_stored_run(store, 2)
        good = StepRun(step_id="s0", status=StepStatus.succeeded, result=1)
        bad = StepRun(step_id="s1", status=StepStatus.succeeded, result=1)
        bad.__dict__["duration_ms"] = object()  # no driver can bind it
        with pytest.raises(StorageError, match="record the step's end"):
            store.records.steps_finished(run_id, [good, bad])
        assert store.load_run(run_id).steps["s0"].status == StepStatus.pending  # rolled back whole
        store.records.steps_finished(run_id, [good])  # the next write goes on
        assert store.load_run(run_id).steps["s0"].status == StepStatus.succeeded

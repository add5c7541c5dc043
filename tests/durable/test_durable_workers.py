"""``plan-studio worker`` processes on one PostgreSQL: runs put on the shared queue are each
run by one worker, none twice, and the runs of a worker killed with SIGKILL are taken over."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

import durable_child
from test_durable_kill import start_child
from core.durable import DurableRuns
from core.storage import PlanStore

pytestmark = pytest.mark.usefixtures("stop_durable_runs")

RUNS = 6
_WAIT_SECONDS = 120


def _worker(location: str, log: Path) -> subprocess.Popen[bytes]:
    """A worker process started afresh (a fork of this threaded process could hang: see
    ``test_durable_kill``), serving the queue with the children's tools."""
    return start_child(["worker", location, str(log)], log.with_name(f"worker-{time.monotonic_ns()}.out"))


def _lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def _wait_for(condition) -> None:
    deadline = time.monotonic() + _WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_two_workers_share_the_queue_and_a_killed_workers_runs_are_taken_over(postgres, tmp_path: Path) -> None:
    location = postgres.new_database()
    log = tmp_path / "calls.log"
    store = PlanStore(location)
    runs = DurableRuns(store, durable_child.registry(log))  # this process only puts runs on the queue
    first = _worker(location, log)
    run_ids = []
    for n in range(RUNS):
        run_id = runs.start(durable_child.plan("chain", tag=f"r{n}-"))
        runs.enqueue(run_id)
        run_ids.append(run_id)
    _wait_for(lambda: len(_lines(log)) >= 20)  # the first worker is well into them
    first.kill()
    first.wait()
    finished_at_kill = {r: {s.step_id for s in store.load_run(r).steps.values() if s.status.value == "succeeded"}
                        for r in run_ids}
    logged_at_kill = len(_lines(log))
    second, third = _worker(location, log), _worker(location, log)
    try:
        _wait_for(lambda: all(store.records.recent(RUNS)[n].status == "succeeded" for n in range(RUNS)))
    finally:
        for worker in (second, third):
            worker.kill()
            worker.wait()
    starts: dict[str, int] = {}
    for kind, step in (line.split() for line in _lines(log)):
        if kind == "start":
            starts[step] = starts.get(step, 0) + 1
    expected = durable_child.expected("chain")
    for n, run_id in enumerate(run_ids):
        run = store.load_run(run_id)
        assert {s.step_id: s.result for s in run.steps.values()} == expected
        for step_id in expected:
            # Every step ran; one finished before the kill never again; none ran twice after it.
            calls = starts.get(f"r{n}-{step_id}", 0)
            assert calls >= 1
            if step_id in finished_at_kill[run_id]:
                assert f"start r{n}-{step_id}" not in _lines(log)[logged_at_kill:]
            assert calls <= 2
    after = [line for line in _lines(log)[logged_at_kill:] if line.startswith("start")]
    assert len(after) == len(set(after))  # the surviving workers ran nothing twice
    store.close()

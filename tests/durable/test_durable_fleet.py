"""Two processes that put runs on the queue and two ``plan-studio worker`` processes, all real
processes on one PostgreSQL: every step's tool is called once (counted by the tool itself, in a
file appended to with O_APPEND by every process), nothing is lost, and the runs of a worker
killed with SIGKILL mid-run are finished by the other.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


from core.storage import PlanStore

RUNS_PER_STUDIO = 4
CHAIN = 4
_WAIT_SECONDS = 120  # generous: four Python processes start on a shared machine

COUNTING_TOOLS = '''
import os
import time

LOG = os.environ["FLEET_LOG"]


def _line(text: str) -> None:
    fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (text + "\\n").encode())
    finally:
        os.close(fd)


def count(tag: str, value: int) -> int:
    """Add one, noting the call in the log.

    Args:
        tag: The step's name in the log.
        value: A number.
    """
    _line(f"start {tag} {os.getpid()}")
    time.sleep(0.3)  # long enough for a kill to find runs in flight
    _line(f"end {tag} {os.getpid()}")
    return value + 1


def register(registry):
    registry.register(count, effects="read-only")
'''

STUDIO = '''
import sys

from core import Plan, Settings, Step
from core.durable import DurableRuns
from core.storage import PlanStore
from tools import load_tools

location, tools_file, name, runs_wanted, chain = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
registry, problems = load_tools(Settings(tools=[tools_file]), groups=[])
assert not problems, problems
runs = DurableRuns(PlanStore(location), registry)
for n in range(runs_wanted):
    tag = f"{name}-r{n}-"
    steps = [Step(id="c0", tool="count", params={"tag": tag + "c0", "value": 0})]
    steps += [Step(id=f"c{k}", tool="count", params={"tag": f"{tag}c{k}", "value": f"${{steps.c{k - 1}}}"})
              for k in range(1, chain)]
    run_id = runs.start(Plan(goal=f"count {tag}", steps=steps))
    runs.enqueue(run_id)
    print(run_id, tag, flush=True)
'''


def _lines(log: Path) -> list[list[str]]:
    return [line.split() for line in log.read_text().splitlines()] if log.exists() else []


def _ready(store: PlanStore, workers: list[subprocess.Popen]) -> bool:
    """Whether every worker has written its first sign of life (it listens to the queue)."""
    from sqlmodel import select

    from core.storage._tables import RunWorkerRow

    with store.database.session("list the workers") as session:
        seen = list(session.exec(select(RunWorkerRow.id)).all())
    for worker in workers:
        assert worker.poll() is None, f"worker {worker.pid} ended"
    return all(any(f":{worker.pid}:" in executor for executor in seen) for worker in workers)


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + _WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_two_studios_and_two_workers_run_each_step_once_and_a_killed_workers_runs_are_finished(
        postgres, tmp_path: Path) -> None:
    location = postgres.new_database()
    PlanStore(location).close()  # the tables, once, before four processes race to make them
    tools_file = tmp_path / "counting.py"
    tools_file.write_text(COUNTING_TOOLS, encoding="utf-8")
    log = tmp_path / "calls.log"
    env = {**os.environ, "FLEET_LOG": str(log), "PLAN_STUDIO_DB": location, "XDG_DATA_HOME": str(tmp_path / "xdg")}
    worker_command = [str(Path(sys.executable).with_name("plan-studio")), "worker", "--tools", str(tools_file),
                      "--concurrency", "2", "--data-dir", str(tmp_path / "data")]
    workers = [subprocess.Popen(worker_command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                                stderr=open(tmp_path / f"worker{n}.err", "w")) for n in range(2)]
    try:
        with PlanStore(location) as store:
            _wait_for(lambda: _ready(store, workers), "both workers to take runs from the queue")
        studios = [subprocess.Popen([sys.executable, "-c", STUDIO, location, str(tools_file), f"s{n}",
                                     str(RUNS_PER_STUDIO), str(CHAIN)],
                                    env=env, cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for n in range(2)]
        doomed = workers[0]

        def doomed_is_mid_call() -> bool:
            lines = _lines(log)
            started = {tag for kind, tag, pid in lines if kind == "start" and pid == str(doomed.pid)}
            ended = {tag for kind, tag, pid in lines if kind == "end" and pid == str(doomed.pid)}
            return bool(started - ended)

        _wait_for(doomed_is_mid_call, "the first worker to be in the middle of a step")
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        with PlanStore(location) as store:
            finished_at_kill = {(r.id, s.step_id) for r in store.records.recent(100)
                                for s in store.load_run(r.id).steps.values() if s.status.value == "succeeded"}
        logged_at_kill = len(_lines(log))
        made = []
        for studio in studios:
            out, err = studio.communicate(timeout=_WAIT_SECONDS)
            assert studio.returncode == 0, err
            made += [line.split() for line in out.splitlines()]
        assert len(made) == 2 * RUNS_PER_STUDIO
        with PlanStore(location) as store:

            def all_done() -> bool:
                return all(store.load_run(run_id).status == "succeeded" for run_id, _tag in made)

            _wait_for(all_done, "every run to finish")
            for run_id, _tag in made:  # nothing lost: every step's result is right
                assert {s.step_id: s.result for s in store.load_run(run_id).steps.values()} == \
                       {f"c{k}": k + 1 for k in range(CHAIN)}
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGKILL)
                worker.wait()
    lines = _lines(log)
    survivor = str(workers[1].pid)
    starts: dict[str, list[str]] = {}
    for kind, tag, pid in lines:
        if kind == "start":
            starts.setdefault(tag, []).append(pid)
    for run_id, tag in made:
        for k in range(CHAIN):
            callers = starts.get(f"{tag}c{k}", [])
            # Once; twice only for a step the killed worker was in the middle of (its tool may
            # repeat), the second time by the survivor; never again once it had finished.
            assert len(callers) == 1 or (callers == [str(doomed.pid), survivor]
                                         and (run_id, f"c{k}") not in finished_at_kill), (tag, k, callers)
    after_kill = [pid for kind, _tag, pid in lines[logged_at_kill:] if kind == "start"]
    assert after_kill and set(after_kill) == {survivor}  # the killed worker's runs were taken over
    taken_over = [tag for _run_id, tag in made
                  if {str(doomed.pid), survivor} <= {p for k in range(CHAIN) for p in starts[f"{tag}c{k}"]}]
    assert taken_over, "no run of the killed worker was finished by the other"

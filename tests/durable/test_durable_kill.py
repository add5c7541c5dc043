"""Kill -9 a process in the middle of a durable run, again and again at random points, and
resume it each time: no step that had finished runs again, and the results are right.

The processes are started afresh (``start_child``) and killed with SIGKILL by the test: the real
thing, on SQLite and on PostgreSQL, for a chain and a fan-out. Not forked from this one, though
that saved each child its imports: a test process has threads (Playwright's, DBOS's, once a
browser or durable test ran in it), a fork copies the locks they held into a child that never
gets them back, and the pipes to Playwright's driver with them. In CI a forked child hung so
before its first step, and the session's ``pw.stop()`` then waited 300 s on the pipe it held.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

import durable_child
from core.storage import PlanStore

KILLS_PER_SHAPE = 6  # x 2 shapes x 2 databases: 24 kills at random points
_WAIT_SECONDS = 60


def _lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


class Pace:
    """Lets a child's ``add`` calls end only once this test has seen them start: each call
    started gets its byte (``durable_child.PACE_FD``) when the test next looks. On a loaded
    machine the test may not get the CPU for a while, and a child running on meanwhile would
    finish the run before the kills the test means to make; paced, a child is never further
    ahead of what the test saw than the calls it has in flight, and the kill still lands
    anywhere after them (in a tool, in a write, between steps)."""

    def __init__(self) -> None:
        self.read_fd, self._write_fd = os.pipe()
        self._granted = 0

    def lines(self, log: Path) -> int:
        """How many lines ``log`` has, every call started so far let through."""
        lines = _lines(log)
        started = sum(line.startswith("start ") for line in lines)
        if started > self._granted:
            os.write(self._write_fd, b"x" * (started - self._granted))
            self._granted = started
        return len(lines)

    def free(self) -> None:
        """Let the child run to the end unpaced."""
        os.set_blocking(self._write_fd, False)
        try:
            os.write(self._write_fd, b"x" * 4096)
        except BlockingIOError:
            pass  # the pipe is full: more than enough bytes wait for the calls left


def start_child(argv: list[str], out: Path, pace: Pace | None = None, *, main: Callable[[list[str]], int] = durable_child.main,
                env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start a fresh Python process that runs ``main(argv)`` (a function of a module in tests/)
    with its output in ``out``, ``env`` added to its environment and its ``add`` calls paced by
    ``pace``; the test kills and reaps it."""
    tests = Path(durable_child.__file__).resolve().parent
    fds = () if pace is None else (pace.read_fd,)
    code = (f"import sys; sys.path[:0] = {[str(tests), str(tests.parent)]!r}; import durable_child, {main.__module__}; "
            f"durable_child.PACE_FD = {fds[0] if fds else None!r}; sys.exit({main.__module__}.{main.__name__}({argv!r}))")
    with open(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as output:
        return subprocess.Popen([sys.executable, "-c", code], stdout=output, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})}, pass_fds=fds)


def _wait_for(condition, child: subprocess.Popen[bytes]) -> bool:
    """Wait until ``condition()``; False when the child ended first."""
    deadline = time.monotonic() + _WAIT_SECONDS
    while not condition():
        if child.poll() is not None:
            return False
        assert time.monotonic() < deadline, "the child neither got there nor ended"
        time.sleep(0.0005)
    return True


def _finished_steps(location: str | Path, run_id: str) -> dict[str, object]:
    with PlanStore(location) as store:
        run = store.load_run(run_id)
    return {s.step_id: s.result for s in run.steps.values() if s.status.value == "succeeded"}


@pytest.mark.parametrize("shape", ["chain", "fanout"])
def test_kill_9_at_random_points_then_resume_reruns_no_finished_step(
        shape: str, store_location: str | Path, tmp_path: Path) -> None:
    rng = random.Random(f"{shape}-{store_location}")
    log, out = tmp_path / "calls.log", tmp_path / "child.out"
    pace = Pace()
    child: subprocess.Popen[bytes] | None = start_child(["run", str(store_location), shape, str(log)], out, pace)
    assert _wait_for(lambda: out.exists() and out.read_text().strip() != "", child)
    run_id = out.read_text().split()[0]
    kills = 0
    finished_before: dict[str, object] = {}
    checkpoints: list[tuple[int, set[str]]] = []  # after each kill: lines logged, steps recorded finished
    while kills < KILLS_PER_SHAPE:
        target = len(_lines(log)) + rng.randint(1, 4)
        if not _wait_for(lambda: pace.lines(log) >= target, child):
            child = None  # the run ended first (and the child is reaped)
            break
        for _ in range(rng.randint(0, 3000)):  # land anywhere: in the tool, in a write, between
            pass
        child.kill()
        child.wait()
        kills += 1
        finished = _finished_steps(store_location, run_id)
        assert finished_before.items() <= finished.items()  # nothing recorded was lost or changed
        finished_before = finished
        checkpoints.append((len(_lines(log)), set(finished)))
        child = start_child(["resume", str(store_location), run_id, str(log)], out, pace)
    if child is not None:
        pace.free()
        child.wait()
    assert out.read_text().split()[-1] == "succeeded", out.read_text()
    assert _finished_steps(store_location, run_id) == durable_child.expected(shape)
    calls = [line.split() for line in _lines(log)]
    for logged, finished in checkpoints:  # no step recorded finished at a kill started again after it
        again = {step for kind, step in calls[logged:] if kind == "start"} & finished
        assert not again, (logged, again)
    assert {step for _kind, step in calls} == set(durable_child.expected(shape))
    assert kills == KILLS_PER_SHAPE

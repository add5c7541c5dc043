"""Issue 27, hole 2: two ``plan-studio resume`` of one interrupted run at once. One wins and
carries the run on; the other is told, in one line naming who has it, and exits non-zero; the
writing step's effect happens once.

Real processes on one store: a ``plan-studio run`` killed with SIGKILL in its first step (a
read-only step that holds until the test lets it go), then two ``plan-studio resume`` started
together (a barrier in the tools file lines them up once both have loaded), again and again.
The writing step appends a line to a file: its lines are the effects that happened.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.storage import PlanStore

CONSOLE_SCRIPT = Path(sys.executable).with_name("plan-studio")
PAIRS = 10  # on SQLite; the same claim on PostgreSQL (one code path, the store's write lock) is run fewer times
PAIRS_ON_POSTGRESQL = 3
_WAIT_SECONDS = 180

TOOLS = '''
"""Tools of the two-resumes test: a step that holds until released, and one that writes."""
import os
import pathlib
import time

from core import READ_ONLY

HERE = pathlib.Path(os.environ["TWO_RESUMES_DIR"])


def _line(name: str, text: str) -> None:
    with open(HERE / name, "a", encoding="utf-8") as out:
        out.write(text + "\\n")
        out.flush()
        os.fsync(out.fileno())


def _barrier() -> None:
    """Both resumes go on from here together (each loads this file first)."""
    folder = os.environ.get("TWO_RESUMES_BARRIER")
    if not folder:
        return
    (pathlib.Path(folder) / str(os.getpid())).touch()
    while len(os.listdir(folder)) < 2:
        time.sleep(0.001)


def hold(pair: int) -> int:
    """Wait until the test lets this pair's run go on.

    Args:
        pair: Which pair of resumes.
    """
    _line(f"hold-{pair}.log", str(os.getpid()))
    while not (HERE / f"release-{pair}").exists():
        time.sleep(0.005)
    return pair


def append(pair: int, after: int) -> str:
    """Append a line to this pair's effects file (a write).

    Args:
        pair: Which pair of resumes.
        after: The held step's result.
    """
    _line(f"effects-{pair}.log", str(os.getpid()))
    return "appended"


def register(registry):
    _barrier()
    registry.register(hold, effects=READ_ONLY)
    registry.register(append, effects="additive")
'''


def _env(folder: Path, database: str | None, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
    if database is not None:
        env["PLAN_STUDIO_DB"] = database
    # The hole: the writing step runs "without anyone being asked" (as --approve-writes would).
    env.update(PLAN_STUDIO_APPROVE_WRITES="false", PLAN_STUDIO_TODAY="2025-10-12", TWO_RESUMES_DIR=str(folder),
               PLAN_STUDIO_DATA_DIR=str(folder / "data"), **more)
    return env


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + _WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"waited {_WAIT_SECONDS} s for {what}"
        time.sleep(0.01)


def _interrupted_run(folder: Path, tools: Path, pair: int, store: str | Path, database: str | None) -> str:
    """A run killed with SIGKILL while its first step holds; its id."""
    plan = folder / f"plan-{pair}.json"
    plan.write_text(json.dumps({"steps": [{"tool": "hold", "params": {"pair": pair}},
                                          {"tool": "append", "params": {"pair": pair, "after": "${step[0]}"}}]}),
                    encoding="utf-8")
    process = subprocess.Popen([str(CONSOLE_SCRIPT), "run", str(plan), "--tools", str(tools)], env=_env(folder, database),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(lambda: len(_lines(folder / f"hold-{pair}.log")) == 1 or process.poll() is not None,
                  "the run to reach its held step")
        assert process.poll() is None, "the run ended before it held"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    with PlanStore(store) as opened:
        listed = opened.records.recent()
    return listed[0].id


@pytest.fixture(scope="module")
def shared_postgres(request: pytest.FixtureRequest) -> str:
    """One database on the test PostgreSQL for all the pairs run there."""
    return request.getfixturevalue("postgres").new_database()


@pytest.mark.parametrize("kind, pair", [*(("sqlite", n) for n in range(PAIRS)),
                                        *(("postgresql", n) for n in range(PAIRS_ON_POSTGRESQL))])
def test_two_resumes_at_once_one_wins_the_other_is_told_and_the_write_happens_once(
        kind: str, pair: int, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> None:
    folder = tmp_path_factory.getbasetemp() / f"two-resumes-{kind}"  # one store for all the pairs
    folder.mkdir(exist_ok=True)
    tools = folder / "resume_tools.py"
    tools.write_text(TOOLS, encoding="utf-8")
    database = request.getfixturevalue("shared_postgres") if kind == "postgresql" else None
    store = database or folder / "data" / "studio.sqlite3"
    run_id = _interrupted_run(folder, tools, pair, store, database)
    barrier = folder / f"barrier-{pair}"
    barrier.mkdir()
    resumes = [subprocess.Popen([str(CONSOLE_SCRIPT), "resume", run_id, "--tools", str(tools)],
                                env=_env(folder, database, TWO_RESUMES_BARRIER=str(barrier)), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for _ in range(2)]
    holds = folder / f"hold-{pair}.log"
    try:
        # Held again once it is carried on; let go when one resume has given up, or both hold
        # (each carrying it: the duplicate this test is about).
        _wait_for(lambda: any(p.poll() is not None for p in resumes) or len(_lines(holds)) >= 3,
                  "one resume to give up or both to carry the run on")
        (folder / f"release-{pair}").touch()
        ended = [p.communicate(timeout=_WAIT_SECONDS) for p in resumes]
    finally:
        for process in resumes:
            if process.poll() is None:
                process.kill()
                process.wait()
    effects = _lines(folder / f"effects-{pair}.log")
    assert len(effects) == 1, f"the writing step ran {len(effects)} times: {effects} {ended}"
    codes = [p.returncode for p in resumes]
    assert sorted(code == 0 for code in codes) == [False, True], (codes, ended)
    winner, loser = (0, 1) if codes[0] == 0 else (1, 0)
    told = ended[loser][1].strip()
    assert len(told.splitlines()) == 1 and "Traceback" not in told, told
    assert run_id in told and f":{resumes[winner].pid}:" in told, told  # names the process that has it
    assert effects == [str(resumes[winner].pid)] or len(_lines(holds)) == 2, (effects, ended)
    assert "run succeeded" in ended[winner][0], ended[winner]
    with PlanStore(store) as opened:
        assert opened.load_run(run_id).status == "succeeded"

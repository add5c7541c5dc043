"""A tool that never returns holds ``plan-studio run`` no longer than its time limit, and Ctrl-C at
any point of the command's first seconds is one line and exit status 130 (issue 26).

Each test runs the installed console script as a subprocess, as a user does: nothing in the
test process (its threads, its signal handlers, its imports) can hide what the command does at
exit. Times are compared with a normal one-step run measured in the same test, never with a
wall-clock figure: the machine may be loaded (a command's start-up takes 2 s on an idle core and
over 7 s under load here), so each figure is taken from the moment the tool was called (the tool
writes the time to a file) to the moment the process had exited.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

CONSOLE_SCRIPT = Path(sys.executable).with_name("plan-studio")
TODAY = "2025-10-12"
LIMIT = 3.0  # seconds: the tools' time limit in these runs

TOOLS = '''
"""Tools for the time-limit tests: one never returns, one returns at once."""
import threading
import time
from pathlib import Path

_CALLED = Path(__file__).with_name("called")


def never(label: str) -> str:
    """Never returns.

    Args:
        label: Ignored.
    """
    _CALLED.write_text(repr(time.time()))
    threading.Event().wait()


def echo(label: str) -> str:
    """Returns its label.

    Args:
        label: Returned.
    """
    _CALLED.write_text(repr(time.time()))
    return label
'''


@dataclass
class Ran:
    status: int
    out: str
    err: str
    began: float  # time.time() when the process was started
    ended: float  # time.time() once it had exited
    called: float | None  # time.time() when its tool was called, if it was


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "my_tools.py").write_text(textwrap.dedent(TOOLS).lstrip(), encoding="utf-8")
    return tmp_path


@pytest.fixture(scope="module")
def normal(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """A normal one-step run, what the others are measured against (once for the module)."""
    here = tmp_path_factory.mktemp("normal")
    (here / "my_tools.py").write_text(textwrap.dedent(TOOLS).lstrip(), encoding="utf-8")
    ran = _run(here, "echo")
    assert ran.status == 0, ran.err
    assert ran.out.splitlines() == ["step 0 (echo): succeeded, 1 result", "run succeeded: 1 succeeded"]
    assert ran.called is not None
    return ran


def _plan(folder: Path, *tools: str) -> Path:
    """A chain: each step after the first takes the one before it as its label."""
    steps = [{"tool": tools[0], "params": {"label": "x"}}]
    steps += [{"tool": tool, "params": {"label": f"${{step[{n}]}}"}, "depends_on": [n]}
              for n, tool in enumerate(tools[1:])]
    path = folder / "plan.json"
    path.write_text(json.dumps({"steps": steps}), encoding="utf-8")
    return path


def _start(folder: Path, plan: Path, *, limit: float) -> tuple[subprocess.Popen[str], float]:
    (folder / "called").unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
    env["PLAN_STUDIO_TOOL_TIMEOUT"] = repr(limit)
    began = time.time()
    process = subprocess.Popen(
        [str(CONSOLE_SCRIPT), "run", str(plan), "--tools", str(folder / "my_tools.py"), "--approve-writes",
         "--data-dir", str(folder / "data"), "--today", TODAY],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # A shell running the tests in the background makes them ignore SIGINT, and the command
        # would inherit that: give it the default, as a terminal's Ctrl-C finds it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return process, began


def _finish(folder: Path, process: subprocess.Popen[str], began: float) -> Ran:
    try:
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    ended = time.time()
    called = folder / "called"
    return Ran(process.returncode, out, err, began, ended,
               float(called.read_text()) if called.exists() else None)


def _run(folder: Path, *tools: str, limit: float = LIMIT) -> Ran:
    process, began = _start(folder, _plan(folder, *tools), limit=limit)
    return _finish(folder, process, began)


def test_a_tool_that_never_returns_holds_the_command_no_longer_than_its_time_limit(folder: Path,
                                                                                    normal: Ran) -> None:
    assert normal.called is not None
    # What a run does after its last tool returns (record the step and the run, print, exit).
    normal_tail = normal.ended - normal.called

    hung = _run(folder, "never", "echo", "echo")
    assert hung.status == 1, hung.err
    assert hung.out.splitlines() == [
        f"step 0 (never): failed: never timed out after {LIMIT:g} s",
        "step 1 (echo): skipped: depends on step 0 (never), which did not succeed",
        "step 2 (echo): skipped: depends on step 1 (echo), which did not succeed",
        "run failed: 1 failed, 2 skipped"]
    assert hung.err == ""
    assert hung.called is not None
    hung_tail = hung.ended - hung.called
    # The limit, then the same work as after a normal step. The margin: that work again (a
    # loaded machine slows both runs alike, but not at the same moments) and one second for the
    # time-out to be noticed and the two skipped steps recorded. Holding on to the hung tool's
    # thread at exit (a thread pool that joins its threads, a join, a wait for the workflow) would
    # cost the limit again at least; what issue 26 saw cost more than that.
    assert LIMIT <= hung_tail <= LIMIT + 2 * normal_tail + 1.0, (hung_tail, normal_tail)


def _one_line_interrupted(ran: Ran) -> str:
    assert "Traceback" not in ran.err, ran.err
    lines = ran.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("plan-studio: interrupted"), ran.err
    assert ran.status == 130, ran.err
    return lines[0]


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.6, 0.9])
def test_ctrl_c_in_the_first_seconds_is_one_line_and_exit_status_130(folder: Path, normal: Ran,
                                                                     fraction: float) -> None:
    # The points are fractions of a whole normal run: its imports, its tools loading, the store
    # and the durable engine opening, the run itself.
    process, began = _start(folder, _plan(folder, "never", "echo"), limit=600)
    time.sleep(fraction * (normal.ended - normal.began))
    process.send_signal(signal.SIGINT)
    ran = _finish(folder, process, began)
    line = _one_line_interrupted(ran)
    if ran.called is not None:  # the hung step was running: it is named
        assert line.startswith("plan-studio: interrupted: the run stopped during step 0 (never)"), line


def test_ctrl_c_while_a_tool_never_returns_names_the_step_and_ends_at_once(folder: Path) -> None:
    process, began = _start(folder, _plan(folder, "never", "echo"), limit=600)
    called = folder / "called"
    deadline = time.monotonic() + 240
    while not called.exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    pressed = time.time()
    process.send_signal(signal.SIGINT)
    ran = _finish(folder, process, began)
    line = _one_line_interrupted(ran)
    assert line.startswith("plan-studio: interrupted: the run stopped during step 0 (never); finished: none; "
                           "not finished: 2 steps; carry on: plan-studio resume "), line
    assert ran.out == "step 0 (never): cancelled: the run was cancelled while this step was running; it runs " \
                      "again on the next run\n"
    # The hung call is left behind: the command does not wait for it (its time limit is 600 s).
    assert ran.ended - pressed < 60


def test_ctrl_c_once_the_command_is_done_prints_nothing_more(folder: Path) -> None:
    # The command has said all it had to; the interpreter is exiting (DBOS's thread pool is joined
    # then). Ctrl-C ends the process with the command's status, or, late in the exit when Python
    # has given SIGINT back its default, by the signal itself.
    process, began = _start(folder, _plan(folder, "echo"), limit=LIMIT)
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("run "):
            break
    process.send_signal(signal.SIGINT)
    ran = _finish(folder, process, began)
    assert lines == ["step 0 (echo): succeeded, 1 result\n", "run succeeded: 1 succeeded\n"]
    # The Ctrl-C may still reach the command between its last line and its return (closing the run
    # there): then it is the one line of any interrupt. Whenever it comes: never a traceback.
    assert (ran.err, ran.status) in {("", 0), ("", -signal.SIGINT), ("plan-studio: interrupted\n", 130)}, \
        (ran.status, ran.err)

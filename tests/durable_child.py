"""A process that runs (or resumes) a durable run, for tests that kill it with SIGKILL.

    python tests/durable_child.py run STORE SHAPE LOG     # prints the run id, then runs it
    python tests/durable_child.py resume STORE RUN_ID LOG [STEP=DECISION ...]

SHAPE is ``chain`` (each step adds one to the one before) or ``fanout`` (one root, sixteen steps
on it, one that adds two of them); ``writes`` is a chain whose tool may write (never repeated on its own), ``reads`` one whose tool is
read-only (repeated on its own).
Every tool call appends ``start <step>`` before its work and ``end <step>`` after it to LOG, so
the test sees what ran, how often, and can kill the process at any line.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from core import Plan, Step, ToolRegistry
from core.durable import DurableRuns
from core.storage import PlanStore

CHAIN = 20
WIDTH = 16


HOLD = "DURABLE_CHILD_HOLD"
# The read end of a pipe a killing test paces ``add`` with (``test_durable_kill.Pace``): each
# call takes one byte before it ends. None (the default): calls never wait.
PACE_FD: int | None = None


def _hold_if_asked(step: str) -> None:
    """Stay inside the call of the step named by ``$DURABLE_CHILD_HOLD`` until killed, so a
    kill lands mid-call every time, not only when it wins the race with the tool's end."""
    if os.environ.get(HOLD) == step:
        threading.Event().wait()


def registry(log: Path) -> ToolRegistry:
    tools = ToolRegistry()

    def _mark(text: str) -> None:
        with open(log, "a", encoding="utf-8") as out:
            out.write(text + "\n")
            out.flush()
            os.fsync(out.fileno())

    @tools.register(effects="idempotent")
    def add(step: str, value: int, plus: int) -> int:
        """Add two numbers.

        Args:
            step: The step's name, for the log.
            value: A number.
            plus: Another.
        """
        _mark(f"start {step}")
        if PACE_FD is not None:
            os.read(PACE_FD, 1)
        total = sum(range(20000)) * 0 + value + plus  # a little work between the marks
        _mark(f"end {step}")
        return total

    @tools.register(effects="additive")
    def send(step: str, value: int) -> int:
        """Send a number somewhere (a write: not repeated without the user).

        Args:
            step: The step's name, for the log.
            value: The number.
        """
        _mark(f"start {step}")
        _hold_if_asked(step)
        _mark(f"end {step}")
        return value + 1

    @tools.register(effects="read-only")
    def fetch(step: str, value: int) -> int:
        """Read a number from somewhere (read-only: safe to call again).

        Args:
            step: The step's name, for the log.
            value: The number.
        """
        _mark(f"start {step}")
        _hold_if_asked(step)
        _mark(f"end {step}")
        return value + 1

    return tools


_CHAIN_TOOLS = {"chain": "add", "writes": "send", "reads": "fetch"}


def plan(shape: str, tag: str = "") -> Plan:
    """The plan of ``shape``; ``tag`` goes before each step's name in the log (runs told apart)."""
    if shape in _CHAIN_TOOLS:
        tool = _CHAIN_TOOLS[shape]
        steps = [Step(id="c0", tool=tool, params={"step": f"{tag}c0", "value": 0, **({"plus": 1} if tool == "add" else {})})]
        for n in range(1, CHAIN):
            params = {"step": f"{tag}c{n}", "value": f"${{step[{n - 1}]}}"}
            if tool == "add":
                params["plus"] = 1
            steps.append(Step(id=f"c{n}", tool=tool, params=params))
        return Plan(goal=f"{shape} of {CHAIN} {tag}".strip(), steps=steps)
    steps = [Step(id="root", tool="add", params={"step": "root", "value": 1, "plus": 0})]
    steps += [Step(id=f"f{n}", tool="add", params={"step": f"f{n}", "value": "${step[0]}", "plus": n})
              for n in range(WIDTH)]
    total: Step = Step(id="sum0", tool="add", params={"step": "sum0", "value": "${step[1]}", "plus": "${step[2]}"})
    steps.append(total)
    return Plan(goal=f"fan-out of {WIDTH}", steps=steps)


def expected(shape: str) -> dict[str, int]:
    if shape in _CHAIN_TOOLS:
        return {f"c{n}": n + 1 for n in range(CHAIN)}
    out = {"root": 1, **{f"f{n}": 1 + n for n in range(WIDTH)}}
    out["sum0"] = out["f0"] + out["f1"]
    return out


def main(argv: list[str]) -> int:
    command, store_location = argv[0], argv[1]
    store = PlanStore(store_location)
    if command == "worker":  # as `plan-studio worker` does, until killed
        from core.durable import serve_queue

        serve_queue(store, registry(Path(argv[2])), concurrency=3, beat=0.2)
        return 0
    if command == "run":
        shape, log = argv[2], Path(argv[3])
        runs = DurableRuns(store, registry(log))
        run_id = runs.start(plan(shape))
        print(run_id, flush=True)
        run = runs.execute(run_id)
    else:
        run_id, log = argv[2], Path(argv[3])
        decisions = dict(arg.split("=", 1) for arg in argv[4:])
        runs = DurableRuns(store, registry(log))
        run = runs.resume(run_id, decisions=decisions)
    print(run.status, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

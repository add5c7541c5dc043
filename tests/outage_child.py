"""The chain of tests/durable/test_durable_outage.py, and its worker in a process of its own, as
`plan-studio worker` is (started afresh: a fork of the test process would copy the locks its
threads hold, see ``start_child`` in tests/durable/test_durable_kill.py).

    worker LOCATION LOG HALT_JSON    # serves the queue; step c3's first call runs HALT (argv)

Every call logs ``call <step>`` to LOG, and the outage ``halted`` once it happened.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Callable

from core import Plan, Step, ToolRegistry

STEPS = 6
OUTAGE_AT = "c3"


def chain(calls: list[str], outage: Callable[[], None], effects: str = "idempotent") -> tuple[ToolRegistry, Plan]:
    """``add`` called along a chain of STEPS steps; the first call of step OUTAGE_AT runs ``outage``."""
    tools = ToolRegistry()

    @tools.register(effects=effects)
    def add(step: str, value: int) -> int:
        """Add one.

        Args:
            step: The step's name.
            value: A number.
        """
        calls.append(step)
        if step == OUTAGE_AT and calls.count(step) == 1:
            outage()  # the database goes away while this step runs
        return value + 1

    steps = [Step(id="c0", tool="add", params={"step": "c0", "value": 0})]
    steps += [Step(id=f"c{n}", tool="add", params={"step": f"c{n}", "value": f"${{step[{n - 1}]}}"})
              for n in range(1, STEPS)]
    return tools, Plan(goal="a chain through an outage", steps=steps)


def main(argv: list[str]) -> int:
    from core.durable import serve_queue
    from core.storage import PlanStore

    command, location, log, halt = argv[0], argv[1], Path(argv[2]), json.loads(argv[3])
    assert command == "worker", command

    def note(line: str) -> None:
        with open(log, "a", encoding="utf-8") as out:
            out.write(line + "\n")

    def outage() -> None:
        subprocess.run(halt, check=True, capture_output=True)
        note("halted")

    calls: list[str] = []
    tools, _ = chain(calls, outage)
    original = tools.get("add").runner.func

    def logged(**params: object) -> object:
        note(f"call {params['step']}")
        return original(**params)

    tools.get("add").runner = dataclasses.replace(tools.get("add").runner, func=logged)
    serve_queue(PlanStore(location), tools, concurrency=2, beat=0.2)  # until killed
    return 0

"""Prints what a rehearsal costs beside a real run of the same plan (issue 29, item 6).

    .venv/bin/python benchmarks/rehearsal.py [--steps N]

A chain of N steps of one read-only tool that declares an output schema (each step's argument a
reference to the step before): the real run (``Executor.execute``, the tool a plain function),
the choice of stand-ins alone (``core.stand_ins``: schema samples for every step), and the whole
rehearsal (``core.rehearse``: stand-ins, the stand-in toolset, the same executor). Medians of 5.
"""

from __future__ import annotations

import argparse

from pydantic import BaseModel

from core import READ_ONLY, Executor, Plan, ToolRegistry, rehearse, stand_ins
from _timing import timed


class Hop(BaseModel):
    name: str
    n: int


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    steps = parser.parse_args().steps
    tools = ToolRegistry()

    def hop(name: str) -> Hop:
        """One hop along the chain."""
        return Hop(name=name, n=1)

    tools.register(hop, effects=READ_ONLY)
    plan = Plan.model_validate({"goal": "chain", "steps": [
        {"id": f"s{i}", "tool": "hop", "params": {"name": "start" if i == 0 else f"${{steps.s{i - 1}.name}}"}}
        for i in range(steps)]})
    executor = Executor(tools, approve_writes=False)
    print(f"a chain of {steps} steps")
    timed("real run (Executor.execute)", lambda: executor.execute(plan), repeat=5)
    timed("stand-ins chosen (stand_ins)", lambda: stand_ins(plan, tools), repeat=5)
    timed("rehearsal (rehearse)", lambda: rehearse(plan, tools), repeat=5)


if __name__ == "__main__":
    main()

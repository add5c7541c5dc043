"""Prints what the worst inputs at the bounds of ``core/_limits.py`` cost: small plans that
used to cost something huge (issue 7).

    .venv/bin/python benchmarks/hostile.py [--repeat N]

Figures, not assertions: CPU time (``time.process_time``), median of N.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable

from core import (Executor, Plan, PlanStudioError, Settings, Step, Validator, dump_plan, load_plan,
                  resolve_params)
from core._limits import MAX_REFERENCES_PER_TEXT, MAX_STEPS
from tools import build_registry


def timed(label: str, fn: Callable[[], object], repeat: int) -> None:
    samples = []
    for _ in range(repeat):
        began = time.process_time()
        try:
            fn()
        except PlanStudioError:
            pass  # refusing is the point of some of these
        samples.append(time.process_time() - began)
    print(f"{label:<58} median {1000 * statistics.median(samples):9.3f} ms   n={repeat}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        registry = build_registry(Settings(data_dir=Path(tmp), today=dt.date(2025, 10, 12)))
        validator, executor = Validator(registry), Executor(registry)
        rows = registry.get("shipments_list").call({})["data"]
        value = {"data": rows[:len(rows) * 9000 // len(json.dumps(rows))]}  # about 9,000 characters

        many = " ".join(["${step[0].data}"] * MAX_REFERENCES_PER_TEXT)
        timed(f"resolve {MAX_REFERENCES_PER_TEXT} references to a 9,000-char value",
              lambda: resolve_params({"t": many}, {0: value}), repeat)
        thousand = Plan(steps=[Step(id="a", tool="shipments_list"),
                               Step(id="b", tool="say", params={"message": " ".join(["${step[0].data}"] * 1000)})])
        timed("validate 1,000 references in one text (refused)", lambda: validator.validate(thousand), repeat)

        long_plan = Plan(steps=[Step(id=f"s{n}", tool="say", params={"message": many if n else "x"})
                                for n in range(MAX_STEPS)])
        timed(f"run {MAX_STEPS} steps of {MAX_REFERENCES_PER_TEXT} references each",
              lambda: executor.execute(long_plan), max(1, repeat // 2))

        timed(f"export {MAX_STEPS} steps of {MAX_REFERENCES_PER_TEXT} references each as SK",
              lambda: dump_plan(long_plan, "sk"), repeat)
        timed("load SK: 40 comments before stray text",
              lambda: load_plan("<!--a-->" * 40 + "x<plan><function.P.say message='hi'/></plan>", "sk"), repeat)
        timed("load SK: 20,000 spaces before stray text",
              lambda: load_plan(" " * 20_000 + "x<plan><function.P.say message='hi'/></plan>", "sk"), repeat)
        deep = '{"steps": [{"tool": "say", "params": {"message": ' + "[" * 100_000 + "]" * 100_000 + "}}]}"
        timed("load native: 100,000 levels of nesting (refused)", lambda: load_plan(deep), repeat)


if __name__ == "__main__":
    main()

"""Prints how fast the offline path is: plan, validate, run, save, load.

    .venv/bin/python benchmarks/bench.py [--repeat N]

Figures, not assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from core import Executor, Plan, PlanFormatError, Run, Settings, Step, Validator
from core.formats import plan_from_seed
from core.planners import EmbeddedPlanner
from core.planners.llm._reply import MAX_REPLY_CHARS, extract_plan_json
from core.storage import PlanStore
from tools import build_registry

from _timing import timed

GOALS = [
    "Get contaminated shipments from Berlin facilities",
    "Get failed inspections at landfills in Munich last month",
    "Get pending shipments going to Leipzig carried by GreenLine, first 20",
    "Get shipments, facilities, and inspections",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    repeat = parser.parse_args().repeat
    today = dt.date(2025, 10, 12)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), today=today)
        began = time.perf_counter()
        registry = build_registry(settings)
        registry.get("facilities_list").call({})  # generates the demo database
        print(f"{'registry + demo data (cold)':<34} {1000 * (time.perf_counter() - began):8.3f} ms")
        planner = EmbeddedPlanner(registry)
        validator = Validator(registry)
        executor = Executor(registry)
        store = PlanStore(Path(tmp) / "bench.sqlite3")
        plans = [planner.plan(g, today=today) for g in GOALS]
        timed("plan (embedded, 4 goals)", lambda: [planner.plan(g, today=today) for g in GOALS], repeat)
        # A 2,000-character goal that is mostly one run of spaces: segments were cut in its length squared.
        spaced = "shipments not" + " " * 1970 + "rejected"
        timed("plan (2,000 chars, one space run)", lambda: planner.plan(spaced, today=today), max(3, repeat // 10))
        timed("validate (4 plans)", lambda: [validator.validate(p) for p in plans], repeat)
        # Ten steps that all depend on each other: over a million simple cycles, one problem.
        ids = [f"s{n}" for n in range(10)]
        tangle = Plan(steps=[Step(id=i, tool="facilities_list", depends_on=[d for d in ids if d != i]) for i in ids])
        timed("validate (10-step cycle)", lambda: validator.validate(tangle), repeat)
        timed("run all (4 plans)", lambda: [executor.execute(p) for p in plans], repeat)
        # A long plan: the executor's own work per step must not grow with the plan.
        long_plan = plan_from_seed({"steps": [{"tool": "facilities_list", "params": {}}] * 300})
        timed("run all (300 steps, no validation)", lambda: list(executor.run_all(Run.for_plan(long_plan))),
              max(3, repeat // 10))
        saved = store.save_plan(plans[0])
        timed("save new version", lambda: store.save_plan(plans[0].model_copy(update={"goal": str(time.perf_counter())}),
                                                          plan_id=saved.plan_id), repeat)
        timed("load latest version", lambda: store.load_plan(saved.plan_id), repeat)
        run = executor.execute(plans[0])
        timed("save run", lambda: store.save_run(run, plan_id=saved.plan_id, version=1), repeat)
        # What a shell user waits for: a whole `plan-studio plan` process, imports included.
        command = [str(Path(sys.executable).with_name("plan-studio")), "plan", GOALS[0],
                   "--data-dir", tmp, "--today", today.isoformat()]
        timed("plan-studio plan (a process)", lambda: subprocess.run(command, check=True, capture_output=True),
              max(3, repeat // 10))

    parse_pathological(max(3, repeat // 10))


# Model replies that once took seconds to refuse (an unclosed bracket was re-read from every
# later bracket), or raised RecursionError; each is now refused in one pass.
PATHOLOGICAL_REPLIES = {
    "20,000 '{'": "{" * 20_000,  # took 10 s or more before
    "100,000 '['": "[" * 100_000,
    "50,000 '{]'": "{]" * 50_000,
    "19,000 ``` fences": "```json\n{\n" * 19_000,
    "5,000 deep": "[" * 5_000 + "]" * 5_000,
    "200,000 '{' (the limit)": "{" * MAX_REPLY_CHARS,
}


def parse_pathological(repeat: int) -> None:
    def refuse(text: str) -> None:
        try:
            extract_plan_json(text)
        except PlanFormatError:
            return
        raise AssertionError("a pathological reply was read as a plan")

    for name, text in PATHOLOGICAL_REPLIES.items():
        timed(f"parse {name}", lambda: refuse(text), repeat)


if __name__ == "__main__":
    main()

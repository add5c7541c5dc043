"""The Lab on a big goal set: wall and CPU time of ``run_experiment`` with the embedded planner
over N goals (the 17 seed goals repeated, each with its expected plan), and the memory its
results hold (tracemalloc's peak while they are kept, and their size at the end).

Usage: ``python benchmarks/lab_goal_set.py [N]`` (default 500).
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core import Settings, ToolOverride  # noqa: E402
from core.formats import plan_from_seed  # noqa: E402
from core.lab import Experiment, LabGoal, run_experiment  # noqa: E402
from core.planners import EmbeddedPlanner  # noqa: E402
from tools import build_registry  # noqa: E402


def main(count: int) -> None:
    seed = json.loads((ROOT / "docs" / "acceptance" / "seed_examples.json").read_text())
    today = dt.date.fromisoformat(seed["today"])
    cases = [LabGoal(c["goal"], plan_from_seed(c["plan"], goal=c["goal"])) for c in seed["cases"]]
    goals = [cases[i % len(cases)] for i in range(count)]
    registry = build_registry(Settings(data_dir=tempfile.mkdtemp(), today=today), groups=["waste"])
    experiment = Experiment(overrides={"facilities_list": ToolOverride(params={"location": "Where the facility is."})},
                            goals=goals)
    tracemalloc.start()
    wall, cpu = time.perf_counter(), time.process_time()
    results = list(run_experiment(experiment, registry, EmbeddedPlanner, today=today))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    differ = sum(r.differs for r in results)
    exact = sum(bool(r.original.match and r.original.match.exact) for r in results)
    print(f"{count} goals: {wall:.1f} s wall, {cpu:.1f} s CPU ({1000 * wall / count:.1f} ms a goal, both variants); "
          f"{differ} planned differently; original words matched {exact} of {count} expected plans")
    print(f"memory: results and caches {kept / 1e6:.1f} MB kept at the end, {peak / 1e6:.1f} MB at the peak")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)

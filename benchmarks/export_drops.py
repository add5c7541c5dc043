"""What saying what an export dropped costs: each format's plain dump against ``export_plan``
(dump, read back, compare), for a chain of demo-tool steps with notes and path references.

    .venv/bin/python benchmarks/export_drops.py [--steps 1000] [--repeat 3]

Figures, not assertions: the best of ``--repeat`` runs, CPU time, per format.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import FORMATS, Plan, Settings, Step, dump_plan  # noqa: E402
from core.formats import export_plan  # noqa: E402
from tools import build_registry  # noqa: E402


def best(repeat: int, call) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    registry = build_registry(Settings(data_dir=Path(tempfile.mkdtemp()), today=dt.date(2025, 10, 12)))
    plan = Plan(goal="a chain", steps=[
        Step(id=f"x{n}", tool="shipments_list", note=f"note {n}",
             params={"facility_id": f"${{steps.x{n - 1}.data.*.id}}" if n else "F1", "limit": 5})
        for n in range(args.steps)])
    print(f"{args.steps} steps; CPU ms, best of {args.repeat}")
    for name in FORMATS:
        dump = best(args.repeat, lambda: dump_plan(plan, name, registry))
        export = best(args.repeat, lambda: export_plan(plan, name, registry))
        print(f"  {name:12} dump {dump:7.1f}   export_plan {export:7.1f}   "
              f"notices: {len(export_plan(plan, name, registry).dropped)}")


if __name__ == "__main__":
    main()

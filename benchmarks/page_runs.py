"""What a durable run from the Plan page costs (issue 17, item 2), beside the same plan run in
memory.

    .venv/bin/python benchmarks/page_runs.py [--steps 200] [--repeat 5]

A chain of ``--steps`` ``say`` steps (the demo tools) is approved and run the way the page
does (``workbench.request_run``: saved as a version, a durable run in the store from its first
step, each step written as it starts and ends) until the workbench has collected it; then the
same plan by ``core.Executor`` alone, in memory. Prints medians: wall time and this process's
CPU time. Figures, not assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

# This folder holds a studio.py of its own, which would shadow the studio package.
_ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(_ROOT))

from core import Plan, Settings, Step  # noqa: E402
from studio import workbench as wb  # noqa: E402
from studio.workbench._services import build_services  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    plan = Plan(goal=f"{args.steps} steps", steps=[
        Step(id=f"s{n}", tool="say", params={"message": f"step {n}"}, depends_on=[f"s{n - 1}"] if n else [])
        for n in range(args.steps)])
    with tempfile.TemporaryDirectory() as folder:
        services = build_services(Settings(data_dir=Path(folder) / "data"))
        durable_wall, durable_cpu, memory_wall, memory_cpu = [], [], [], []
        for _ in range(args.repeat):
            bench = wb.Workbench()
            wb.show_plan(bench, plan, saved=None)
            assert wb.approve(bench, services.validator).ok
            wall, cpu = time.perf_counter(), time.process_time()
            assert wb.request_run(bench, services, "all").ok
            assert bench.worker is not None and bench.worker.join(600)
            wb.collect_finished_run(bench, lambda: services.store)
            durable_wall.append(time.perf_counter() - wall)
            durable_cpu.append(time.process_time() - cpu)
            assert bench.run is not None and bench.run.status == "succeeded"
            wall, cpu = time.perf_counter(), time.process_time()
            services.executor.execute(plan)
            memory_wall.append(time.perf_counter() - wall)
            memory_cpu.append(time.process_time() - cpu)
    print(f"{args.steps}-step chain, medians of {args.repeat}:")
    print(f"  the page's run path (durable, stored as it goes): wall {statistics.median(durable_wall):.3f} s, "
          f"CPU {statistics.median(durable_cpu):.3f} s")
    print(f"  core.Executor in memory:                          wall {statistics.median(memory_wall):.3f} s, "
          f"CPU {statistics.median(memory_cpu):.3f} s")


if __name__ == "__main__":
    main()

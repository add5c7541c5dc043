"""Prints what a rerun's preview and the Library's lineage cost on a long plan (issue 17, item 3).

    .venv/bin/python benchmarks/rerun_preview.py [--steps N] [--reruns K]

A chain of N read-only steps, one finished run of it stored, K reruns linked to it: the preview
of a rerun from the middle step (``workbench.preview_rerun``: load the run, choose the steps,
label them) and the Library's histories of the plan (``PlanStore.histories``, which labels the
step each rerun started from). Wall-time medians of 5, in a throwaway data folder.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

# Run as a script, this folder (with its own studio.py) would hide the project's packages.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import READ_ONLY, Plan, Run, Settings, Step, StepStatus, ToolRegistry  # noqa: E402
from studio import workbench as wb  # noqa: E402
from studio.workbench._services import build_services  # noqa: E402


def _median_ms(action: Callable[[], object], times: int = 5) -> float:
    spent = []
    for _ in range(times):
        began = time.perf_counter()
        action()
        spent.append(time.perf_counter() - began)
    return statistics.median(spent) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--reruns", type=int, default=50)
    args = parser.parse_args()
    tools = ToolRegistry()

    def fetch(value: int) -> int:
        """Fetch a number.

        Args:
            value: A number.
        """
        return value + 1

    tools.register(fetch, effects=READ_ONLY)
    plan = Plan(goal="chain", steps=[Step(id="s0", tool="fetch", params={"value": 0})] + [
        Step(id=f"s{i}", tool="fetch", params={"value": f"${{steps.s{i - 1}}}"}) for i in range(1, args.steps)])
    services = build_services(Settings(data_dir=Path(tempfile.mkdtemp()) / "data", approve_writes=False),
                              registry=tools)
    store = services.store
    version = store.save_plan(plan)
    parent = Run.for_plan(plan)
    for state in parent.steps.values():
        state.status, state.result = StepStatus.succeeded, 1
    parent.started_at = parent.finished_at = dt.datetime.now(dt.timezone.utc)
    store.save_run(parent, plan_id=version.plan_id, version=version.version)
    for n in range(args.reruns):
        rerun = Run.for_plan(plan)
        store.save_run(rerun, plan_id=version.plan_id, version=version.version)
        store.records.link(rerun.id, parent_id=parent.id, rerun_from=f"s{n % args.steps}")
    import core.durable  # noqa: F401  (DBOS, imported once: about 1.5 s, not the preview's)

    middle = f"s{args.steps // 2}"
    print(f"preview of a rerun from the middle of a {args.steps}-step chain: "
          f"{_median_ms(lambda: wb.preview_rerun(services, parent.id, from_step=middle)):.0f} ms")
    print(f"Library histories of that plan with {args.reruns + 1} runs, {args.reruns} of them reruns: "
          f"{_median_ms(lambda: store.histories([version.plan_id])):.0f} ms")


if __name__ == "__main__":
    main()

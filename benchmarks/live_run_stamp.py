"""What a page pays to notice that a run moved elsewhere (issue 29, item 3).

    .venv/bin/python benchmarks/live_run_stamp.py [--steps 300] [--repeat 50]

A run of ``--steps`` read-only steps (each result 20 rows of about 200 characters) is stored in a
fresh SQLite store; then, ``--repeat`` times each: the run's stamp (what a page showing a run not
over reads every half second, ``RunRecords.stamp``), the whole run (what it reads only when the
stamp moved), the count of runs waiting (the navigation's, every page draw) and the runs of a
version not over (what Run asks first). Prints the mean wall time of each. Figures, not
assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]  # this folder holds a studio.py of its own
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(_ROOT))

from core import READ_ONLY, Executor, ToolRegistry  # noqa: E402
from core.formats import plan_from_seed  # noqa: E402
from core.storage import PlanStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    registry = ToolRegistry()

    def echo(n: int) -> dict:
        """Echo a number as rows.

        Args:
            n: A number.
        """
        return {"rows": [{"n": n, "text": "x" * 200} for _ in range(20)]}

    registry.register(echo, effects=READ_ONLY)
    plan = plan_from_seed({"steps": [{"tool": "echo", "params": {"n": i}} for i in range(args.steps)]})
    executor = Executor(registry)
    run = executor.start(plan)
    list(executor.run_all(run))
    with tempfile.TemporaryDirectory() as folder, PlanStore(Path(folder) / "studio.sqlite3") as store:
        version = store.save_plan(plan)
        store.save_run(run, plan_id=version.plan_id, version=version.version)
        for name, call in (("stamp", lambda: store.records.stamp(run.id)), ("load_run", lambda: store.load_run(run.id)),
                           ("waiting_count", store.records.waiting_count),
                           ("unfinished", lambda: store.records.unfinished(version.plan_id, version.version,
                                                                           ("running", "waiting")))):
            call()
            started = time.perf_counter()
            for _ in range(args.repeat):
                call()
            print(f"{name:>14}: {(time.perf_counter() - started) / args.repeat * 1000:.2f} ms ({args.steps} steps)")


if __name__ == "__main__":
    main()

"""A process that runs a plan the way the Plan page does (``workbench.request_run``: the
studio's run path, durable), for a test that kills it with SIGKILL mid-run.

    python tests/page_run_child.py DATA_DIR SHAPE LOG     # prints the run id, then runs it

SHAPE and LOG as in ``durable_child``: every tool call logs ``start <step>`` and ``end <step>``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import durable_child
from core import Settings
from studio import workbench as wb
from studio.workbench._services import Services, build_services
from workbench_helpers import TODAY


def services_for(data_dir: Path, log: Path) -> Services:
    """The studio's services over ``data_dir`` with the child's logging tools."""
    return build_services(Settings(data_dir=data_dir, today=TODAY, approve_writes=False),
                          registry=durable_child.registry(log))


def main(argv: list[str]) -> int:
    data_dir, shape, log = Path(argv[0]), argv[1], Path(argv[2])
    services = services_for(data_dir, log)
    bench = wb.Workbench()
    wb.show_plan(bench, durable_child.plan(shape), saved=None)
    assert wb.approve(bench, services.validator).ok
    assert wb.request_run(bench, services, "all").ok
    print(bench.worker.progress().run_id, flush=True)
    bench.worker.join()
    wb.collect_finished_run(bench, lambda: services.store)
    print(bench.run.status, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

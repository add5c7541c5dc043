"""What the workbench tests share: services over a real store in a folder, and notice texts."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from core import Settings
from studio import workbench as wb
from studio.workbench._services import Services, build_services

TODAY = dt.date(2025, 10, 12)
GOAL = "Get contaminated shipments from Berlin facilities"


def demo_services(folder: Path) -> Services:
    """The demo tools, the embedded planner and a store file in ``folder``, as the CLI builds them."""
    return build_services(Settings(data_dir=folder / "data", today=TODAY))


def texts(out: wb.Outcome) -> list[str]:
    return [n.text for n in out.notices]


def run_until_a_marked_step_waits(services: Services, position: int = 1) -> tuple[wb.Workbench, str]:
    """The demo plan (read-only tools; its step 1 uses step 0's result), approved, with the step
    at ``position`` marked "ask first", run until that step waits; the run back in the bench."""
    bench = wb.Workbench()
    assert wb.plan_goal(bench, services, GOAL).ok
    assert wb.approve(bench, services.validator).ok
    marked = bench.plan.steps[position].id
    assert wb.set_ask_first(bench, [marked]).ok
    assert wb.is_approved(bench, bench.plan), "marking a step is review metadata: approval stands"
    assert wb.request_run(bench, services, "all").ok
    assert bench.worker is not None and bench.worker.join(timeout=60)
    wb.collect_finished_run(bench, lambda: services.store)
    return bench, marked

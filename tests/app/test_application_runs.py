"""The workbench's run, open and delete use cases: a real store in tmp_path, the demo tools, no Streamlit."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import StepStatus, load_plan
from studio import workbench as wb
from studio.workbench._services import Services
from studio.workbench import Workbench
from workbench_helpers import GOAL, demo_services, texts


@pytest.fixture
def services(tmp_path: Path) -> Services:
    return demo_services(tmp_path)


def _approved(services: Services) -> Workbench:
    bench = Workbench()
    assert wb.plan_goal(bench, services, GOAL).ok
    assert len(bench.plan.steps) >= 2
    assert wb.approve(bench, services.validator).ok
    return bench


def _finish(bench: Workbench, services: Services) -> wb.Outcome:
    assert bench.worker is not None and bench.worker.join(timeout=60)
    return wb.collect_finished_run(bench, lambda: services.store)


def test_run_next_step_runs_one_step_and_carries_on_from_there(services: Services) -> None:
    bench = _approved(services)
    assert wb.request_run(bench, services, "next").ok
    _finish(bench, services)
    first, second = (s.id for s in bench.plan.steps[:2])
    assert bench.run.steps[first].status == StepStatus.succeeded
    assert bench.run.steps[second].status == StepStatus.pending
    run_id = bench.run.id
    assert wb.request_run(bench, services, "next").ok
    _finish(bench, services)
    assert bench.run.id == run_id and bench.run.steps[second].status == StepStatus.succeeded


def test_after_a_finished_run_next_step_asks_before_a_new_run(services: Services) -> None:
    bench = _approved(services)
    assert wb.request_run(bench, services, "all").ok
    _finish(bench, services)
    finished = bench.run
    asked = wb.request_run(bench, services, "next")
    assert not asked.ok and bench.confirm_new_run == "next" and bench.worker is None
    assert wb.cancel_new_run(bench).ok and bench.confirm_new_run is None and bench.run is finished
    wb.request_run(bench, services, "next")
    assert wb.confirm_new_run(bench, services).ok
    _finish(bench, services)
    assert bench.run.id != finished.id


class _HeldRun:
    """A run handle that stays alive until released: what a run in progress looks like to the
    workbench, without timing (the seam ``_run_handle`` is what a real runner plugs into)."""

    def __init__(self, run) -> None:
        self.run, self.error, self.alive, self.stopped = run, None, True, False

    def stop(self) -> None:
        self.stopped = True

    def join(self, timeout: float | None = None) -> bool:
        return not self.alive

    def progress(self):  # not drawn here
        raise NotImplementedError


def test_an_edit_during_a_run_waits_in_the_plan_json_and_is_applied_after(services: Services) -> None:
    bench = _approved(services)
    running = bench.plan
    handle = bench.worker = _HeldRun(services.executor.start(running))
    refused = wb.request_run(bench, services, "all")
    assert texts(refused) == [f"{wb.RUN_IN_PROGRESS} before you start another run."]
    out, edited = wb.apply_edit(bench, "keep one step", lambda p: p.model_copy(update={"steps": p.steps[:1]}))
    assert edited is not None and bench.json_pending and bench.plan == running
    assert texts(out) == [wb.PENDING_EDIT] and wb.json_blocker(bench) is not None
    assert "wait" in texts(wb.apply_pending_edit(bench))[0]
    assert wb.not_saved(bench) == "an edit you made during the run waits in the Plan JSON"
    assert wb.stop_run(bench).ok and handle.stopped
    handle.alive = False
    assert wb.collect_finished_run(bench, lambda: services.store).ok and bench.worker is None
    applied = wb.apply_pending_edit(bench)
    assert texts(applied)[-1] == "Your edit made during the run is applied. Approve the plan to run it."
    assert len(bench.plan.steps) == 1 and not bench.json_pending and not wb.is_approved(bench)


def test_a_saved_run_opens_with_its_plan_and_a_deleted_plan_leaves_an_unsaved_copy(services: Services) -> None:
    bench = _approved(services)
    assert wb.save(bench, services.store).ok
    assert wb.request_run(bench, services, "all").ok
    _finish(bench, services)
    plan_id, run_id = bench.saved.plan_id, bench.run.id
    other = Workbench()
    opened = wb.open_saved_plan(other, services, plan_id)
    assert opened.ok and other.run.id == run_id and other.run_saved == run_id
    assert texts(opened) == [f"Opened version 1 of this plan. Its latest run is shown below ({bench.run.status})."]
    assert load_plan(other.panel_text, "native") == other.plan == bench.plan
    again = Workbench()
    assert wb.open_saved_run(again, services, plan_id, 1, run_id).ok and again.run.id == run_id
    deleted = wb.delete_saved_plan(other, services.store, plan_id, GOAL)
    assert texts(deleted) == [f"Deleted “{GOAL}” with its versions and runs."]
    assert other.saved is None and other.plan == bench.plan
    missing = wb.open_saved_plan(Workbench(), services, plan_id)
    assert not missing.ok and texts(missing)[0].startswith("Could not open the plan")


def test_a_run_left_running_in_the_store_opens_as_interrupted(services: Services) -> None:
    bench = _approved(services)
    run = services.executor.start(bench.plan)
    first = bench.plan.steps[0].id
    cut = run.model_copy(update={"steps": {**run.steps, first: run.steps[first].model_copy(
        update={"status": StepStatus.running})}})
    assert wb.settled_run(cut).steps[first].status == StepStatus.interrupted

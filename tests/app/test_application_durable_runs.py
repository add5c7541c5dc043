"""Issue 17, items 2 and 4, for the Plan page's run path (the workbench, no Streamlit): every run
started there is a durable run, in the store from its first step; Run next step runs one step of
it per click; Cancel marks the running steps cancelled and keeps what finished; a run cut off
opens as interrupted, says which steps run again (writing ones marked, steps in doubt asked
about) and Resume finishes it without running a finished step again. A real store in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import Actor, Plan, Role, Settings, StepStatus
from durable_page_helpers import PLAN, WAIT, Gate, cut_off_at_b, tools_for
from studio import workbench as wb
from studio.workbench._services import Services, build_services
from workbench_helpers import GOAL, TODAY, demo_services, texts

@pytest.fixture
def gate() -> Gate:
    made = Gate()
    yield made
    made.release.set()  # a call abandoned by a cancel ends


@pytest.fixture
def services(tmp_path: Path, gate: Gate) -> Services:
    return build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=False),
                          registry=tools_for(gate))


def _approved(services: Services, plan: Plan = PLAN) -> wb.Workbench:
    bench = wb.Workbench()
    wb.show_plan(bench, plan, saved=None)
    assert wb.approve(bench, services.validator).ok
    return bench


def _finish(bench: wb.Workbench, services: Services) -> wb.Outcome:
    assert bench.worker is not None and bench.worker.join(timeout=WAIT)
    return wb.collect_finished_run(bench, lambda: services.store)


def _statuses(services: Services, run_id: str) -> dict[str, str]:
    return {s.step_id: s.status.value for s in services.store.load_run(run_id).steps.values()}


def test_a_run_from_the_page_is_in_the_store_from_its_first_step_its_unsaved_plan_saved_first(
        services: Services, gate: Gate) -> None:
    bench = _approved(services)
    started = wb.request_run(bench, services, "all")
    assert started.ok
    assert any("Saved as version 1" in text for text in texts(started)), texts(started)
    assert bench.saved is not None and bench.saved.version == 1
    assert gate.entered.wait(WAIT)
    run_id = bench.worker.progress().run_id
    stored = services.store.load_run(run_id)  # while the run goes on
    assert stored.steps["a"].status == StepStatus.succeeded and stored.steps["a"].result == 1
    assert stored.steps["b"].status == StepStatus.running and stored.steps["b"].arguments == {"value": 1}
    assert stored.steps["b"].started_at is not None and stored.steps["c"].status == StepStatus.pending
    assert services.store.latest_run_id(bench.saved.plan_id, 1) == run_id
    gate.release.set()
    _finish(bench, services)
    assert bench.run.id == run_id and bench.run_saved == run_id and bench.run.finished
    stored = services.store.load_run(run_id)
    assert stored.finished and stored.steps["c"].result == 3 and stored.steps["b"].duration_ms is not None


def test_run_next_step_runs_one_step_per_click_of_one_stored_run(tmp_path: Path) -> None:
    services = demo_services(tmp_path)
    bench = wb.Workbench()
    assert wb.plan_goal(bench, services, GOAL).ok and wb.approve(bench, services.validator).ok
    first, second, *rest = (s.id for s in bench.plan.steps)
    assert wb.request_run(bench, services, "next").ok
    _finish(bench, services)
    run_id = bench.run.id
    assert _statuses(services, run_id)[first] == "succeeded" and _statuses(services, run_id)[second] == "pending"
    assert wb.request_run(bench, services, "next").ok
    _finish(bench, services)
    assert bench.run.id == run_id
    assert _statuses(services, run_id)[second] == "succeeded"
    assert all(_statuses(services, run_id)[step] == "pending" for step in rest)


def test_cancel_marks_the_running_step_cancelled_and_keeps_what_finished(services: Services, gate: Gate) -> None:
    bench = _approved(services)
    assert wb.request_run(bench, services, "all").ok
    assert gate.entered.wait(WAIT)
    run_id = bench.worker.progress().run_id
    assert wb.cancel_run(bench).ok
    _finish(bench, services)
    assert bench.run.steps["b"].status == StepStatus.cancelled and bench.run.steps["a"].result == 1
    assert _statuses(services, run_id) == {"a": "succeeded", "b": "cancelled", "c": "pending"}
    assert services.store.load_run(run_id).steps["a"].result == 1
    assert not bench.run.finished and bench.run.status == "cancelled"


def test_a_run_cut_off_opens_interrupted_says_what_runs_again_and_resume_asks_about_a_writing_step(
        services: Services, gate: Gate) -> None:
    run_id, plan_id = cut_off_at_b(services)
    bench = wb.Workbench()
    assert wb.open_saved_run(bench, services, plan_id, 1, run_id).ok
    assert bench.run.status == "interrupted"
    view = wb.resume_view(bench, services)
    assert view is not None
    assert [(line.step_id, line.writes, line.in_doubt) for line in view.again] == [("b", True, True),
                                                                                 ("c", False, False)]
    assert view.kept == ["a"]
    refused = wb.resume_run(bench, services, {})
    assert not refused.ok and bench.worker is None
    assert "step 1 (hold)" in texts(refused)[0] and "run again or mark failed" in texts(refused)[0]
    gate.release.set()
    assert wb.resume_run(bench, services, {"b": "again"}).ok
    _finish(bench, services)
    assert bench.run.finished and bench.run.steps["c"].result == 3
    assert gate.calls == ["hold 1", "count 2"], "a finished before the kill: not run again"
    assert bench.run.steps["a"].result == 1


def test_a_step_in_doubt_marked_failed_is_not_called_and_its_dependants_are_skipped(
        services: Services, gate: Gate) -> None:
    run_id, plan_id = cut_off_at_b(services)
    bench = wb.Workbench()
    assert wb.open_saved_run(bench, services, plan_id, 1, run_id).ok
    assert wb.resume_run(bench, services, {"b": "failed"}).ok
    _finish(bench, services)
    assert gate.calls == []
    assert _statuses(services, run_id) == {"a": "succeeded", "b": "failed", "c": "skipped"}
    assert wb.resume_view(bench, services) is None, "a finished run has nothing to resume"


def test_a_wait_for_a_person_survives_a_restart_and_a_decision_over_the_api_carries_the_run_on(
        services: Services, gate: Gate) -> None:
    gate.release.set()
    marked = PLAN.model_copy(update={"steps": [*PLAN.steps[:2], PLAN.steps[2].model_copy(update={"ask_first": True})]})
    bench = _approved(services, marked)
    assert wb.request_run(bench, services, "all").ok
    _finish(bench, services)
    run_id = bench.run.id
    assert _statuses(services, run_id) == {"a": "succeeded", "b": "succeeded", "c": "waiting"}
    services.runs.forget_held()  # the studio restarts: nothing in memory
    waiting = wb.waiting_run(services, run_id)  # what the review API's GET .../waiting reads
    assert waiting is not None and [w.step_id for w in wb.waiting_view(waiting, services.registry)] == ["c"]
    shown = wb.waiting_view(waiting, services.registry)[0]
    approver = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)
    assert wb.decide_step(services, run_id, "c", True, actor=approver, channel="api", seen_hash=shown.shown_hash).ok
    # Nothing else waits: the stored run goes on in the studio, with the decision kept with it.
    assert wb.join_stored_run(services, run_id, timeout=60)
    stored = services.store.load_run(run_id)
    assert stored.steps["c"].decision.approved and stored.finished and stored.steps["c"].result == 3
    page = wb.Workbench()  # a page opening it later sees it finished
    plan_id, version = services.store.records.where(run_id)
    assert wb.open_saved_run(page, services, plan_id, version, run_id).ok
    assert page.run.finished and page.run.steps["c"].result == 3
    assert gate.calls == ["count 0", "hold 1", "count 2"], "nothing ran twice"

"""Issue 17, item 5 (workbench, no Streamlit): a step waits for a person; the one use case
``decide_step`` approves or rejects it, from the page's workbench or by run id (API, MCP)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import Actor, Role, Settings, StepStatus
from studio import workbench as wb
from studio.workbench._services import Services, build_services
from studio.workbench import Workbench
from workbench_helpers import TODAY, run_until_a_marked_step_waits, texts

ANN = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)


@pytest.fixture
def services(tmp_path: Path) -> Services:
    return build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=True))


def _finish(bench: Workbench, services: Services) -> wb.Outcome:
    assert bench.worker is not None and bench.worker.join(timeout=60)
    return wb.collect_finished_run(bench, lambda: services.store)


def test_a_marked_step_waits_and_the_page_sees_its_resolved_arguments(services: Services) -> None:
    bench, marked = run_until_a_marked_step_waits(services)
    assert bench.run.steps[marked].status == StepStatus.waiting
    [waiting] = wb.waiting_view(bench.run, services.registry)
    assert waiting.step_id == marked and waiting.effects == "read-only"
    assert waiting.arguments == bench.run.steps[marked].arguments and "${" not in str(waiting.arguments)
    assert "the reviewer asked" in waiting.reason
    assert services.runs.held(bench.run.id) is bench.run


def test_approving_on_the_page_goes_on_with_the_run(services: Services) -> None:
    bench, marked = run_until_a_marked_step_waits(services)
    [waiting] = wb.waiting_view(bench.run, services.registry)
    out = wb.decide_step(services, bench.run.id, marked, True, actor=ANN, channel="page", seen_hash=waiting.shown_hash,
                         bench=bench)
    assert out.ok, texts(out)
    _finish(bench, services)
    assert bench.run.finished and bench.run.steps[marked].status == StepStatus.succeeded
    assert bench.run.steps[marked].arguments == waiting.arguments
    assert bench.run.steps[marked].decision.by == "page"


def test_a_decision_by_run_id_is_kept_and_carries_the_run_on(services: Services) -> None:
    """Decided from elsewhere (the review API, MCP), with nothing else waiting, the stored run
    goes on in the studio: nobody has to press Run all."""
    bench, marked = run_until_a_marked_step_waits(services, position=0)
    [waiting] = wb.waiting_view(bench.run, services.registry)
    out = wb.decide_step(services, bench.run.id, marked, False, actor=ANN, channel="api", seen_hash=waiting.shown_hash)
    assert out.ok and "the run goes on in the studio" in texts(out)[-1], texts(out)
    assert wb.join_stored_run(services, bench.run.id, timeout=60)
    stored = services.store.load_run(bench.run.id)
    after = stored.steps[bench.plan.steps[1].id]
    assert stored.finished and stored.steps[marked].status == StepStatus.rejected
    assert stored.steps[marked].decision is not None and stored.steps[marked].decision.by == "api"
    assert after.status == StepStatus.skipped
    assert "depends on step 0 (facilities_list), which did not succeed" in after.error


def test_a_decision_on_what_does_not_wait_says_why(services: Services) -> None:
    bench, marked = run_until_a_marked_step_waits(services)
    stale = wb.decide_step(services, bench.run.id, marked, True, actor=ANN, channel="api", seen_hash="0" * 64)
    assert not stale.ok and "arguments changed since they were shown" in texts(stale)[0]
    first = bench.plan.steps[0].id
    [waiting] = wb.waiting_view(bench.run, services.registry)
    seen = dict(actor=ANN, channel="api", seen_hash=waiting.shown_hash)
    assert "is not waiting" in texts(wb.decide_step(services, bench.run.id, first, True, **seen))[0]
    assert "No run 'nope'" in texts(wb.decide_step(services, "nope", marked, True, **seen))[0]
    unnamed = wb.decide_step(services, bench.run.id, marked, True, actor=ANN, channel="api", seen_hash="")
    assert not unnamed.ok and unnamed.refusal == "unnamed" and unnamed.field == "shown_hash"
    assert bench.run.steps[marked].status == StepStatus.waiting

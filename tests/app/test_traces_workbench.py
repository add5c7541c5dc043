"""Traces of what the workbench does (core/traces through the hooks it tells): a durable run
(a DBOS workflow) whose step waits, rejected by run id as the review API does, then carried on
by the studio, is one trace: the steps of both passes and the wait under the run's root, the
wait naming who decided and what was shown; and a review decided on the page is a span from
its submission to its decision."""

from __future__ import annotations

from pathlib import Path

import pytest
from opentelemetry.trace import StatusCode

from core import Actor, Role, Settings, dump_plan, traces
from core.formats import plan_from_seed
from studio import workbench as wb
from studio.workbench._services import Services, build_services
from workbench_helpers import TODAY, run_until_a_marked_step_waits, texts

ANN = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)
pytestmark = pytest.mark.usefixtures("stop_durable_runs")



@pytest.fixture
def services(tmp_path: Path) -> Services:
    return build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=True))


def test_a_durable_run_rejected_by_run_id_is_one_trace_with_its_wait(spans, services: Services) -> None:
    bench, marked = run_until_a_marked_step_waits(services, position=0)
    [waiting] = wb.waiting_view(bench.run, services.registry)
    out = wb.decide_step(services, bench.run.id, marked, False, actor=ANN, channel="api", seen_hash=waiting.shown_hash)
    assert out.ok, texts(out)
    assert wb.join_stored_run(services, bench.run.id, timeout=60)
    found = spans.get_finished_spans()
    root = next(s for s in found if s.name == "invoke_agent plan-studio")
    assert root.attributes["plan_studio.run.id"] == bench.run.id and root.attributes["plan_studio.run.status"] == "failed"
    wait = next(s for s in found if s.name.startswith("await_approval "))
    assert wait.attributes["plan_studio.step.id"] == marked and wait.status.status_code == StatusCode.ERROR
    assert wait.attributes["plan_studio.decision.approved"] is False
    assert wait.attributes["plan_studio.decision.actor.id"] == "user:ann"
    assert wait.attributes["plan_studio.decision.actor.kind"] == "person"
    assert wait.attributes["plan_studio.decision.shown_hash"] == waiting.shown_hash
    steps = {s.attributes["plan_studio.step.id"]: s for s in found if s.name.startswith("execute_tool ")}
    after = bench.plan.steps[1].id
    assert steps[after].attributes["plan_studio.step.status"] == "skipped"
    assert all(s.parent.span_id == root.context.span_id for s in [wait, *steps.values()])
    assert {s.context.trace_id for s in found if s.name != "invoke_agent embedded"} == {root.context.trace_id}


def test_a_review_decided_is_a_span_from_its_submission(spans, services: Services) -> None:
    plan = plan_from_seed([{"tool": "showList", "params": {"list": "a"}}], goal="a review")
    review = wb.submit_review(services, {"plan": dump_plan(plan, "native"), "format": "native", "agent": "bot"})
    bench = wb.Workbench()
    assert wb.open_review(bench, services.store, review.id).ok
    assert wb.decide_review(bench, services.store, review.id, approve=False, validator=lambda: services.validator,
                            actor=ANN).ok
    [span] = [s for s in spans.get_finished_spans() if s.name == "review"]
    assert span.attributes["plan_studio.review.id"] == review.id and span.attributes["plan_studio.review.agent"] == "bot"
    assert span.attributes["plan_studio.review.status"] == "rejected"
    assert span.attributes["plan_studio.decision.approved"] is False
    assert span.attributes["plan_studio.decision.actor.id"] == "user:ann"
    assert [e.name for e in span.events] == ["plan_studio.review.submitted", "plan_studio.review.decided"]
    assert span.start_time == span.events[0].timestamp <= span.end_time

"""core/traces: the spans of runs, steps, waits, decisions and planning, read back from the
SDK's in-memory exporter: names, the tree (every span of a run under its root, whichever thread
made it), the GenAI attributes, and attributes that stay short, escaped and free of secrets."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from core import (Actor, Executor, PlannerError, Role, RunLimits, RetryableError, RetryPolicy, Settings, StepStatus,
                  ToolRegistry, decide_step, hooks, shown_hash, waiting_steps)
from core import traces
from core.formats import plan_from_seed
from core.planners import make_planner
from core.traces._ids import run_root_span_id, run_trace_id
from tools import build_registry

ANN = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)



def tools(threads: set[str]) -> ToolRegistry:
    registry = ToolRegistry()
    calls: list[int] = []

    @registry.register(effects="read-only")
    def fetch(city: str) -> dict:
        """Fetch a city's rows.

        Args:
            city: The city.
        """
        threads.add(threading.current_thread().name)
        return {"data": [city] * 3}

    @registry.register(effects="read-only", retry=RetryPolicy(max_attempts=3, backoff_seconds=0))
    def flaky(rows: list) -> int:
        """Count rows, failing the first call.

        Args:
            rows: The rows.
        """
        calls.append(1)
        if len(calls) == 1:
            raise RetryableError("busy, try again")
        return len(rows)

    @registry.register(effects="read-only")
    def explode(reason: str) -> int:
        """Always fails.

        Args:
            reason: Why.
        """
        raise RuntimeError(reason)

    @registry.register(effects="destructive")
    def refund(order: str) -> str:
        """Refund an order.

        Args:
            order: The order.
        """
        return "refunded"

    return registry


def by_name(exporter: InMemorySpanExporter) -> dict[str, Any]:
    return {span.name: span for span in exporter.get_finished_spans()}


def test_a_run_is_one_trace_its_steps_under_its_root_made_on_whatever_thread(spans) -> None:
    threads: set[str] = set()
    plan = plan_from_seed([{"tool": "fetch", "params": {"city": "Berlin"}},
                           {"tool": "fetch", "params": {"city": "Paris"}},
                           {"tool": "flaky", "params": {"rows": "${step[0].data}"}, "depends_on": [0]},
                           {"tool": "explode", "params": {"reason": "no luck"}}], goal="count rows")
    run = Executor(tools(threads)).execute(plan)
    found = spans.get_finished_spans()
    root = next(s for s in found if s.name == "invoke_agent plan-studio")
    assert root.context.trace_id == run_trace_id(run.id) and root.context.span_id == run_root_span_id(run.id)
    assert root.parent is None and root.status.status_code == StatusCode.ERROR  # a step failed
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["plan_studio.run.id"] == run.id and root.attributes["plan_studio.run.status"] == "failed"
    assert root.attributes["plan_studio.run.steps.succeeded"] == 3 and root.attributes["plan_studio.run.steps.failed"] == 1
    steps = [s for s in found if s is not root]
    assert sorted(s.name for s in steps) == ["execute_tool explode", "execute_tool fetch", "execute_tool fetch",
                                             "execute_tool flaky"]
    assert all(s.parent.span_id == root.context.span_id and s.context.trace_id == root.context.trace_id for s in steps)
    assert {s.attributes["plan_studio.step.id"] for s in steps} == set(run.steps)
    for span in steps:
        state = run.steps[span.attributes["plan_studio.step.id"]]
        assert span.attributes["gen_ai.operation.name"] == "execute_tool"
        assert span.attributes["gen_ai.tool.call.id"] == f"{run.id}/{state.step_id}"
        assert span.attributes["plan_studio.step.status"] == state.status.value
        assert root.start_time <= span.start_time <= span.end_time <= root.end_time
    flaky = next(s for s in steps if s.name == "execute_tool flaky")
    assert flaky.attributes["plan_studio.step.calls"] == 2
    assert [(e.name, e.attributes["plan_studio.attempt"]) for e in flaky.events] == [("plan_studio.retry", 1)]
    assert "busy, try again" in flaky.events[0].attributes["plan_studio.attempt.error"]
    explode = next(s for s in steps if s.name == "execute_tool explode")
    assert explode.status.status_code == StatusCode.ERROR and explode.attributes["error.type"] == "failed"
    assert "no luck" in explode.attributes["plan_studio.step.error"]
    assert not any("Berlin" in str(v) for s in steps for v in s.attributes.values())  # no arguments, no results
    assert threads and threading.current_thread().name not in threads  # the tools ran on other threads


def test_a_wait_for_a_person_names_who_decided_under_which_rule_and_the_hash_of_what_was_shown(spans) -> None:
    registry = tools(set())
    executor = Executor(registry, limits=RunLimits(approve_writes=True))
    run = executor.start(plan_from_seed([{"tool": "refund", "params": {"order": "o1"}}], goal="refund o1"))
    executor.drive(run)
    [step] = waiting_steps(run)
    assert spans.get_finished_spans() == ()  # waiting: no span until the wait ends
    asked_at = run.steps[step].ask.asked_at
    assert asked_at is not None
    seen = shown_hash("refund", run.steps[step].arguments, registry.get("refund").effects.label)
    decision = decide_step(run, step, True, actor=ANN, seen_hash=seen, tool=registry.get("refund"), channel="api")
    hooks.notify("step_decided", run=run, step_id=step, decision=decision)  # as the workbench does once it is kept
    executor.drive(run)
    found = by_name(spans)
    wait, call, root = found["await_approval refund"], found["execute_tool refund"], found["invoke_agent plan-studio"]
    assert wait.parent.span_id == root.context.span_id == call.parent.span_id
    for span in (wait, call):
        assert span.attributes["plan_studio.decision.actor.id"] == "user:ann"
        assert span.attributes["plan_studio.decision.actor.kind"] == "person"
        assert span.attributes["plan_studio.decision.shown_hash"] == seen
        assert span.attributes["plan_studio.decision.approved"] is True
        assert span.attributes["plan_studio.decision.channel"] == "api"
    assert wait.attributes.get("plan_studio.wait.rule") == (run.steps[step].ask.rule or None)
    assert "not read-only" in wait.attributes["plan_studio.wait.reason"] and wait.attributes["plan_studio.wait.approvers"] == 1
    assert wait.start_time == int(asked_at.timestamp() * 1e9) and wait.end_time == int(decision.decided_at.timestamp() * 1e9)
    assert [e.name for e in wait.events] == ["plan_studio.decision"]
    assert run.steps[step].status == StepStatus.succeeded


def test_an_approval_that_does_not_settle_a_step_makes_no_wait_span_yet(spans) -> None:
    registry = tools(set())
    executor = Executor(registry, limits=RunLimits(approve_writes=True))
    run = executor.start(plan_from_seed([{"tool": "refund", "params": {"order": "o1"}}]))
    executor.drive(run)
    [step] = waiting_steps(run)
    run.steps[step].ask.approvers = 2
    seen = shown_hash("refund", run.steps[step].arguments, registry.get("refund").effects.label)
    decision = decide_step(run, step, True, actor=ANN, seen_hash=seen, tool=registry.get("refund"))
    hooks.notify("step_decided", run=run, step_id=step, decision=decision)
    assert spans.get_finished_spans() == ()


def test_planning_is_a_span_with_a_chat_span_per_model_request_and_its_tokens(spans, tmp_path) -> None:
    registry = build_registry(Settings(data_dir="/nonexistent-plan-studio-test", today="2025-10-12"), groups=["lists"])
    log = [{"attempt": 1, "seconds": 0.5, "prompt_tokens": 100, "completion_tokens": 20, "temperature": 0.2,
            "problems": ["step 1: no tool 'nope'"], "problem_count": 1, "repair": "fix it"},
           {"attempt": 2, "seconds": 0.25, "prompt_tokens": 120, "completion_tokens": 30, "temperature": 0.1,
            "problem_count": 0}]
    plan = plan_from_seed([{"tool": "createList", "params": {"list": "a"}}], goal="make a list")
    plan = plan.model_copy(update={"metadata": plan.metadata.model_copy(update={"model": "qwen-small",
                                                                                 "planner_log": log})})
    started = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=1)
    hooks.notify("plan_created", plan=plan, goal=plan.goal, planner="llm", started_at=started)
    found = spans.get_finished_spans()
    planning = next(s for s in found if s.name == "invoke_agent llm")
    chats = sorted((s for s in found if s.name == "chat qwen-small"), key=lambda s: s.start_time)
    assert planning.attributes["gen_ai.request.model"] == "qwen-small" and planning.attributes["plan_studio.plan.attempts"] == 2
    assert planning.attributes["gen_ai.usage.input_tokens"] == 220 and planning.attributes["gen_ai.usage.output_tokens"] == 50
    assert [c.parent.span_id for c in chats] == [planning.context.span_id] * 2
    assert [c.attributes["gen_ai.usage.input_tokens"] for c in chats] == [100, 120]
    assert all(c.attributes["gen_ai.operation.name"] == "chat" for c in chats)
    assert [e.name for e in chats[0].events] == ["plan_studio.repair"] and chats[1].events == ()
    assert chats[0].end_time == chats[1].start_time and chats[1].end_time - chats[0].start_time == 750_000_000
    assert planning.start_time == int(started.timestamp() * 1e9)
    # The embedded planner, through the planner wrapper every caller gets:
    settings = Settings(data_dir=tmp_path, today="2025-10-12")
    make_planner(settings, build_registry(settings, groups=["waste"])).plan(
        "Get contaminated shipments from Berlin facilities", today=dt.date(2025, 10, 12))
    embedded = next(s for s in spans.get_finished_spans() if s.name == "invoke_agent embedded")
    assert embedded.attributes["plan_studio.plan.steps"] >= 1 and embedded.status.status_code == StatusCode.UNSET


def test_a_planner_that_fails_leaves_a_span_saying_why(spans) -> None:
    registry = build_registry(Settings(data_dir="/nonexistent-plan-studio-test", today="2025-10-12"), groups=["lists"])
    planner = make_planner(Settings(data_dir="/nonexistent-plan-studio-test", today="2025-10-12"), registry)
    with pytest.raises(PlannerError):
        planner.plan("", today=dt.date(2025, 10, 12))
    [span] = spans.get_finished_spans()
    assert span.name == "invoke_agent embedded" and span.status.status_code == StatusCode.ERROR
    assert span.attributes["error.type"] == "PlannerError"


def test_attributes_are_short_escaped_and_masked(spans) -> None:
    goal = "refund \x1b[31mall\n" + "x" * 5000 + " sk-abcdefghijklmnop Bearer tok123 https://bob:hunter2@example.com"
    plan = plan_from_seed([{"tool": "explode", "params": {"reason": "key sk-abcdefghijklmnop " + "y" * 5000}}], goal=goal[:4000])
    plan = plan.model_copy(update={"goal": goal})
    Executor(tools(set())).execute(plan)
    for span in spans.get_finished_spans():
        for value in span.attributes.values():
            if isinstance(value, str):
                assert len(value) <= 256 and "\x1b" not in value and "\n" not in value
                assert "sk-abcdefghijklmnop" not in value and "hunter2" not in value and "tok123" not in value
    root = by_name(spans)["invoke_agent plan-studio"]
    assert root.attributes["plan_studio.plan.goal"].startswith("refund \\x1b[31mall\\nxxx")


def test_off_without_an_endpoint_nothing_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    traces.shutdown()
    assert traces.tracer() is None and traces.endpoint() is None
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert traces.endpoint() is None  # the SDK's own switch turns it off too
    monkeypatch.delenv("OTEL_SDK_DISABLED")
    assert traces.endpoint() == "http://127.0.0.1:9"
    traces.shutdown()

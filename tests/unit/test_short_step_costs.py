"""What a run of short steps no longer pays for (issue 17, item 8: a 100-step in-memory chain
at most half of LangGraph's CPU; the figures are in ``benchmarks/runs.py``), and that the
shortcuts taken for it change nothing a run or a check of a plan says."""

from __future__ import annotations

import pytest

from core import Executor, Plan, PlanError, Step, StepStatus, ToolRegistry
from core._limits import check_plan
from core.run._model import StepAttempt, StepRun
from core.plan._order import has_cycle
from core.run._run_pass import _write
from core.validation._validator import Validator


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.register(effects="idempotent")
    def count(n: int = 0) -> int:
        """Add one.

        Args:
            n: Where to start.
        """
        return n + 1

    @registry.register(effects="read-only")
    def word() -> str:
        """Say a word."""
        return "seven"

    return registry


def _chain(size: int) -> Plan:
    return Plan(goal="count", steps=[Step(id=f"s{n}", tool="count",
                                          params={"n": 0} if n == 0 else {"n": f"${{steps.s{n - 1}}}"})
                                     for n in range(size)])


def test_a_tools_arguments_are_converted_once_a_call(monkeypatch):
    registry = _registry()
    model = registry.get("count").runner.arguments_model
    convert = model.model_validate_json
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return convert(*args, **kwargs)

    monkeypatch.setattr(model, "model_validate_json", counted)
    run = Executor(registry).execute(_chain(5))
    assert run.status == "succeeded" and run.steps["s4"].result == 5
    assert len(calls) == 5  # was 10: once to see whether pydantic takes them, once to call


def test_arguments_pydantic_refuses_at_run_time_still_fail_the_step_saying_why():
    registry = _registry()

    @registry.register(effects="read-only")
    def blob() -> dict:
        """Give a record."""
        return {"v": "seven"}

    run = Executor(registry).execute(Plan(goal="bad", steps=[
        Step(id="a", tool="blob"), Step(id="b", tool="count", params={"n": "${steps.a.v}"})]))
    assert run.steps["b"].status == StepStatus.failed
    assert run.steps["b"].error.startswith("count: n: ") and "'seven'" in run.steps["b"].error


@pytest.mark.parametrize("model, values", [
    (StepRun(step_id="s"), {"status": StepStatus.running, "worker": "w1", "result": 3, "retried": []}),
    (StepAttempt(number=1, started_at="2026-01-01T00:00:00Z"), {"duration_ms": 1.5, "error": "no"}),
])
def test_writing_a_steps_state_at_once_is_what_setting_each_field_does(model, values):
    assert not type(model).model_config.get("validate_assignment")  # else _write would skip it
    each = model.model_copy(deep=True)
    for name, value in values.items():
        setattr(each, name, value)
    _write(model, **values)
    assert model.model_dump() == each.model_dump()
    assert model.model_fields_set == each.model_fields_set


def test_every_step_whose_reference_cannot_fit_is_told():
    registry = _registry()
    steps = [Step(id="w", tool="word")] + [Step(id=f"c{n}", tool="count", params={"n": "${steps.w}"})
                                           for n in range(3)]
    steps.append(Step(id="ok", tool="count", params={"n": "${steps.c0}"}))
    steps.append(Step(id="text", tool="count", params={"n": "a ${steps.c0}"}))
    problems = Validator(registry).errors(Plan(goal="fit", steps=steps))
    told = [(p.step_id, p.message) for p in problems if p.field == "params.n"]
    assert [step_id for step_id, _ in told] == ["c0", "c1", "c2", "text"]
    assert all("${steps.w} gives" in message for _, message in told[:3])
    assert "inside longer text" in told[3][1]


@pytest.mark.parametrize("params", [{"n": 10 ** 41}, {"n\ud800": 1}, {"n": "\ud800"}])
def test_flat_params_over_a_bound_are_still_refused(params):
    plan = Plan(goal="bounds", steps=[Step(id="a", tool="count")])
    # Changed after it was made (model_copy does not validate), past the checks a plan gets when made
    plan = plan.model_copy(update={"steps": [plan.steps[0].model_copy(update={"params": params})]})
    with pytest.raises(PlanError, match=r"step 0 \(count\) · params"):
        check_plan(plan)


def test_a_cycle_through_a_step_that_needs_a_later_one_is_still_found():
    forward = Plan(goal="f", steps=[Step(id="a", tool="word", depends_on=["b"]), Step(id="b", tool="word")])
    assert not has_cycle(forward)
    looped = Plan(goal="l", steps=[Step(id="a", tool="word", depends_on=["b"]),
                                   Step(id="b", tool="count", params={"n": "${steps.a}"})])
    assert has_cycle(looped)

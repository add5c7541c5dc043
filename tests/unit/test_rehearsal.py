"""Rehearsal runs (``core.run._rehearsal``): every call answered by a stand-in (pin, recording, a
sample of the output schema), arguments still checked, writes without a result refused, and no
real tool ever reached: each tool here fails the test if it is called."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import BaseModel

from core import (READ_ONLY, ADDITIVE, Plan, PlanInvalid, RehearsalRefused, Run, StepRun, StepStatus, ToolRegistry,
                  rehearse, sample_of, stand_ins)
from core.durable._rerun import rerun_choice


class Count(BaseModel):
    city: str
    n: int


CALLED: list[str] = []  # real tools called: a rehearsal must leave it empty (a call on a pool thread
# fails its step, not the test, so it is counted here as well)


def _never(name: str) -> None:
    CALLED.append(name)
    pytest.fail(f"a rehearsal called the real tool {name}")


@pytest.fixture(autouse=True)
def _no_real_tool_called() -> object:
    CALLED.clear()
    yield
    assert CALLED == [], f"a rehearsal reached real tools: {CALLED}"


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    tools = ToolRegistry()

    def count_shipments(city: str) -> Count:
        """Count the shipments leaving a city."""
        _never("count_shipments")
        raise AssertionError

    def notify(message: str, times: int) -> dict:
        """Send a message to the team."""
        _never("notify")
        raise AssertionError

    def untyped(city: str):  # noqa: ANN202  (no output schema on purpose)
        """Read something with no declared result."""
        _never("untyped")

    tools.register(count_shipments, effects=READ_ONLY)
    tools.register(notify, effects=ADDITIVE)
    tools.register(untyped, effects=READ_ONLY)
    return tools


def _plan(*steps: dict) -> Plan:
    return Plan.model_validate({"goal": "rehearse", "steps": list(steps)})


COUNT = {"id": "count", "tool": "count_shipments", "params": {"city": "Berlin"}}
NOTIFY = {"id": "tell", "tool": "notify", "params": {"message": "counted", "times": "${steps.count.n}"},
          "depends_on": ["count"]}


def _recorded(plan: Plan, results: dict[str, object], rehearsal: bool = False) -> Run:
    run = Run.for_plan(plan)
    for step_id, result in results.items():
        run.steps[step_id] = StepRun(step_id=step_id, status=StepStatus.succeeded, result=result)
    run.finished_at = dt.datetime.now(dt.timezone.utc)
    if rehearsal:
        run.rehearsal = rehearse(_plan({"id": "x", "tool": "count_shipments", "params": {"city": "a"}}),
                                 _registry_of_reads()).rehearsal
    return run


def _registry_of_reads() -> ToolRegistry:
    tools = ToolRegistry()

    def count_shipments(city: str) -> Count:
        """Count."""
        _never("count_shipments")
        raise AssertionError

    tools.register(count_shipments, effects=READ_ONLY)
    return tools


def test_a_write_without_a_recorded_or_pinned_result_is_refused_by_name(registry: ToolRegistry) -> None:
    with pytest.raises(RehearsalRefused) as refused:
        rehearse(_plan(COUNT, NOTIFY), registry)
    assert refused.value.steps == ["tell"]
    assert "step 1 (notify)" in str(refused.value) and "no recorded or pinned result" in str(refused.value)


def test_results_come_from_pins_then_the_output_schema_and_arguments_are_resolved(registry: ToolRegistry) -> None:
    run = rehearse(_plan(COUNT, NOTIFY), registry, pins={"tell": {"sent": True}})
    assert run.status == "succeeded"
    assert run.rehearsal is not None and run.rehearsal.sources == {"count": "schema", "tell": "pin"}
    assert run.steps["count"].result == {"city": "example", "n": 0}  # made from the Count schema
    assert run.steps["tell"].arguments == {"message": "counted", "times": 0}  # resolved from the stand-in
    assert run.steps["tell"].result == {"sent": True}
    assert run.rehearsal.source_of("tell") == "rehearsal · pinned result"


def test_a_recorded_real_run_gives_its_results_and_a_pin_wins_over_it(registry: ToolRegistry) -> None:
    plan = _plan(COUNT, NOTIFY)
    earlier = _recorded(plan, {"count": {"city": "Berlin", "n": 7}, "tell": {"sent": "recorded"}})
    run = rehearse(plan, registry, recording=earlier)
    assert run.rehearsal.recording == earlier.id
    assert run.rehearsal.sources == {"count": "recording", "tell": "recording"}
    assert run.steps["tell"].arguments["times"] == 7
    pinned = rehearse(plan, registry, recording=earlier, pins={"count": {"city": "Berlin", "n": 2}})
    assert pinned.rehearsal.sources["count"] == "pin" and pinned.steps["tell"].arguments["times"] == 2


def test_arguments_that_break_the_input_schema_fail_the_step_as_in_a_real_run(registry: ToolRegistry) -> None:
    run = rehearse(_plan(COUNT, NOTIFY), registry,
                   pins={"count": {"city": "Berlin", "n": "many"}, "tell": {"sent": True}})
    tell = run.steps["tell"]
    assert run.status == "failed" and tell.status == StepStatus.failed
    assert "times" in (tell.error or "") and tell.result is None


def test_a_read_without_schema_gives_null_and_a_failed_recorded_step_does_not_count(registry: ToolRegistry) -> None:
    plan = _plan({"id": "u", "tool": "untyped", "params": {"city": "Rome"}}, NOTIFY | {"depends_on": []},
                 COUNT)
    earlier = _recorded(plan, {"tell": {"ok": 1}})
    earlier.steps["u"] = StepRun(step_id="u", status=StepStatus.failed, error="boom")
    chosen = stand_ins(plan, registry, recording=earlier)
    assert {sid: c.source for sid, c in chosen.items()} == {"u": "none", "tell": "recording", "count": "schema"}


def test_two_steps_of_one_tool_in_parallel_each_get_their_own_result(registry: ToolRegistry) -> None:
    steps = [{"id": f"c{i}", "tool": "count_shipments", "params": {"city": f"city{i}"}} for i in range(6)]
    pins = {f"c{i}": {"city": f"city{i}", "n": i} for i in range(6)}
    run = rehearse(_plan(*steps), registry, pins=pins)
    assert {sid: s.result["n"] for sid, s in run.steps.items()} == {f"c{i}": i for i in range(6)}


def test_what_a_rehearsal_refuses_to_start_with(registry: ToolRegistry) -> None:
    plan = _plan(COUNT, NOTIFY)
    with pytest.raises(RehearsalRefused, match="steps the plan does not have: nope"):
        rehearse(plan, registry, pins={"nope": 1, "tell": 1})
    with pytest.raises(RehearsalRefused, match="is a rehearsal itself"):
        rehearse(plan, registry, recording=_recorded(plan, {"tell": 1}, rehearsal=True))
    with pytest.raises(PlanInvalid):
        rehearse(_plan({"id": "z", "tool": "no_such_tool", "params": {}}), registry)


def test_a_rehearsal_is_never_reused_by_a_real_rerun(registry: ToolRegistry) -> None:
    run = rehearse(_plan(COUNT, NOTIFY), registry, pins={"tell": {"sent": True}})
    with pytest.raises(RehearsalRefused, match="is a rehearsal"):
        rerun_choice(run, from_step="tell")


def test_a_step_that_would_wait_for_a_person_passes_naming_the_rehearsal(registry: ToolRegistry) -> None:
    plan = _plan(COUNT, NOTIFY | {"ask_first": True})
    run = rehearse(plan, registry, pins={"tell": {"sent": True}})
    tell = run.steps["tell"]
    assert tell.status == StepStatus.succeeded
    assert tell.decision is not None and tell.decision.actor_id == "rule:rehearsal"


@pytest.mark.parametrize(("schema", "sample"), [
    ({"type": "integer", "minimum": 3}, 3),
    ({"type": "number", "exclusiveMinimum": 1.5}, 2.5),
    ({"type": "string", "enum": ["a", "b"]}, "a"),
    ({"type": ["null", "boolean"]}, False),
    ({"anyOf": [{"type": "null"}, {"type": "string", "minLength": 9}]}, "xxxxxxxxx"),
    ({"type": "array", "items": {"$ref": "#/$defs/P"}, "$defs": {"P": {"properties": {"k": {"const": 1}}}}},
     [{"k": 1}]),
    ({"$ref": "https://elsewhere.example/schema"}, None),
    ({"type": "object", "properties": {"me": {"$ref": "#/$defs/Me"}}, "$defs": {"Me": {"$ref": "#/$defs/Me"}}},
     {"me": None}),
])
def test_a_sample_fits_its_schema_and_stays_bounded(schema: dict, sample: object) -> None:
    assert sample_of(schema) == sample

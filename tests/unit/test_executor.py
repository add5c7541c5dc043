import pytest

from core import Executor, PlanInvalid, StepStatus
from core.formats import plan_from_seed

from toy_tools import toy_registry

executor = Executor(toy_registry(), approve_writes=False)  # made at import, before conftest turns the pause off


def chain(first_tool="sites_list"):
    return plan_from_seed({"steps": [
        {"tool": first_tool, "params": {"city": "Berlin"} if first_tool == "sites_list" else {}},
        {"tool": "visits_list", "params": {"site_id": "${step[0].data.*.id}", "note": "n=${step[0].count}"}},
        {"tool": "sites_list", "params": {"kind": "big"}},
    ]})


def test_run_all_resolves_references_and_emits_events_in_order():
    run = executor.start(chain())
    events = list(executor.run_all(run))
    kinds = [e.type for e in events]
    assert kinds[:2] == ["turn_start", "plan_created"] and kinds[-1] == "turn_end"
    # s1 and s3 run at once, so their events interleave; each step's own come in order.
    for step_id in run.steps:
        assert [e.type for e in events if e.step_id == step_id] == [
            "plan_step_start", "tool_call", "tool_result", "plan_step_end"]
    step1 = run.steps["s2"]
    assert step1.arguments == {"site_id": ["S0", "S2"], "note": "n=2"}
    assert [r["id"] for r in step1.rows] == ["V-S0", "V-S2"]
    assert all(s.status == StepStatus.succeeded and s.duration_ms is not None for s in run.steps.values())
    assert run.status == "succeeded" and events[-1].data["counts"] == {"succeeded": 3}


def test_one_step_at_a_time_the_events_come_in_run_order():
    run = Executor(toy_registry(), max_parallel=1).start(chain())
    kinds = [e.type for e in Executor(toy_registry(), max_parallel=1).run_all(run)]
    assert kinds[2:-1] == ["plan_step_start", "tool_call", "tool_result", "plan_step_end"] * 3


def test_one_step_at_a_time():
    run = executor.start(chain())
    list(executor.run_next(run))
    assert [s.status for s in run.steps.values()] == [StepStatus.succeeded, StepStatus.pending, StepStatus.pending]
    assert not run.finished
    list(executor.run_next(run))
    list(executor.run_next(run))
    assert run.finished
    assert list(executor.run_next(run)) == []


def test_failing_tool_fails_its_step_and_skips_dependents_only():
    run = executor.execute(chain("explode"))
    assert run.steps["s1"].status == StepStatus.failed
    assert "explode failed: boom" in run.steps["s1"].error
    assert run.steps["s2"].status == StepStatus.skipped
    assert "step 0 (explode)" in run.steps["s2"].error
    assert run.steps["s3"].status == StepStatus.succeeded
    assert run.status == "failed"


def test_dependency_order_wins_over_plan_order():
    plan = plan_from_seed({"steps": [
        {"tool": "visits_list", "params": {"site_id": "S9"}, "depends_on": [1]},
        {"tool": "sites_list", "params": {}},
    ]})
    assert executor.order(plan) == ["s2", "s1"]


def test_invalid_plans_are_refused():
    plan = plan_from_seed({"steps": [{"tool": "nope", "params": {}}]})
    with pytest.raises(PlanInvalid, match="unknown tool 'nope'"):
        executor.start(plan)


def test_synthesizer_streams_text_deltas_before_turn_end():
    ex = Executor(toy_registry(), synthesizer=lambda run: iter(["Found ", f"{len(run.steps)} steps."]))
    run = ex.start(chain())
    events = list(ex.run_all(run))
    deltas = [e.data["text"] for e in events if e.type == "text_delta"]
    assert deltas == ["Found ", "3 steps."] and run.answer == "Found 3 steps."
    assert [e.type for e in events][-2:] == ["text_delta", "turn_end"]


def test_appended_results_collect_outputs_marked_for_the_final_result():
    plan = chain()
    plan = plan.model_copy(update={"steps": [plan.steps[0].model_copy(update={"result_key": "RESULT__SITES"}),
                                             *plan.steps[1:]]})
    run = executor.execute(plan)
    assert run.appended_results() == {"RESULT__SITES": run.steps["s1"].result}

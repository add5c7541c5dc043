"""Issue 17, item 5 (core): a step of a tool that may write, or one the reviewer marked, waits
for a person before it starts; unrelated steps go on; the decision is kept on the run and holds
for exactly the resolved arguments the person saw."""

from __future__ import annotations

from typing import Any

import pytest

from core import (READ_ONLY, Actor, DecisionRefused, Role, Executor, Plan, RunLimits, StepStatus, ToolRegistry,
                  arguments_hash, decide_step, plan_identity, waiting_steps)
from core.formats import plan_from_seed


def registry_with(calls: list[tuple[str, Any]], source: dict[str, str]) -> ToolRegistry:
    registry = ToolRegistry()

    def read_name(key: str) -> dict[str, str]:
        """Read a name.

        Args:
            key: Which name.
        """
        calls.append(("read_name", key))
        return {"name": source[key]}

    def save_note(text: str) -> str:
        """Save a note (writes).

        Args:
            text: The note.
        """
        calls.append(("save_note", text))
        return "saved"

    registry.register(read_name, effects=READ_ONLY)
    registry.register(save_note, effects="additive")
    return registry


def writing_plan() -> Plan:
    return plan_from_seed({"steps": [
        {"tool": "read_name", "params": {"key": "a"}},
        {"tool": "save_note", "params": {"text": "hello ${step[0].name}"}, "depends_on": [0]},
        {"tool": "read_name", "params": {"key": "after"}, "depends_on": [1]},
        {"tool": "read_name", "params": {"key": "b"}},
    ]})


ASK = RunLimits(approve_writes=True)
ANN = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)


def shown(run, step_id: str) -> str:
    """The hash a person was shown with the waiting step's arguments (here: the arguments')."""
    return arguments_hash(run.steps[step_id].arguments)


def run_all(executor: Executor, run) -> list:
    return list(executor.run_all(run))


def test_a_writing_step_waits_with_its_resolved_arguments_while_an_independent_step_runs():
    calls: list[tuple[str, Any]] = []
    executor = Executor(registry_with(calls, {"a": "Ann", "b": "Bo", "after": "x"}), limits=ASK)
    plan = writing_plan()
    run = executor.start(plan)
    run_all(executor, run)
    ids = [s.id for s in plan.steps]
    statuses = [run.steps[i].status for i in ids]
    assert statuses == [StepStatus.succeeded, StepStatus.waiting, StepStatus.pending, StepStatus.succeeded]
    assert ("save_note", "hello Ann") not in calls and ("read_name", "b") in calls
    assert run.steps[ids[1]].arguments == {"text": "hello Ann"}
    assert "save_note is not read-only" in run.steps[ids[1]].error
    assert waiting_steps(run) == [ids[1]] and run.status == "waiting" and not run.finished


def test_approve_runs_exactly_the_approved_arguments_and_the_run_goes_on():
    calls: list[tuple[str, Any]] = []
    executor = Executor(registry_with(calls, {"a": "Ann", "b": "Bo", "after": "x"}), limits=ASK)
    run = executor.start(writing_plan())
    run_all(executor, run)
    step = waiting_steps(run)[0]
    decision = decide_step(run, step, True, actor=ANN, seen_hash=arguments_hash({"text": "hello Ann"}), channel="test")
    assert decision.approved and run.steps[step].status == StepStatus.waiting
    # Kept on the run: a stored run reloaded (as a resume after a restart does) still has it.
    reloaded = type(run).model_validate_json(run.model_dump_json())
    assert reloaded.steps[step].decision == decision
    run_all(executor, reloaded)
    assert reloaded.finished and reloaded.status == "succeeded"
    assert calls.count(("save_note", "hello Ann")) == 1
    assert reloaded.steps[step].arguments == {"text": "hello Ann"} and reloaded.steps[step].result == "saved"


def test_reject_ends_the_step_rejected_and_skips_its_dependants_saying_why():
    calls: list[tuple[str, Any]] = []
    executor = Executor(registry_with(calls, {"a": "Ann", "b": "Bo", "after": "x"}), limits=ASK)
    plan = writing_plan()
    run = executor.start(plan)
    run_all(executor, run)
    step = waiting_steps(run)[0]
    decide_step(run, step, False, actor=ANN, seen_hash=shown(run, step), channel="test")
    assert run.steps[step].status == StepStatus.rejected
    run_all(executor, run)
    after = run.steps[plan.steps[2].id]
    assert after.status == StepStatus.skipped and "step 1 (save_note)" in after.error
    assert run.finished and run.status == "failed"
    assert not any(name == "save_note" for name, _ in calls)


def test_changed_arguments_void_the_approval_and_the_step_waits_again():
    calls: list[tuple[str, Any]] = []
    source = {"a": "Ann", "b": "Bo", "after": "x"}
    executor = Executor(registry_with(calls, source), limits=ASK)
    plan = writing_plan()
    run = executor.start(plan)
    run_all(executor, run)
    step = waiting_steps(run)[0]
    decide_step(run, step, True, actor=ANN, seen_hash=shown(run, step))
    # On resume the earlier step runs again and answers otherwise (a rerun, a step re-done).
    first = run.steps[plan.steps[0].id]
    first.status, first.result = StepStatus.pending, None
    source["a"] = "Eve"
    run_all(executor, run)
    assert run.steps[step].status == StepStatus.waiting
    assert run.steps[step].arguments == {"text": "hello Eve"} and run.steps[step].decision is None
    assert "changed since the last decision" in run.steps[step].error
    assert not any(name == "save_note" for name, _ in calls)


def test_a_decision_on_arguments_the_person_did_not_see_is_refused():
    executor = Executor(registry_with([], {"a": "Ann", "b": "Bo", "after": "x"}), limits=ASK)
    plan = writing_plan()
    run = executor.start(plan)
    run_all(executor, run)
    step = waiting_steps(run)[0]
    with pytest.raises(DecisionRefused, match="arguments changed"):
        decide_step(run, step, True, actor=ANN, seen_hash=arguments_hash({"text": "hello Eve"}))
    with pytest.raises(DecisionRefused, match="step 0 \\(read_name\\) is not waiting"):
        decide_step(run, plan.steps[0].id, True, actor=ANN, seen_hash=shown(run, step))
    assert run.steps[step].decision is None


def test_a_step_the_reviewer_marked_waits_even_when_read_only_and_writes_are_not_asked():
    calls: list[tuple[str, Any]] = []
    plan = plan_from_seed({"steps": [{"tool": "read_name", "params": {"key": "a"}}]})
    marked = plan.model_copy(update={"steps": [plan.steps[0].model_copy(update={"ask_first": True})]})
    # Review metadata, like a lock: the plan runs the same, so its approval stands.
    assert plan_identity(marked).runs == plan_identity(plan).runs
    executor = Executor(registry_with(calls, {"a": "Ann"}))
    run = executor.start(marked)
    run_all(executor, run)
    assert run.steps[marked.steps[0].id].status == StepStatus.waiting and calls == []


def test_without_the_setting_a_writing_step_just_runs():
    calls: list[tuple[str, Any]] = []
    executor = Executor(registry_with(calls, {"a": "Ann", "b": "Bo", "after": "x"}))
    run = executor.start(writing_plan())
    run_all(executor, run)
    assert run.finished and ("save_note", "hello Ann") in calls


@pytest.mark.parametrize("fmt", ["native", "seed", "teams", "sk"])
def test_an_ask_first_mark_survives_an_export_and_import(fmt: str) -> None:
    from core import dump_plan, load_plan
    plan = writing_plan()
    marked = plan.model_copy(update={"steps": [s.model_copy(update={"ask_first": n == 3})
                                               for n, s in enumerate(plan.steps)]})
    back = load_plan(dump_plan(marked, fmt), fmt)
    assert [s.ask_first for s in back.steps] == [False, False, False, True]

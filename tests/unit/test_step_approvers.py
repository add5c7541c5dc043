"""Issue 27, items 3 and 4 (core): a decision names who decided and exactly what they were
shown; an edit of the arguments is what runs; a step that asks for N approvers waits for N
distinct eligible ones, one rejection rejects, the submitter may not approve; a grant lets a
step pass and is recorded as its approval. A tool that records its calls says what ran."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from core import (parse_policy, Actor, Ask, DecisionRefused, Executor, Forbidden, Grant, Role, RunLimits, StepStatus,
                  ToolRegistry, approvals_needed, approvers_so_far, arguments_hash, decide_step, shown_hash,
                  waiting_steps)
from core.formats import plan_from_seed

ANN = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)
BOB = Actor(id="user:bob", name="Bob", kind="person", role=Role.approver, groups=frozenset({"finance"}))
CAT = Actor(id="user:cat", name="Cat", kind="person", role=Role.admin)
VIC = Actor(id="user:vic", name="Vic", kind="person", role=Role.reviewer)


def recording_registry(calls: list[tuple[str, Any]]) -> ToolRegistry:
    registry = ToolRegistry()

    def refund(order: str, amount: int) -> str:
        """Refund an order (writes).

        Args:
            order: The order's id.
            amount: How much, in cents.
        """
        calls.append(("refund", {"order": order, "amount": amount}))
        return "refunded"

    registry.register(refund, effects="destructive")
    return registry


def waiting_run(calls: list[tuple[str, Any]], *, ask: Ask | None = None, steps: int = 1, grants=None):
    """A run whose first refund waits; ``ask`` stands in for what the policy would ask."""
    plan = plan_from_seed({"steps": [{"tool": "refund", "params": {"order": f"o{n}", "amount": 100 + n}}
                                     for n in range(steps)]})
    executor = Executor(recording_registry(calls), limits=RunLimits(approve_writes=True, max_parallel=1),
                        grants=grants)
    run = executor.start(plan)
    list(executor.run_all(run))
    step = waiting_steps(run)[0]
    run.steps[step].ask = ask
    return executor, run, step


def seen(run, step: str, executor: Executor) -> str:
    state = run.steps[step]
    return shown_hash("refund", state.arguments, executor.registry.get("refund").effects.label)


def decide(executor: Executor, run, step: str, approve: bool, actor: Actor, **more: Any):
    """As the workbench decides: with the hash of what it showed, and the tool."""
    return decide_step(run, step, approve, actor=actor, seen_hash=seen(run, step, executor),
                       tool=executor.registry.get("refund"), **more)


def test_the_shown_hash_binds_tool_arguments_and_effects_whatever_the_key_order() -> None:
    base = shown_hash("refund", {"order": "o1", "amount": 5}, "destructive")
    assert base == shown_hash("refund", {"amount": 5, "order": "o1"}, "destructive")
    assert len({base, shown_hash("refunds", {"order": "o1", "amount": 5}, "destructive"),
                shown_hash("refund", {"order": "o1", "amount": 6}, "destructive"),
                shown_hash("refund", {"order": "o1", "amount": 5}, "additive")}) == 4


def test_a_decision_records_who_where_and_what_was_shown() -> None:
    calls: list = []
    executor, run, step = waiting_run(calls)
    tool = executor.registry.get("refund")
    decision = decide_step(run, step, True, actor=ANN, seen_hash=seen(run, step, executor), tool=tool, channel="api")
    assert (decision.actor_id, decision.actor_name, decision.actor_kind, decision.channel) == \
        ("user:ann", "Ann", "person", "api")
    assert decision.shown_hash == seen(run, step, executor)
    assert decision.arguments_hash == arguments_hash({"order": "o0", "amount": 100})
    assert run.steps[step].approvals == [decision] and run.steps[step].decision == decision
    back = type(run).model_validate_json(run.model_dump_json())
    assert back.steps[step].approvals == [decision]


def test_a_decision_without_the_hash_or_by_someone_without_the_role_is_refused() -> None:
    calls: list = []
    executor, run, step = waiting_run(calls)
    with pytest.raises(DecisionRefused, match="must name what it decides on") as refused:
        decide_step(run, step, True, actor=ANN, seen_hash="")
    assert refused.value.why == "unnamed" and refused.value.field == "shown_hash"
    with pytest.raises(Forbidden, match="needs the approver role"):
        decide(executor, run, step, True, VIC)
    with pytest.raises(DecisionRefused, match="arguments changed") as stale:
        decide_step(run, step, True, actor=ANN, seen_hash=arguments_hash({"order": "o9", "amount": 1}))
    assert stale.value.why == "stale"
    assert run.steps[step].approvals == [] and run.steps[step].status == StepStatus.waiting
    list(executor.run_all(run))
    assert calls == []


def test_two_of_n_waits_for_two_distinct_approvers_and_shows_who_approved() -> None:
    calls: list = []
    executor, run, step = waiting_run(calls, ask=Ask(approvers=2, rule="refunds-need-two"))
    state = run.steps[step]
    assert approvals_needed(state) == 2
    first = decide(executor, run, step, True, ANN)
    assert first.rule == "refunds-need-two" and state.decision is None
    with pytest.raises(DecisionRefused, match="decided on it already") as replay:
        decide(executor, run, step, True, ANN)
    assert replay.value.why == "replayed"
    list(executor.run_all(run))  # one approval of two: it still waits, approvals kept
    assert state.status == StepStatus.waiting and calls == [] and [a.actor_id for a in approvers_so_far(state)] == ["user:ann"]
    decide(executor, run, step, True, BOB)
    assert state.decision is not None and state.decision.actor_id == "user:bob"
    with pytest.raises(DecisionRefused, match="decided already") as late:
        decide(executor, run, step, True, CAT)
    assert late.value.why == "not_waiting"
    list(executor.run_all(run))
    assert calls == [("refund", {"order": "o0", "amount": 100})] and run.status == "succeeded"
    assert [a.actor_id for a in run.steps[step].approvals] == ["user:ann", "user:bob"]


def test_one_rejection_rejects_and_the_tool_is_never_called() -> None:
    calls: list = []
    executor, run, step = waiting_run(calls, ask=Ask(approvers=2))
    decide(executor, run, step, True, ANN)
    decide(executor, run, step, False, BOB)
    assert run.steps[step].status == StepStatus.rejected and run.steps[step].decision.actor_id == "user:bob"
    list(executor.run_all(run))
    assert calls == [] and run.finished and run.status == "failed"


def test_the_submitter_may_not_approve_their_own_plan_but_may_withdraw_it() -> None:
    calls: list = []
    executor, run, step = waiting_run(calls)
    run.submitted_by = ANN.id
    with pytest.raises(Forbidden, match="submitted this plan"):
        decide(executor, run, step, True, ANN)
    assert run.steps[step].approvals == []
    decide(executor, run, step, False, ANN)
    assert run.steps[step].status == StepStatus.rejected


def test_an_ask_for_a_group_or_a_role_refuses_approvers_outside_it() -> None:
    calls: list = []
    executor, run, step = waiting_run(calls, ask=Ask(groups=["finance"]))
    with pytest.raises(Forbidden, match="group finance"):
        decide(executor, run, step, True, ANN)
    decide(executor, run, step, True, BOB)
    executor, run, step = waiting_run(calls, ask=Ask(roles=["admin"]))
    with pytest.raises(Forbidden, match="admin role"):
        decide(executor, run, step, True, BOB)
    decide(executor, run, step, True, CAT)
    assert run.steps[step].decision.actor_id == CAT.id


def test_edited_arguments_are_what_runs_and_the_hash_binds_to_them() -> None:
    calls: list = []
    executor, run, step = waiting_run(calls)
    tool = executor.registry.get("refund")
    with pytest.raises(DecisionRefused, match="amount") as bad:
        decide_step(run, step, True, actor=ANN, seen_hash=seen(run, step, executor), tool=tool,
                    arguments={"order": "o0", "amount": "lots"})
    assert bad.value.why == "arguments" and bad.value.field == "arguments.amount"
    with pytest.raises(DecisionRefused, match="amont") as unknown:
        decide_step(run, step, True, actor=ANN, seen_hash=seen(run, step, executor), tool=tool,
                    arguments={"order": "o0", "amount": 5, "amont": 5})
    assert unknown.value.field == "arguments.amont"
    edited = {"order": "o0", "amount": 40}
    decision = decide_step(run, step, True, actor=ANN, seen_hash=seen(run, step, executor), tool=tool,
                           arguments=edited)
    assert decision.arguments == edited and decision.original_arguments == {"order": "o0", "amount": 100}
    assert decision.arguments_hash == arguments_hash(edited)
    back = type(run).model_validate_json(run.model_dump_json())  # as a resume after a restart sees it
    list(executor.run_all(back))
    assert calls == [("refund", edited)]
    assert back.steps[step].arguments == edited and back.status == "succeeded"


def test_an_edited_approval_tampered_with_does_not_run() -> None:
    calls: list = []
    executor, run, step = waiting_run(calls)
    decide_step(run, step, True, actor=ANN, seen_hash=seen(run, step, executor),
                tool=executor.registry.get("refund"), arguments={"order": "o0", "amount": 40})
    run.steps[step].decision.arguments["amount"] = 4000  # the stored record changed behind the approver
    list(executor.run_all(run))
    assert calls == [] and run.steps[step].status == StepStatus.waiting


class Book:
    """A stand-in for the store's grants."""

    def __init__(self, *grants: Grant) -> None:
        self.grants = list(grants)

    def letting_pass(self, run_id: str, tool: str, arguments_hash: str) -> Grant | None:
        at = dt.datetime.now(dt.timezone.utc)
        return next((g for g in self.grants if g.lets_pass(run_id, tool, arguments_hash, at)), None)


def test_a_grant_for_this_run_lets_later_steps_of_the_tool_pass_recorded_as_their_approval() -> None:
    calls: list = []
    book = Book()
    executor, run, step = waiting_run(calls, steps=3, grants=book)
    decision = decide(executor, run, step, True, ANN, scope="run")
    book.grants.append(Grant(tool="refund", scope="run", run_id=run.id, granted_by=ANN.id, granted_by_name="Ann",
                             created_at=dt.datetime.now(dt.timezone.utc)))
    assert decision.scope == "run"
    list(executor.run_all(run))
    assert len(calls) == 3 and run.status == "succeeded"
    later = [run.steps[s.id].decision for s in run.plan.steps[1:]]
    assert all(d.channel == "grant" and d.grant_id == book.grants[0].id and d.actor_id == ANN.id for d in later)


def test_a_grant_expired_revoked_of_another_run_or_for_a_step_asking_two_lets_nothing_pass() -> None:
    calls: list = []
    past = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=1)
    executor, run, step = waiting_run(calls, grants=Book(
        Grant(tool="refund", scope="run", run_id="other", granted_by="user:ann", created_at=past),
        Grant(tool="refund", scope="always", arguments_hash=arguments_hash({"order": "o0", "amount": 100}),
              granted_by="user:ann", created_at=past, expires_at=past),
        Grant(tool="refund", scope="always", arguments_hash=arguments_hash({"order": "o0", "amount": 100}),
              granted_by="user:ann", created_at=past, revoked_at=past)))
    assert calls == [] and run.steps[step].status == StepStatus.waiting
    always = Grant(tool="refund", scope="always", arguments_hash=arguments_hash({"order": "o0", "amount": 100}),
                   granted_by="user:ann", created_at=past)
    executor.grants = Book(always)
    two = parse_policy('[[rules]]\nname = "refunds need two"\ntool = "refund"\noutcome = "ask"\napprovers = 2\n')
    default_limits = executor.limits
    executor.limits = default_limits.model_copy(update={"policy": two})
    list(executor.run_all(run))
    assert calls == [] and run.steps[step].status == StepStatus.waiting and run.steps[step].ask.approvers == 2
    executor.limits = default_limits
    list(executor.run_all(run))
    assert calls == [("refund", {"order": "o0", "amount": 100})]

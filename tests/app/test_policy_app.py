"""Issue 27, item 2 (the application): the studio's policy refuses a plan with a denied step when
it is submitted (workbench and HTTP) or approved, naming step and rule; asks for two approvers
where a rule says so (``StepRun.ask``, kept through the store and a resume); and denies at the
call a step whose arguments are known only at run time, the tool never called."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import Studio, start_studio
from core import (ADDITIVE, DESTRUCTIVE, READ_ONLY, Actor, Executor, Forbidden, Plan, PolicyDenied, Role, Settings,
                  Step, StepStatus, ToolRegistry, decide_step, shown_hash, waiting_steps)
from studio import workbench as wb
from studio.workbench._services import Services, build_services
from workbench_helpers import TODAY, texts

POLICY = """\
[[rules]]
name = "no deletes"
tool = "delete_*"
outcome = "deny"
reason = "lists are kept"

[[rules]]
name = "huge refunds"
tool = "refund"
when = "amount > 1000"
outcome = "deny"
reason = "over the limit"

[[rules]]
name = "big refunds"
tool = "refund"
when = "amount > 100"
outcome = "ask"
approvers = 2
roles = ["approver"]
reason = "two people for big refunds"

[[rules]]
name = "small refunds"
tool = "refund"
outcome = "allow"
"""
ADMIN = Actor(id="user:ada", name="Ada", kind="person", role=Role.admin)


def _registry(calls: list[tuple[str, dict[str, Any]]]) -> ToolRegistry:
    """Tools that record every call made to them."""
    registry = ToolRegistry()

    def read_total(order: str) -> dict:
        """The total of an order.

        Args:
            order: Which order.
        """
        calls.append(("read_total", {"order": order}))
        return {"total": {"small": 5, "big": 500, "huge": 5000}[order]}

    def refund(amount: float, to: str) -> str:
        """Refund an amount.

        Args:
            amount: How much.
            to: To whom.
        """
        calls.append(("refund", {"amount": amount, "to": to}))
        return "refunded"

    def delete_order(order: str) -> str:
        """Delete an order.

        Args:
            order: Which order.
        """
        calls.append(("delete_order", {"order": order}))
        return "deleted"

    registry.register(read_total, effects=READ_ONLY)
    registry.register(refund, effects=ADDITIVE, group="billing")
    registry.register(delete_order, effects=DESTRUCTIVE)
    return registry


@pytest.fixture
def calls() -> list[tuple[str, dict[str, Any]]]:
    return []


@pytest.fixture
def services(tmp_path: Path, calls: list) -> Services:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    return build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=True, policy_file=policy),
                          registry=_registry(calls))


def _refund_of(order: str) -> Plan:
    return Plan(goal=f"refund the {order} order", steps=[
        Step(id="total", tool="read_total", params={"order": order}),
        Step(id="pay", tool="refund", params={"amount": "${steps.total.total}", "to": "c@example.com"},
             depends_on=["total"]),
        Step(id="after", tool="read_total", params={"order": "small"}, depends_on=["pay"]),
    ])


DENIED_PLAN = {"goal": "clean up", "steps": [
    {"id": "look", "tool": "read_total", "params": {"order": "big"}},
    {"id": "gone", "tool": "delete_order", "params": {"order": "big"}, "depends_on": ["look"]},
]}


def test_a_submission_with_a_denied_step_is_refused_naming_step_and_rule(services: Services) -> None:
    assert services.policy_problem is None
    with pytest.raises(PolicyDenied) as caught:
        wb.submit_review(services, {"plan": DENIED_PLAN, "format": "native", "agent": "cleaner"})
    assert caught.value.step_ids == ["gone"] and caught.value.rules == ["no deletes"]
    assert "step 1 (delete_order): denied by rule no deletes: lists are kept" in str(caught.value)
    assert services.store.count_reviews() == 0  # refused before it was stored
    # a refund whose amount only the run knows is no certain denial: it is submitted
    review = wb.submit_review(services, {"plan": json.loads(_refund_of("huge").model_dump_json()), "format": "native"})
    assert services.store.get_review(review.id).status == "pending"


def test_an_approval_is_refused_once_the_policy_denies_a_step(services: Services, tmp_path: Path) -> None:
    """Submitted under a policy that let it through, approved after a stricter one was saved:
    the approval (of a review, and of a plan on the page) and a run are refused, naming step and rule."""
    plan = {"goal": "refund", "steps": [{"id": "pay", "tool": "refund", "params": {"amount": 5000, "to": "c@x.y"}}]}
    lenient = '[[rules]]\nname = "refunds pass"\ntool = "refund"\noutcome = "allow"\n'
    wb.save_policy(services, lenient, actor=ADMIN)
    review = wb.submit_review(services, {"plan": plan, "format": "native", "agent": "refunder"})
    with pytest.raises(Forbidden, match="needs the admin role"):
        wb.save_policy(services, POLICY, actor=Actor(id="user:bo", name="Bo", kind="person", role=Role.approver))
    wb.save_policy(services, POLICY, actor=ADMIN)
    assert (tmp_path / "policy.toml").read_text() == POLICY

    bench = wb.Workbench()
    assert wb.open_review(bench, services.store, review.id).ok
    out = wb.decide_review(bench, services.store, review.id, approve=True, validator=lambda: services.validator,
                           services=services)
    assert not out.ok
    assert "step 0 (refund): denied by rule huge refunds: over the limit" in texts(out)[0], texts(out)
    assert services.store.get_review(review.id).status == "pending"
    page = wb.Workbench()
    wb.import_plan(page, services, json.dumps(plan), "native")
    refused = wb.approve(page, services.validator, services)
    assert not refused.ok and "denied by rule huge refunds" in texts(refused)[0]
    page.approved = wb.execution_fingerprint(page.plan)  # approved before the policy changed
    started = wb.request_run(page, services, "all")
    assert not started.ok and texts(started)[0].startswith("Not run: the policy denies 1 step")


def test_a_step_a_rule_asks_two_approvers_for_waits_carrying_the_ask_through_a_resume(services: Services,
                                                                                        calls: list) -> None:
    executor = Executor(services.registry, limits=services.executor.limits)
    plan = _refund_of("big")
    run = executor.start(plan)
    list(executor.run_all(run))
    assert waiting_steps(run) == ["pay"]
    state = run.steps["pay"]
    assert state.arguments == {"amount": 500, "to": "c@example.com"}
    assert state.ask is not None and (state.ask.approvers, state.ask.roles, state.ask.rule, state.ask.reason) == \
        (2, ["approver"], "big refunds", "two people for big refunds")
    assert state.error == "waiting for a person: rule big refunds asks: two people for big refunds"
    assert [c[0] for c in calls] == ["read_total"]  # the refund was not called

    store = services.store
    version = store.save_plan(plan)
    store.save_run(run, plan_id=version.plan_id, version=version.version)
    resumed = store.load_run(run.id)
    assert resumed.steps["pay"].ask == state.ask  # the resumed run knows what it asks
    list(executor.run_all(resumed))  # carried on without a decision: still waiting, still asking the same
    assert waiting_steps(resumed) == ["pay"] and resumed.steps["pay"].ask == state.ask
    store.records.step_finished(run.id, resumed.steps["pay"])  # as a durable run writes a step
    assert store.load_run(run.id).steps["pay"].ask == state.ask

    refund = services.registry.get("refund")
    seen = shown_hash("refund", resumed.steps["pay"].arguments, refund.effects.label)
    ann = Actor(id="user:ann", name="Ann", kind="person", role=Role.approver)
    bob = Actor(id="user:bob", name="Bob", kind="person", role=Role.approver)
    decide_step(resumed, "pay", True, actor=ann, seen_hash=seen, tool=refund, channel="page")
    list(executor.run_all(resumed))
    assert waiting_steps(resumed) == ["pay"]  # one of the two approvers the rule asks for
    decide_step(resumed, "pay", True, actor=bob, seen_hash=seen, tool=refund, channel="page")
    list(executor.run_all(resumed))
    assert resumed.finished and resumed.steps["pay"].status == StepStatus.succeeded
    assert ("refund", {"amount": 500, "to": "c@example.com"}) in calls


@pytest.mark.parametrize("approve_writes", [True, False])  # False: --approve-writes, nothing pauses
def test_a_step_denied_on_its_resolved_arguments_never_calls_its_tool(services: Services, calls: list,
                                                                      approve_writes: bool) -> None:
    plan = _refund_of("huge")
    wb.check_plan_policy(services, plan)  # not certainly denied before it runs: the amount comes from step 0
    limits = services.executor.limits.model_copy(update={"approve_writes": approve_writes})
    executor = Executor(services.registry, limits=limits)
    run = executor.start(plan)
    list(executor.run_all(run))
    assert run.finished and run.status == "failed"
    pay = run.steps["pay"]
    assert pay.status == StepStatus.rejected and pay.error == "denied by rule huge refunds: over the limit"
    assert pay.arguments == {"amount": 5000, "to": "c@example.com"} and pay.ask is None
    assert pay.decision is not None and pay.decision.actor_id == "rule:huge refunds" \
        and pay.decision.actor_kind == "rule" and not pay.decision.approved
    assert run.steps["after"].status == StepStatus.skipped
    assert [c[0] for c in calls] == ["read_total"]  # the refund's tool was never called


def test_small_refunds_pass_by_rule_without_asking(services: Services, calls: list) -> None:
    executor = Executor(services.registry, limits=services.executor.limits)
    run = executor.start(_refund_of("small"))
    list(executor.run_all(run))
    assert run.status == "succeeded" and ("refund", {"amount": 5, "to": "c@example.com"}) in calls


# -- over HTTP, on a real studio ---------------------------------------------------------------

@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    folder = tmp_path_factory.mktemp("policy-api")
    policy = folder / "policy.yaml"
    policy.write_text("rules:\n  - name: lists are kept\n    tool: deleteList\n    outcome: deny\n")
    yield from start_studio(folder, PLAN_STUDIO_POLICY=str(policy))


def test_the_review_api_refuses_a_denied_plan_with_403_naming_step_and_rule(served: Studio) -> None:
    token = (served.data_dir / "api-token").read_text().strip()
    body = {"plan": {"goal": "tidy", "steps": [{"id": "show", "tool": "showList", "params": {"list": "old"}},
                                               {"id": "drop", "tool": "deleteList", "params": {"list": "old"},
                                                "depends_on": ["show"]}]}, "format": "native", "agent": "tidier"}
    request = urllib.request.Request(served.url + "/api/reviews", data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=60)
    answer = json.loads(caught.value.read())
    assert caught.value.code == 403
    assert answer["steps"] == ["drop"] and answer["rules"] == ["lists are kept"]
    assert "step 1 (deleteList): denied by rule lists are kept" in answer["error"]

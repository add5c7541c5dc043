"""Issue 27's walkthrough, end to end over a real store, a real HTTP server and a real webhook
receiver: an agent submits a 30-step plan with writes and one destructive step, with its own
token; a person approves the review; the studio runs it under a policy file. Reads and the
agent's small refunds pass by rule, a refund over 100 waits for two people, who approve it from
the signed link the webhook carried, the destructive step is denied by a rule on its resolved
arguments (its tool is never called), and everything is on the audit, read back over the API.
Then a new rule is replayed over those decisions before anyone saves it."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest
import uvicorn
from starlette.applications import Starlette

from core import LOCAL_ACTOR, Actor, Role, Settings, StepStatus, ToolRegistry
from studio import workbench as wb
from studio.api._audit_api import audit_routes
from studio.api._review_api import api_routes
from studio.api._run_decisions_api import run_routes
from studio.workbench._agent_tokens import create_token
from studio.workbench._durable_handle import durable_runs
from studio.workbench._links import answer_link, open_link
from studio.workbench._services import Services, build_services
from webhook_receiver import Receiver, receiver

ANN = Actor("user:ann", "Ann", "person", Role.approver)
BOB = Actor("user:bob", "Bob", "person", Role.approver)
VIPS = {"c13"}

POLICY = '''
[[rules]]
name = "no vip deletes"
tool = "delete_customer"
when = 'tier == "vip"'
outcome = "deny"
reason = "a VIP is never deleted by an agent"

[[rules]]
name = "big refunds need two"
tool = "refund"
when = "amount > 100"
outcome = "ask"
approvers = 2
roles = ["approver"]
reason = "refunds over 100 need two people"

[[rules]]
name = "shop-bot refunds"
agent = "agent:shop-bot"
tool = "refund"
outcome = "allow"

[[rules]]
name = "reads pass"
effect = "read-only"
outcome = "allow"
'''


def _tools(calls: list[tuple[str, dict[str, Any]]]) -> ToolRegistry:
    registry = ToolRegistry()

    def list_orders() -> dict:
        """List the open orders."""
        calls.append(("list_orders", {}))
        return {"data": [{"id": f"o{n}", "customer": f"c{n}"} for n in range(3)]}

    def read_customer(customer: str) -> dict:
        """Read one customer.

        Args:
            customer: The customer's id.
        """
        calls.append(("read_customer", {"customer": customer}))
        return {"id": customer, "tier": "vip" if customer in VIPS else "standard"}

    def refund(order: str, amount: int) -> str:
        """Refund an order.

        Args:
            order: The order's id.
            amount: How much, in euros.
        """
        calls.append(("refund", {"order": order, "amount": amount}))
        return f"refunded {amount} on {order}"

    def delete_customer(customer: str, tier: str) -> str:
        """Delete a customer and everything they own.

        Args:
            customer: The customer's id.
            tier: The customer's tier, as read.
        """
        calls.append(("delete_customer", {"customer": customer, "tier": tier}))
        return "deleted"

    registry.register(list_orders, effects="read-only")
    registry.register(read_customer, effects="read-only")
    registry.register(refund, effects="additive")
    registry.register(delete_customer, effects="destructive")
    return registry


def _plan_document() -> dict[str, Any]:
    """30 steps: a list, 20 reads, 7 small refunds, one refund of 500 and a delete whose tier
    comes from a read (so only the run can tell the rule applies)."""
    steps: list[dict[str, Any]] = [{"tool": "list_orders", "params": {}}]
    steps += [{"tool": "read_customer", "params": {"customer": f"c{n}"}} for n in range(1, 21)]
    steps += [{"tool": "refund", "params": {"order": f"o{n}", "amount": 10 + n}, "depends_on": [0]} for n in range(7)]
    steps.append({"tool": "refund", "params": {"order": "o99", "amount": 500}, "depends_on": [0]})
    steps.append({"tool": "delete_customer", "params": {"customer": "c13", "tier": "${step[13].tier}"},
                  "depends_on": [13]})
    return {"goal": "Settle the refunds and clean up customers", "steps": steps}


class Studio:
    """The studio's services over a real store, and its HTTP API on a real socket."""

    def __init__(self, folder: Path, hook: Receiver) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        policy = folder / "policy.toml"
        policy.write_text(POLICY, encoding="utf-8")
        self.services: Services = build_services(
            Settings(data_dir=folder / "data", approve_writes=True, policy_file=policy, webhook_url=hook.url,
                     webhook_format="plain", public_url="https://studio.example.com"),
            registry=_tools(self.calls))
        assert self.services.policy_problem is None, self.services.policy_problem
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        source = lambda: self.services  # noqa: E731
        app = Starlette(routes=[*api_routes(source), *run_routes(source), *audit_routes(source)])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            self.thread.join(0.05)
            assert self.thread.is_alive()
        self.base = f"http://127.0.0.1:{port}"

    def call(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(self.base + path, method=method, data=None if body is None else
                                         json.dumps(body).encode(),
                                         headers={"Authorization": f"Bearer {token}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            text = exc.read()
            return exc.code, json.loads(text) if text.startswith(b"{") else {"text": text.decode()}

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def studio(tmp_path: Path) -> Iterator[tuple[Studio, Receiver]]:
    with receiver() as hook:
        made = Studio(tmp_path, hook)
        try:
            yield made, hook
        finally:
            made.close()


def test_an_agents_plan_is_submitted_ruled_approved_by_two_from_links_denied_run_and_audited(studio) -> None:
    s, hook = studio
    services = s.services
    _, agent_token = create_token(services, "shop-bot", role=Role.reviewer, actor=LOCAL_ACTOR)
    _, auditor_token = create_token(services, "auditor", role=Role.viewer, actor=LOCAL_ACTOR)

    # 1. The agent submits its 30-step plan with its own token: the policy cannot deny any step
    # before the run (the delete's tier is only known then), so the review waits for a person.
    document = _plan_document()
    status, submitted = s.call("POST", "/api/reviews", agent_token, {"plan": document, "agent": "shop-bot"})
    assert status == 201, submitted
    review = services.store.get_review(submitted["id"])
    assert review.submitted_by == "agent:shop-bot" and len(review.plan.steps) == 30
    [announced] = hook.wait_for(1)
    assert announced["kind"] == "review_submitted"

    # 2. Ann approves the review; the studio runs the plan under its policy.
    bench = wb.Workbench(actor=ANN)
    assert wb.open_review(bench, services.store, review.id).ok
    decided = wb.decide_review(bench, services.store, review.id, approve=True, services=services, actor=ANN,
                               validator=lambda: services.validator)
    assert decided.ok, decided.notices
    run = durable_runs(services).new_run(review.plan, submitted_by=review.submitted_by)
    assert wb.resume_stored_run(services, run.id, {}, actor=ANN).outcome.ok
    assert wb.join_stored_run(services, run.id, timeout=120)

    stored = services.store.load_run(run.id)
    ids = [step.id for step in stored.plan.steps]
    big, delete = ids[28], ids[29]
    # Reads and the agent's small refunds ran without asking anybody (their rules allowed them).
    assert all(stored.steps[i].status == StepStatus.succeeded and stored.steps[i].decision is None for i in ids[:28])
    # The delete of a VIP was denied by the rule on its resolved arguments: its tool never called.
    assert stored.steps[delete].status == StepStatus.rejected
    assert stored.steps[delete].error == "denied by rule no vip deletes: a VIP is never deleted by an agent"
    assert stored.steps[delete].decision.actor_id == "rule:no vip deletes"
    # The refund of 500 waits for two approvers; nothing of it ran.
    assert stored.steps[big].status == StepStatus.waiting
    assert (stored.steps[big].ask.approvers, stored.steps[big].ask.rule) == (2, "big refunds need two")
    assert ("refund", {"order": "o99", "amount": 500}) not in s.calls
    assert not any(name == "delete_customer" for name, _ in s.calls)

    # 3. The webhook carried one signed link for the waiting refund; the submitting agent may not
    # use it, Ann and Bob each approve from it, and only then does the refund run, once.
    posts = hook.wait_for(2)
    [waiting] = [p for p in posts if p["kind"] == "step_waiting"]
    assert (waiting["run_id"], waiting["step_id"]) == (run.id, big)
    token = waiting["link"].split("?link=", 1)[1]
    view = open_link(services, token, actor=ANN)
    assert view.tool == "refund" and view.arguments == {"order": "o99", "amount": 500}
    first = answer_link(services, token, approve=True, actor=ANN)
    assert first.ok and "1 of 2 approvals" in " ".join(n.text for n in first.notices), first.notices
    assert ("refund", {"order": "o99", "amount": 500}) not in s.calls
    again = answer_link(services, token, approve=True, actor=ANN)
    assert not again.ok, "one person, one decision"
    second = answer_link(services, token, approve=True, actor=BOB)
    assert second.ok, second.notices
    assert wb.join_stored_run(services, run.id, timeout=120)
    finished = services.store.load_run(run.id)
    assert finished.finished and finished.steps[big].status == StepStatus.succeeded
    assert s.calls.count(("refund", {"order": "o99", "amount": 500})) == 1
    approvals = finished.steps[big].approvals
    assert [(a.actor_id, a.channel, a.rule) for a in approvals] == [
        ("user:ann", "link", "big refunds need two"), ("user:bob", "link", "big refunds need two")]
    assert len({a.shown_hash for a in approvals}) == 1  # both saw exactly the same tool, arguments, effects

    # 4. The audit, read over the API by a viewer's token: who submitted, who decided what, and the run.
    status, audit = s.call("GET", f"/api/audit?run={run.id}&limit=200", auditor_token)
    assert status == 200, audit
    on_run = [(e["action"], e["actor"]["id"], e["channel"]) for e in audit["events"]]
    assert ("step.decided", "user:ann", "link") in on_run and ("step.decided", "user:bob", "link") in on_run
    assert any(action == "run.started" for action, _, _ in on_run)
    status, audit = s.call("GET", f"/api/audit?review={review.id}", auditor_token)
    assert {(e["action"], e["actor"]["id"]) for e in audit["events"]} >= {
        ("review.submitted", "agent:shop-bot"), ("review.decided", "user:ann")}
    assert s.call("GET", "/api/audit", agent_token)[0] == 200  # a reviewer may read it too
    assert s.call("PUT", "/api/audit", auditor_token, {})[0] == 405  # and nobody may change it

    # 5. Before a stricter rule is saved, it is replayed over these decisions: denying refunds over
    # 100 would have denied what Ann and Bob approved, and says so.
    stricter = POLICY.replace('outcome = "ask"\napprovers = 2\nroles = ["approver"]', 'outcome = "deny"')
    assert stricter != POLICY
    report = wb.replay_policy(services, stricter)
    assert report.disagreeing >= 1
    texts = [d.text for d in report.disagreements]
    assert any(f"run {run.id}" in t and "would deny" in t and "Ann" in t for t in texts), texts
    assert services.executor.limits.policy.rules[1].name == "big refunds need two"  # nothing saved yet

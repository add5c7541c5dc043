"""Issue 27, items 3 and 4 and hole 1 (review API, a real uvicorn on a real socket): a decision
must name what it approves (``{"approve": true}`` alone is refused, and the step does not run);
a stale or replayed decision is refused naming why; two decisions at once: one wins, the other
is told; N distinct approvers, never the submitter; an edit is what runs; a grant for this run
lets the later steps pass; a denial never calls the tool. A tool that records its calls says
what ran. Who decides: the actor the caller's own API token names (one token per approver)."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette

from core import Actor, Ask, Role, Settings, StepStatus, ToolRegistry
from core.access import new_token, token_hash
from core.formats import plan_from_seed
from studio.api._grants_api import grant_routes
from studio.api._run_decisions_api import run_routes
from studio.workbench import join_stored_run, waiting_run
from studio.workbench._api_token import ensure_token
from studio.workbench._services import build_services

PEOPLE = {a.id: a for a in (
    Actor(id="user:ann", name="Ann", kind="person", role=Role.approver),
    Actor(id="user:bob", name="Bob", kind="person", role=Role.approver),
    Actor(id="user:sam", name="Sam", kind="person", role=Role.approver),
    Actor(id="user:vic", name="Vic", kind="person", role=Role.reviewer),
)}


def _registry(calls: list[tuple[str, Any]]) -> ToolRegistry:
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


class Studio:
    def __init__(self, tmp_path: Path, steps: int) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.services = build_services(Settings(data_dir=tmp_path / "data", approve_writes=True),
                                       registry=_registry(self.calls))
        plan = plan_from_seed({"steps": [{"tool": "refund", "params": {"order": f"o{n}", "amount": 100 + n},
                                          **({"depends_on": [n - 1]} if n else {})} for n in range(steps)]})
        version = self.services.store.save_plan(plan)
        self.run = self.services.executor.start(plan)
        self.services.executor.drive(self.run)
        self.services.store.save_run(self.run, plan_id=version.plan_id, version=version.version)
        self.step = plan.steps[0].id
        self.token = ensure_token(self.services.settings.data_dir)
        self.tokens: dict[str, str] = {}  # each approver's own token, naming them
        for person in PEOPLE.values():
            self.tokens[person.id] = new_token()
            self.services.store.people.add_token(person.name, agent_id=person.id, role=person.role,
                                                 token_hash=token_hash(self.tokens[person.id]))
        port = _free_port()
        app = Starlette(routes=[*run_routes(lambda: self.services), *grant_routes(lambda: self.services)])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            self.thread.join(0.05)
            assert self.thread.is_alive()
        self.base = f"http://127.0.0.1:{port}"

    def held(self):
        """The run as the studio holds it for a decision (loaded from the store on first ask)."""
        return waiting_run(self.services, self.run.id)

    def ask(self, method: str, path: str, body: Any = None, who: str = "") -> tuple[int, dict[str, Any]]:
        headers = {"Authorization": f"Bearer {self.tokens[who] if who else self.token}",
                   "Content-Type": "application/json"}
        request = urllib.request.Request(self.base + path, method=method, headers=headers,
                                         data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def waiting(self) -> dict[str, Any]:
        status, body = self.ask("GET", f"/api/runs/{self.run.id}/waiting")
        assert status == 200, body
        return body["waiting"][0]

    def decide(self, body: dict[str, Any], who: str = "", step: str | None = None) -> tuple[int, dict[str, Any]]:
        return self.ask("POST", f"/api/runs/{self.run.id}/steps/{step or self.step}/decision", body, who)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def studio(tmp_path: Path):
    made: list[Studio] = []

    def make(steps: int = 1) -> Studio:
        made.append(Studio(tmp_path / str(len(made)), steps))
        return made[-1]
    yield make
    for one in made:
        one.close()


def test_a_decision_without_the_hash_of_what_was_shown_is_refused_and_nothing_runs(studio) -> None:
    s = studio()
    status, body = s.decide({"approve": True})
    assert status == 400 and body["field"] == "shown_hash" and "must name what it decides on" in body["error"]
    status, body = s.decide({"approve": True, "shown_hash": ""})
    assert status == 400 and body["field"] == "shown_hash"
    assert s.held().steps[s.step].status == StepStatus.waiting and s.held().steps[s.step].approvals == []
    assert s.calls == []


def test_a_stale_or_replayed_decision_is_refused_naming_why(studio) -> None:
    s = studio()
    s.held().steps[s.step].ask = Ask(approvers=2)  # stand-in for the policy: two approvers
    shown = s.waiting()
    status, body = s.decide({"approve": True, "shown_hash": "0" * 64}, who="user:ann")
    assert status == 409 and body["why"] == "stale" and "arguments changed" in body["notices"][0]["text"]
    assert s.decide({"approve": True, "shown_hash": shown["shown_hash"]}, who="user:ann")[0] == 200
    status, body = s.decide({"approve": True, "shown_hash": shown["shown_hash"]}, who="user:ann")
    assert status == 409 and body["why"] == "replayed" and "decided on it already" in body["notices"][0]["text"]
    status, body = s.decide({"approve": True, "shown_hash": shown["shown_hash"]}, who="user:vic")
    assert status == 403 and "approver role" in body["error"]
    assert s.calls == []


def test_two_decisions_at_once_one_wins_and_the_other_is_told(studio) -> None:
    s = studio()
    shown = s.waiting()["shown_hash"]
    start = threading.Barrier(2)
    answers: dict[str, tuple[int, dict[str, Any]]] = {}

    def decide(who: str, approve: bool) -> None:
        start.wait()
        answers[who] = s.decide({"approve": approve, "shown_hash": shown}, who=who)

    threads = [threading.Thread(target=decide, args=("user:ann", True)),
               threading.Thread(target=decide, args=("user:bob", False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    statuses = sorted(status for status, _ in answers.values())
    assert statuses == [200, 409], answers
    [(winner, _)] = [(who, body) for who, (status, body) in answers.items() if status == 200]
    [loser] = [body for status, body in answers.values() if status == 409]
    assert loser["why"] == "not_waiting"
    assert join_stored_run(s.services, s.run.id, timeout=60)
    stored = s.services.store.load_run(s.run.id)
    assert [a.actor_id for a in stored.steps[s.step].approvals] == [winner]
    assert s.calls == ([("refund", {"order": "o0", "amount": 100})] if winner == "user:ann" else [])


def test_two_of_n_waits_for_distinct_approvers_and_the_submitter_may_not_approve(studio) -> None:
    s = studio()
    held = s.held()
    held.steps[s.step].ask = Ask(approvers=2, rule="refunds-need-two")
    held.submitted_by = "user:sam"
    shown = s.waiting()
    assert shown["approvals_needed"] == 2 and shown["approvals"] == [] and shown["rule"] == "refunds-need-two"
    status, body = s.decide({"approve": True, "shown_hash": shown["shown_hash"]}, who="user:sam")
    assert status == 403 and "may not approve its own" in body["notices"][0]["text"]
    status, body = s.decide({"approve": True, "shown_hash": shown["shown_hash"]}, who="user:ann")
    assert status == 200 and body["settled"] is False and "1 of 2 approvals: user:ann" in body["notices"][0]["text"]
    waiting = s.waiting()
    assert [a["actor_id"] for a in waiting["approvals"]] == ["user:ann"] and s.calls == []
    status, body = s.decide({"approve": True, "shown_hash": shown["shown_hash"]}, who="user:bob")
    assert status == 200 and body["settled"] is True
    assert [a["actor_id"] for a in body["approvals"]] == ["user:ann", "user:bob"]
    assert join_stored_run(s.services, s.run.id, timeout=60)
    assert s.calls == [("refund", {"order": "o0", "amount": 100})]


def test_the_edited_arguments_run_exactly_as_approved_and_are_recorded(studio) -> None:
    s = studio()
    shown = s.waiting()
    status, body = s.decide({"approve": True, "shown_hash": shown["shown_hash"],
                             "arguments": {"order": "o0", "amount": "all"}}, who="user:ann")
    assert status == 400 and body["field"] == "arguments.amount" and body["why"] == "arguments"
    edited = {"order": "o0", "amount": 40}
    status, body = s.decide({"approve": True, "shown_hash": shown["shown_hash"], "arguments": edited}, who="user:ann")
    assert status == 200, body
    assert join_stored_run(s.services, s.run.id, timeout=60)
    assert s.calls == [("refund", edited)]
    stored = s.services.store.load_run(s.run.id).steps[s.step]
    assert stored.arguments == edited and stored.decision.arguments == edited
    assert stored.decision.original_arguments == {"order": "o0", "amount": 100}


def test_a_denial_never_calls_the_tool(studio) -> None:
    s = studio(steps=2)
    shown = s.waiting()
    assert s.decide({"approve": False, "shown_hash": shown["shown_hash"]}, who="user:ann")[0] == 200
    assert join_stored_run(s.services, s.run.id, timeout=60)
    stored = s.services.store.load_run(s.run.id)
    assert stored.finished and stored.steps[s.step].status == StepStatus.rejected and s.calls == []
    assert stored.steps[s.step].decision.actor_id == "user:ann" and stored.steps[s.step].decision.channel == "api"


def test_a_grant_for_this_run_lets_its_later_steps_pass_and_can_be_listed_and_revoked(studio) -> None:
    s = studio(steps=3)
    shown = s.waiting()
    status, body = s.decide({"approve": True, "shown_hash": shown["shown_hash"], "grant": "run"}, who="user:ann")
    assert status == 200, body
    assert join_stored_run(s.services, s.run.id, timeout=60)
    assert [args["order"] for _, args in s.calls] == ["o0", "o1", "o2"]
    stored = s.services.store.load_run(s.run.id)
    status, listed = s.ask("GET", "/api/grants")
    [grant] = listed["grants"]
    assert grant["scope"] == "run" and grant["run_id"] == s.run.id and grant["granted_by"] == "user:ann"
    later = [stored.steps[step.id].decision for step in stored.plan.steps[1:]]
    assert all(d.channel == "grant" and d.grant_id == grant["id"] and d.actor_id == "user:ann" for d in later)
    assert s.ask("DELETE", f"/api/grants/{grant['id']}", who="user:vic")[0] == 403
    status, body = s.ask("DELETE", f"/api/grants/{grant['id']}", who="user:bob")
    assert status == 200 and body["revoked"] is True
    assert s.ask("GET", "/api/grants")[1]["grants"] == []
    assert s.ask("DELETE", "/api/grants/nope")[0] == 404

"""The review API on a real studio process: token auth, submit, get, long-poll wait, bad input
(400 by field, 413, 401 that tells nothing), 100 concurrent submissions, and an agent in its
own process that submits and waits while the decision is made elsewhere."""

from __future__ import annotations

import http.client
import json
import os
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import Studio, start_studio
from core import Plan, ReviewServiceError
from core.storage import PlanStore
from studio import ReviewClient
from studio.api._http import MAX_BODY_BYTES

HERE = Path(__file__).resolve().parents[1]
PLAN = {"goal": "Get contaminated shipments from Berlin facilities", "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}},
    {"id": "ship", "tool": "shipments_list", "params": {"has_contaminants": True, "facility_id": "${step[0].data.*.id}"},
     "depends_on": ["fac"]},
]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("review-api"))


@pytest.fixture(scope="module")
def token(served: Studio) -> str:
    return (served.data_dir / "api-token").read_text().strip()


def call(served: Studio, method: str, path: str, body: Any = None, *, token: str | None = None,
         raw: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(served.url + path, data=data, method=method, headers=headers or {})
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def announce_big_body(served: Studio, token: str | None = None) -> tuple[int, dict[str, Any]]:
    """A POST announcing a body over the limit, answered before the body is sent: the server
    refuses it on the Content-Length alone, without reading it."""
    connection = http.client.HTTPConnection(served.url.removeprefix("http://"), timeout=30)
    try:
        connection.putrequest("POST", "/api/reviews")
        connection.putheader("Content-Length", str(MAX_BODY_BYTES + 1))
        if token is not None:
            connection.putheader("Authorization", f"Bearer {token}")
        connection.endheaders()
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def store(served: Studio) -> PlanStore:
    return PlanStore(served.data_dir / "studio.sqlite3")


def test_the_token_is_made_on_first_start_private_and_printed_by_the_command(served: Studio, token: str) -> None:
    path = served.data_dir / "api-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(token) >= 40
    env = {**os.environ, "PLAN_STUDIO_DATA_DIR": str(served.data_dir)}
    printed = subprocess.run([sys.executable, "-m", "studio.cli._main", "token"], env=env, capture_output=True,
                             text=True, check=True, cwd=HERE.parent)
    assert printed.stdout.strip() == token


def test_without_the_token_every_call_is_401_and_says_nothing_else(served: Studio, token: str) -> None:
    status, created = call(served, "POST", "/api/reviews", {"plan": PLAN}, token=token)
    assert status == 201
    answers = [
        call(served, "POST", "/api/reviews", {"plan": PLAN}),
        call(served, "POST", "/api/reviews", {"plan": PLAN}, token=token[:-1]),
        call(served, "GET", f"/api/reviews/{created['id']}", token="x" * len(token)),
        call(served, "GET", "/api/reviews/no-such-review", token=token + "x"),
        call(served, "GET", f"/api/reviews/{created['id']}/wait?timeout=5",
             headers={"Authorization": f"Basic {token}"}),
        announce_big_body(served),
    ]
    assert {status for status, _ in answers} == {401}
    assert len({json.dumps(body) for _, body in answers}) == 1  # one answer, whatever was asked
    said = json.dumps(answers[2][1])
    assert created["id"] not in said and "Berlin" not in said and token not in said


def test_a_submitted_plan_is_pending_with_a_link_and_its_problems(served: Studio, token: str) -> None:
    unknown = dict(PLAN, steps=[*PLAN["steps"], {"id": "mail", "tool": "send_mail", "params": {}}])
    status, created = call(served, "POST", "/api/reviews", {"plan": unknown, "agent": "shipping-bot"}, token=token)
    assert status == 201 and created["status"] == "pending"
    assert created["url"] == f"{served.url}/reviews?review={created['id']}"
    status, review = call(served, "GET", f"/api/reviews/{created['id']}", token=token)
    assert status == 200
    assert (review["status"], review["agent"], review["goal"]) == ("pending", "shipping-bot", PLAN["goal"])
    assert [s["id"] for s in review["plan"]["steps"]] == ["fac", "ship", "mail"]
    assert [(p["step_id"], p["field"]) for p in review["problems"]] == [("mail", "tool")]
    assert "unknown tool 'send_mail'" in review["problems"][0]["message"]
    status, waited = call(served, "GET", f"/api/reviews/{created['id']}/wait?timeout=0.3", token=token)
    assert (status, waited["status"]) == (200, "pending")


def test_a_plan_in_another_format_is_read_and_answered_in_it(served: Studio, token: str) -> None:
    teams = {"type": "plan", "commands": [{"type": "DO", "action": "facilities_list", "parameters": {}}]}
    status, created = call(served, "POST", "/api/reviews", {"plan": teams, "goal": "list facilities"}, token=token)
    assert status == 201, created
    _, review = call(served, "GET", f"/api/reviews/{created['id']}", token=token)
    assert review["format"] == "teams" and review["goal"] == "list facilities"
    assert json.loads(review["plan_text"])["commands"][0]["action"] == "facilities_list"


def test_the_agents_own_tools_are_checked_not_reported_unknown(served: Studio, token: str) -> None:
    tools = [{"name": "send_mail", "description": "Send a mail",
              "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]},
              "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}]
    plan = {"goal": "mail", "steps": [{"id": "m", "tool": "send_mail", "params": {}}]}
    status, created = call(served, "POST", "/api/reviews", {"plan": plan, "tools": tools}, token=token)
    assert status == 201
    _, review = call(served, "GET", f"/api/reviews/{created['id']}", token=token)
    assert [(p["field"], p["message"]) for p in review["problems"]] == [("params.to", "required parameter is missing")]


@pytest.mark.parametrize(("body", "field", "says"), [
    (b"{not json", "body", "is not JSON"),
    ({"agent": "x"}, "plan", "is required"),
    ({"plan": PLAN, "format": "yaml"}, "format", "unknown format 'yaml'"),
    ({"plan": {"goal": "g", "steps": [{"id": "a", "tool": 5}]}}, "plan", "steps.0.tool"),
    ({"plan": "<plan><function.x a=1/></plan>", "format": "sk"}, "plan", "sk: "),
    ({"plan": PLAN, "tools": [{"name": "t", "inputSchema": {"type": 3}}]}, "tools[0].inputSchema.type", "JSON schema"),
    ({"plan": PLAN, "colour": "red"}, "colour", "not a field"),
    ([1, 2], "body", "must be a JSON object"),
])
def test_a_submission_that_cannot_be_read_is_400_naming_the_field(served: Studio, token: str, body: Any,
                                                                   field: str, says: str) -> None:
    raw = body if isinstance(body, bytes) else None
    status, answer = call(served, "POST", "/api/reviews", None if raw else body, raw=raw, token=token)
    assert status == 400
    assert answer["field"] == field and says in answer["error"]


def test_an_oversized_body_is_413_and_a_bad_timeout_400(served: Studio, token: str) -> None:
    status, answer = announce_big_body(served, token)
    assert status == 413 and str(MAX_BODY_BYTES) in answer["error"]
    # Sent whole, in chunks without a length: counted as it arrives.
    big = json.dumps({"plan": {"goal": "x" * MAX_BODY_BYTES, "steps": []}}).encode()
    status, answer = call(served, "POST", "/api/reviews", raw=iter([big[:1000], big[1000:]]), token=token,
                          headers={"Transfer-Encoding": "chunked"})
    assert status == 413
    _, created = call(served, "POST", "/api/reviews", {"plan": PLAN}, token=token)
    for bad in ("soon", "-1", "nan", "100000"):
        status, answer = call(served, "GET", f"/api/reviews/{created['id']}/wait?timeout={bad}", token=token)
        assert (status, answer["field"]) == (400, "timeout")
    assert call(served, "GET", "/api/reviews/nope", token=token)[0] == 404


def test_a_hundred_concurrent_submissions_are_all_stored(served: Studio, token: str) -> None:
    with store(served) as opened:
        before = opened.count_reviews()
    def submit(n: int) -> tuple[int, str]:
        status, answer = call(served, "POST", "/api/reviews", {"plan": PLAN, "agent": f"swarm-{n}"}, token=token)
        return status, answer.get("id", "")
    with ThreadPoolExecutor(25) as pool:
        answers = list(pool.map(submit, range(100)))
    assert [status for status, _ in answers] == [201] * 100
    assert len({review_id for _, review_id in answers}) == 100
    with store(served) as opened:
        assert opened.count_reviews() == before + 100
        agents = {r.agent for r in opened.list_reviews(limit=10_000)}
    assert {f"swarm-{n}" for n in range(100)} <= agents


def test_waiting_agents_do_not_hold_up_other_calls(served: Studio, token: str) -> None:
    _, created = call(served, "POST", "/api/reviews", {"plan": PLAN}, token=token)
    done = threading.Event()
    waiters = [threading.Thread(target=lambda: (call(served, "GET", f"/api/reviews/{created['id']}/wait?timeout=20",
                                                     token=token), done.set())) for _ in range(8)]
    for waiter in waiters:
        waiter.start()
    status, _ = call(served, "GET", f"/api/reviews/{created['id']}", token=token)
    assert status == 200 and not done.is_set()  # answered while all eight still wait
    with store(served) as opened:
        opened.decide_review(created["id"], approve=False, comment="stop")
    for waiter in waiters:
        waiter.join(timeout=30)
    assert done.is_set()


def test_an_agent_process_waits_and_gets_the_plan_as_edited(served: Studio, token: str, tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(PLAN))
    agent = subprocess.Popen([sys.executable, str(HERE / "review_agent.py"), served.url, str(plan_file), "--wait", "60"],
                             env={**os.environ, "PLAN_STUDIO_TOKEN": token}, stdout=subprocess.PIPE, text=True)
    try:
        submitted = json.loads(agent.stdout.readline())
        assert submitted["event"] == "submitted"
        with store(served) as opened:
            sent = opened.get_review(submitted["id"]).plan
            edited = sent.model_copy(update={"steps": [
                sent.steps[0].model_copy(update={"params": {"location": "Leipzig"}}), sent.steps[1]]})
            opened.decide_review(submitted["id"], approve=True, plan=edited, comment="Leipzig")
        decided = json.loads(agent.stdout.readline())["review"]
        assert agent.wait(timeout=30) == 0
    finally:
        agent.kill()
        agent.wait()
    assert (decided["status"], decided["comment"]) == ("approved", "Leipzig")
    assert Plan.model_validate(decided["plan"]) == edited
    assert decided["decisions"] == [{"step_id": "fac", "decision": "edited"}, {"step_id": "ship", "decision": "approved"}]
    assert decided["approved_version"]["version"] == 1


def test_the_client_reports_api_errors_with_status_and_message(served: Studio, token: str) -> None:
    client = ReviewClient(served.url, token=token)
    review = client.submit(Plan.model_validate(PLAN), agent="client")
    assert client.wait(review, timeout=0.2).status == "pending"
    with pytest.raises(ReviewServiceError, match="HTTP 400: format: unknown format") as caught:
        client.submit(PLAN, format="yaml")
    assert caught.value.status == 400
    with pytest.raises(ReviewServiceError) as caught:
        ReviewClient(served.url, token="wrong").get(review)
    assert caught.value.status == 401
    with pytest.raises(ReviewServiceError, match="cannot reach"):
        ReviewClient("http://127.0.0.1:9", token=token).get(review)


def test_the_app_is_still_served_beside_the_api(served: Studio) -> None:
    # Opened as its owner does: the per-start address sets the cookie the page then needs.
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with browser.open(served.open_url, timeout=10) as response:
        assert response.status == 200 and b"<html" in response.read().lower()


def test_calls_on_a_kept_alive_connection_are_not_held_by_delayed_acks(served: Studio, token: str) -> None:
    # With Nagle on, each answer's body waits for the client's delayed ACK of its head: no call on
    # a reused connection could take under 40 ms. Figures: benchmarks/api_latency.py.
    _, created = call(served, "POST", "/api/reviews", {"plan": PLAN}, token=token)
    connection = http.client.HTTPConnection(served.url.removeprefix("http://"), timeout=30)
    took = []
    try:
        for _ in range(20):
            started = time.perf_counter()
            connection.request("GET", f"/api/reviews/{created['id']}", headers={"Authorization": f"Bearer {token}"})
            response = connection.getresponse()
            assert response.status == 200 and json.loads(response.read())["id"] == created["id"]
            took.append(time.perf_counter() - started)
    finally:
        connection.close()
    assert min(took[1:]) < 0.035, f"fastest reused-connection call took {1000 * min(took[1:]):.0f} ms"


def test_a_seed_plan_with_references_by_position_is_read_by_id_and_answered_by_position(
        served: Studio, token: str) -> None:
    seed = {"steps": [
        {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
        {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0],
         "parallel": False},
        {"tool": "contaminants_list", "params": {"shipment_ids": "${step[1].data.*.id}"}, "depends_on": [1],
         "parallel": False}]}
    status, created = call(served, "POST", "/api/reviews", {"plan": seed, "format": "seed", "goal": "chain"},
                           token=token)
    assert status == 201, created
    _, review = call(served, "GET", f"/api/reviews/{created['id']}", token=token)
    steps = review["plan"]["steps"]
    assert steps[2]["params"] == {"shipment_ids": f"${{steps.{steps[1]['id']}.data.*.id}}"}
    assert review["problems"] == []
    answered = json.loads(review["plan_text"])  # in the agent's own form: positions
    assert [s["params"] for s in answered["steps"]][1:] == [{"facility_id": "${step[0].data.*.id}"},
                                                          {"shipment_ids": "${step[1].data.*.id}"}]

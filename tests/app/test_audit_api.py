"""Issue 27, item 5: what the studio puts on record, and ``GET /api/audit``. A review submitted
over the API, its decision on the page, a run that waits, the decision on its step over the API
and the run's end each leave an event naming who, the channel and why; the API filters them,
pages them, names a bad filter, and answers nothing without the token. In-process (Starlette's
test client) over the services a studio holds."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from core import Settings, dump_plan
from studio import workbench as wb
from studio.api._audit_api import audit_routes
from studio.api._origin_guard import origin_guard
from studio.api._review_api import api_routes
from studio.api._run_decisions_api import run_routes
from studio.workbench._api_token import ensure_token
from core import LOCAL_ACTOR
from studio.workbench._services import build_services
from workbench_helpers import TODAY, run_until_a_marked_step_waits


@pytest.fixture
def studio(tmp_path: Path):
    services = build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=True))
    app = Starlette(routes=[*api_routes(lambda: services), *run_routes(lambda: services),
                            *audit_routes(lambda: services)], middleware=[origin_guard([])])
    client = TestClient(app, base_url="http://127.0.0.1:8501")
    yield client, {"Authorization": f"Bearer {ensure_token(services.settings.data_dir)}"}, services


def _events(client: TestClient, auth: dict[str, str], **query: object) -> list[dict]:
    answer = client.get("/api/audit", params=query, headers=auth)
    assert answer.status_code == 200, answer.text
    return answer.json()["events"]


def test_a_review_submitted_and_decided_and_a_run_decided_and_ended_are_on_record(studio) -> None:
    client, auth, services = studio
    bench, marked = run_until_a_marked_step_waits(services)
    run = bench.run
    sent = client.post("/api/reviews", headers=auth, json={"plan": dump_plan(run.plan, "native"), "format": "native",
                                                           "agent": "ci-bot"})
    assert sent.status_code == 201
    review_id = sent.json()["id"]
    reviewing = wb.Workbench()
    assert wb.open_review(reviewing, services.store, review_id).ok
    reviewing.comment = "fine <b>by me</b>"
    assert wb.decide_review(reviewing, services.store, review_id, approve=True,
                            validator=lambda: services.validator).ok
    shown = client.get(f"/api/runs/{run.id}/waiting", headers=auth).json()["waiting"][0]
    decided = client.post(f"/api/runs/{run.id}/steps/{marked}/decision", headers=auth,
                          json={"approve": True, "arguments_hash": shown["arguments_hash"]})
    assert decided.status_code == 200 and decided.json()["decided"]
    assert wb.join_stored_run(services, run.id, timeout=60)

    [submitted] = _events(client, auth, action="review.submitted")
    # Who called is the token's holder (here the shared token, "default"); the agent it names is the subject.
    assert submitted["actor"]["id"] == "agent:default" and submitted["actor"]["kind"] == "agent"
    assert submitted["channel"] == "api" and submitted["subject"] == {"review": review_id, "agent": "ci-bot"}
    assert submitted["detail"]["steps"] == len(run.plan.steps) and submitted["detail"]["format"] == "native"
    [review] = _events(client, auth, action="review.decided")
    assert review["actor"]["id"] == LOCAL_ACTOR.id and review["channel"] == "page"
    assert review["detail"]["approve"] is True and review["detail"]["comment"] == "fine <b>by me</b>"
    [step] = _events(client, auth, action="step.decided")
    tool = run.plan.step(marked).tool
    assert step["subject"] == {"run": run.id, "step": marked, "tool": tool, "agent": "agent:default"}
    assert step["channel"] == "api"
    assert step["detail"]["approve"] is True and step["detail"]["arguments_hash"] == shown["arguments_hash"]
    for_run = [e["action"] for e in _events(client, auth, run=run.id)]
    # Newest first: it ended; the decision; it stopped held for it; it started.
    assert for_run[0] == "run.ended" and for_run[-1] == "run.started"
    assert "step.decided" in for_run and "run.stopped" in for_run
    ended = _events(client, auth, run=run.id, action="run.ended")[0]
    assert ended["detail"]["status"] == "succeeded"
    stopped = _events(client, auth, run=run.id, action="run.stopped")[0]
    assert stopped["detail"]["reason"] == "held"
    # Filters: by tool and by agent keep exactly those.
    assert [e["action"] for e in _events(client, auth, tool=tool)] == ["step.decided"]
    assert [e["action"] for e in _events(client, auth, agent="ci-bot")] == ["review.decided", "review.submitted"]
    assert [e["action"] for e in _events(client, auth, person=LOCAL_ACTOR.id, action="review.decided")] == \
        ["review.decided"]


def test_the_api_pages_filters_by_time_and_names_a_bad_filter(studio) -> None:
    client, auth, services = studio
    for number in range(7):
        services.store.audit.append(LOCAL_ACTOR, "policy.changed", channel="page", detail={"n": number})
    first = client.get("/api/audit", params={"limit": 3}, headers=auth).json()
    assert [e["detail"]["n"] for e in first["events"]] == [6, 5, 4]
    second = client.get("/api/audit", params={"limit": 3, "cursor": first["next_cursor"]}, headers=auth).json()
    assert [e["detail"]["n"] for e in second["events"]] == [3, 2, 1]
    last = client.get("/api/audit", params={"limit": 3, "cursor": second["next_cursor"]}, headers=auth).json()
    assert [e["detail"]["n"] for e in last["events"]] == [0] and last["next_cursor"] is None
    now = dt.datetime.now(dt.timezone.utc)
    assert len(_events(client, auth, since=(now - dt.timedelta(hours=1)).isoformat())) == 7
    assert _events(client, auth, until=(now - dt.timedelta(hours=1)).isoformat()) == []
    for query, field in (({"since": "yesterday"}, "since"), ({"limit": "0"}, "limit"), ({"limit": "x"}, "limit"),
                         ({"colour": "red"}, "colour"), ({"since": "2026-02-01", "until": "2026-01-01"}, "until"),
                         ({"tool": "t" * 600}, "tool")):
        answer = client.get("/api/audit", params=query, headers=auth)
        assert answer.status_code == 400 and answer.json()["field"] == field, (query, answer.text)


def test_without_the_token_the_audit_says_nothing(studio) -> None:
    client, auth, services = studio
    services.store.audit.append(LOCAL_ACTOR, "policy.changed", detail={"secret": "rule text"})
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        answer = client.get("/api/audit", headers=headers)
        assert answer.status_code == 401 and "rule text" not in answer.text
    assert client.post("/api/audit", headers=auth).status_code == 405  # nothing to write, change or delete
    assert client.delete("/api/audit", headers=auth).status_code == 405

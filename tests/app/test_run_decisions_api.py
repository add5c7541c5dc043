"""Issue 17, item 5 (review API): a run's waiting steps and a decision on one, over HTTP, with
the review API's token and origin rules. In-process (Starlette's test client) over the
workbench a page holds: the run waits in this process, as it does in the studio's."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from core import Settings, StepStatus
from studio.workbench._api_token import ensure_token
from studio.api._origin_guard import origin_guard
from studio.api._run_decisions_api import run_routes
from studio.workbench._services import build_services
from studio.workbench import join_stored_run
from workbench_helpers import TODAY, run_until_a_marked_step_waits


@pytest.fixture
def held(tmp_path: Path):
    services = build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=True))
    bench, marked = run_until_a_marked_step_waits(services)
    app = Starlette(routes=run_routes(lambda: services), middleware=[origin_guard([])])
    client = TestClient(app, base_url="http://127.0.0.1:8501")
    token = ensure_token(services.settings.data_dir)
    yield client, {"Authorization": f"Bearer {token}"}, bench, marked, services


def test_the_waiting_steps_come_with_their_resolved_arguments_and_hash(held) -> None:
    client, auth, bench, marked, services = held
    answer = client.get(f"/api/runs/{bench.run.id}/waiting", headers=auth)
    assert answer.status_code == 200
    [waiting] = answer.json()["waiting"]
    assert waiting["step_id"] == marked and waiting["arguments"] == bench.run.steps[marked].arguments
    assert answer.json()["status"] == "waiting" and len(waiting["arguments_hash"]) == 64


def test_a_decision_with_the_hash_shown_is_kept_on_the_run(held) -> None:
    client, auth, bench, marked, services = held
    shown = client.get(f"/api/runs/{bench.run.id}/waiting", headers=auth).json()["waiting"][0]
    stale = client.post(f"/api/runs/{bench.run.id}/steps/{marked}/decision", headers=auth,
                        json={"approve": True, "arguments_hash": "0" * 64})
    assert stale.status_code == 409 and "arguments changed" in stale.json()["notices"][0]["text"]
    answer = client.post(f"/api/runs/{bench.run.id}/steps/{marked}/decision", headers=auth,
                         json={"approve": True, "arguments_hash": shown["arguments_hash"]})
    assert answer.status_code == 200 and answer.json()["decided"] is True
    decision = bench.run.steps[marked].decision
    assert decision.approved and decision.by == "api" and decision.arguments_hash == shown["arguments_hash"]
    # Nothing else waits: the run went on in the studio, the approved step run with those arguments.
    assert "the run goes on in the studio" in answer.json()["notices"][-1]["text"]
    assert join_stored_run(services, bench.run.id, timeout=60)
    stored = services.store.load_run(bench.run.id)
    assert stored.finished and stored.steps[marked].status == StepStatus.succeeded
    assert stored.steps[marked].arguments == shown["arguments"]


def test_bad_requests_say_what_is_wrong_and_strangers_get_nothing(held) -> None:
    client, auth, bench, marked, services = held
    url = f"/api/runs/{bench.run.id}/steps/{marked}/decision"
    assert client.post(url, json={"approve": True}).status_code == 401
    assert client.get(f"/api/runs/{bench.run.id}/waiting").status_code == 401
    bad = client.post(url, headers=auth, json={"approve": "yes"})
    assert bad.status_code == 400 and bad.json()["field"] == "approve"
    assert client.get("/api/runs/nope/waiting", headers=auth).status_code == 404
    other_site = client.post(url, headers={**auth, "Origin": "https://evil.example"}, json={"approve": True})
    assert other_site.status_code == 403
    assert bench.run.steps[marked].status == StepStatus.waiting and bench.run.steps[marked].decision is None

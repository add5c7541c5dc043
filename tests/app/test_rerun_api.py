"""Issue 17, item 3 (review API): ``POST /api/runs/{id}/rerun`` retries a run's failed steps or
reruns it from a step, or with ``dry_run`` only says what would run again; behind the review
API's token and origin rules. In-process (Starlette's test client), a real store."""

from __future__ import annotations

from pathlib import Path

import pytest
from rerun_helpers import Tools, ran_with_b_failing, rerun_services
from starlette.applications import Starlette
from starlette.testclient import TestClient

from studio import workbench as wb
from studio.workbench._api_token import ensure_token
from studio.api._origin_guard import origin_guard
from studio.api._rerun_api import rerun_routes


@pytest.fixture
def api(tmp_path: Path):
    tools = Tools()
    services = rerun_services(tmp_path, tools)
    parent = ran_with_b_failing(services, tools).run  # durable: stored from its first step
    client = TestClient(Starlette(routes=rerun_routes(lambda: services), middleware=[origin_guard([])]),
                        base_url="http://127.0.0.1:8501")
    auth = {"Authorization": f"Bearer {ensure_token(services.settings.data_dir)}"}
    yield client, auth, services, tools, parent


def test_a_dry_run_says_what_runs_again_and_starts_nothing(api) -> None:
    client, auth, services, tools, parent = api
    answer = client.post(f"/api/runs/{parent.id}/rerun", headers=auth, json={"from": "b", "dry_run": True})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["run_id"] is None and body["parent_id"] == parent.id and body["from"] == "b"
    assert [(s["step_id"], s["again"], s["writes"]) for s in body["steps"]] == [
        ("a", False, False), ("b", True, False), ("c", False, False), ("d", True, True), ("e", False, True)]
    assert tools.calls == [] and len(services.store.records.recent()) == 1


def test_a_retry_starts_a_linked_run_that_runs_the_failed_step_and_its_dependants(api) -> None:
    client, auth, services, tools, parent = api
    answer = client.post(f"/api/runs/{parent.id}/rerun", headers=auth, json={"retry": True})
    assert answer.status_code == 201, answer.text
    run_id = answer.json()["run_id"]
    assert services.store.records.lineage(run_id) == (parent.id, "b")
    assert wb.join_rerun(services, run_id, timeout=60)
    child = services.store.load_run(run_id)
    assert child.status == "succeeded" and sorted(tools.calls) == ["b", "d"]


def test_refusals_name_what_and_strangers_get_nothing(api) -> None:
    client, auth, services, tools, parent = api
    url = f"/api/runs/{parent.id}/rerun"
    assert client.post(url, json={"retry": True}).status_code == 401
    assert client.post(url, headers={**auth, "Origin": "https://evil.example"}, json={"retry": True}).status_code == 403
    unknown = client.post(url, headers=auth, json={"from": "zz"})
    assert unknown.status_code == 409 and "no step 'zz'" in unknown.json()["error"]
    for body, field in (({}, "from"), ({"from": "b", "retry": True}, "from"), ({"retry": "yes"}, "retry"),
                        ({"from": 3}, "from"), ({"retry": True, "dry_run": "no"}, "dry_run"), ([1], "body")):
        bad = client.post(url, headers=auth, json=body)
        assert bad.status_code == 400 and bad.json()["field"] == field, (body, bad.json())
    assert client.post("/api/runs/nope/rerun", headers=auth, json={"retry": True}).status_code == 404
    assert tools.calls == [] and len(services.store.records.recent()) == 1

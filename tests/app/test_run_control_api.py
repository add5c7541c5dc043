"""Issue 17, items 2 and 4 (review API): POST /api/runs/{id}/resume carries on a run cut off
(a step in doubt needs a decision, finished steps are not run again) and POST
/api/runs/{id}/cancel ends a run going on in the studio; with the review API's token and origin
rules. In-process (Starlette's test client), a real store in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from core import Settings
from durable_page_helpers import PLAN, WAIT, Gate, cut_off_at_b, tools_for
from studio import workbench as wb
from studio.workbench._api_token import ensure_token
from studio.api._origin_guard import origin_guard
from studio.api._run_control_api import run_control_routes
from studio.workbench._services import Services, build_services
from workbench_helpers import TODAY


@pytest.fixture
def gate() -> Gate:
    made = Gate()
    yield made
    made.release.set()


@pytest.fixture
def api(tmp_path: Path, gate: Gate):
    services = build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=False),
                              registry=tools_for(gate))
    client = TestClient(Starlette(routes=run_control_routes(lambda: services), middleware=[origin_guard([])]),
                        base_url="http://127.0.0.1:8501")
    auth = {"Authorization": f"Bearer {ensure_token(services.settings.data_dir)}"}
    yield client, auth, services


def _wait_until_ended(services: Services, run_id: str) -> None:
    assert services.runs.join(run_id, WAIT)


def test_resume_over_the_api_asks_about_a_step_in_doubt_then_finishes_without_rerunning(api, gate: Gate) -> None:
    client, auth, services = api
    run_id, _plan_id = cut_off_at_b(services)
    asked = client.post(f"/api/runs/{run_id}/resume", headers=auth)
    assert asked.status_code == 409 and asked.json()["resumed"] is False
    assert "step 1 (hold)" in asked.json()["notices"][0]["text"]
    assert [(s["step_id"], s["writes"], s["in_doubt"]) for s in asked.json()["again"]] == [
        ("b", True, True), ("c", False, False)]
    bad = client.post(f"/api/runs/{run_id}/resume", headers=auth, json={"decisions": {"b": "maybe"}})
    assert bad.status_code == 400 and bad.json()["field"] == "decisions.b"
    gate.release.set()
    answer = client.post(f"/api/runs/{run_id}/resume", headers=auth, json={"decisions": {"b": "again"}})
    assert answer.status_code == 202 and answer.json()["resumed"] is True
    _wait_until_ended(services, run_id)
    run = services.store.load_run(run_id)
    assert run.finished and run.steps["c"].result == 3
    assert gate.calls == ["hold 1", "count 2"], "step a finished before the kill: not run again"
    again = client.post(f"/api/runs/{run_id}/resume", headers=auth)
    assert again.status_code == 409 and "finished" in again.json()["notices"][0]["text"]


def test_cancel_over_the_api_ends_the_page_run_and_keeps_what_finished(api, gate: Gate) -> None:
    client, auth, services = api
    bench = wb.Workbench()
    wb.show_plan(bench, PLAN, saved=None)
    assert wb.approve(bench, services.validator).ok and wb.request_run(bench, services, "all").ok
    assert gate.entered.wait(WAIT)
    run_id = bench.worker.progress().run_id
    answer = client.post(f"/api/runs/{run_id}/cancel", headers=auth)
    assert answer.status_code == 200 and answer.json()["cancelled"] is True
    assert bench.worker.join(WAIT)
    wb.collect_finished_run(bench, lambda: services.store)
    stored = services.store.load_run(run_id)
    assert {s.step_id: s.status.value for s in stored.steps.values()} == {
        "a": "succeeded", "b": "cancelled", "c": "pending"}
    assert stored.steps["a"].result == 1
    not_running = client.post(f"/api/runs/{run_id}/cancel", headers=auth)
    assert not_running.status_code == 409 and "not running here" in not_running.json()["notices"][0]["text"]


def test_strangers_get_nothing_and_unknown_runs_are_404(api) -> None:
    client, auth, services = api
    run_id, _plan_id = cut_off_at_b(services)
    for action in ("resume", "cancel"):
        url = f"/api/runs/{run_id}/{action}"
        assert client.post(url).status_code == 401
        assert client.post(url, headers={**auth, "Origin": "https://evil.example"}).status_code == 403
        assert client.post(f"/api/runs/nope/{action}", headers=auth).status_code == 404
    assert services.store.load_run(run_id).steps["b"].status.value == "running", "nothing was resumed"

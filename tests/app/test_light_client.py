"""Issue 28, item 3: the light client (clients/python, ``plan-studio-client``) built and installed
from this repository into a fresh venv with uv (httpx and pydantic only, from the package cache),
used by an agent process against a real studio; withdrawing a review (its submitter or an
admin, on the audit, never approved after); and JSON everywhere under /api/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import Studio, start_studio
from core import LOCAL_ACTOR, ReviewDecided, Role, Settings
from core.storage import PlanStore
from core.storage._audit import AuditFilter

HERE = Path(__file__).resolve().parents[1]
CLIENT = HERE.parent / "clients" / "python"
PLAN = {"goal": "Facilities in Berlin", "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}}]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("light-client"))


@pytest.fixture(scope="module")
def token(served: Studio) -> str:
    return (served.data_dir / "api-token").read_text().strip()


def agent_token(served: Studio, name: str, role: Role = Role.reviewer) -> str:
    from studio.workbench._agent_tokens import create_token
    from studio.workbench._services import build_services
    _, made = create_token(build_services(Settings(data_dir=served.data_dir)), name, role=role, actor=LOCAL_ACTOR)
    return made


def call(served: Studio, method: str, path: str, body: Any = None, *, token: str | None = None) -> tuple[int, Any, str]:
    request = urllib.request.Request(served.url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read()), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), exc.headers.get("Content-Type", "")


def test_the_client_installs_alone_in_a_fresh_venv_and_an_agent_submits_waits_and_withdraws(
        served: Studio, token: str, tmp_path: Path) -> None:
    uv = shutil.which("uv")
    assert uv, "uv is needed to build the client"
    venv = tmp_path / "venv"
    env = {**os.environ, "UV_OFFLINE": "1"}  # from the package cache: nothing but this repository is fetched
    subprocess.run([uv, "venv", "-q", "-p", sys.executable, str(venv)], check=True, env=env)
    python = venv / "bin" / "python"
    subprocess.run([uv, "pip", "install", "-q", "--python", str(python), str(CLIENT)], check=True, env=env)
    listed = subprocess.run([uv, "pip", "list", "--python", str(python), "--format", "json"], check=True,
                            capture_output=True, text=True, env=env).stdout
    installed = {p["name"] for p in json.loads(listed)}
    assert {"plan-studio-client", "httpx", "pydantic"} <= installed
    assert not installed & {"plan-studio", "streamlit", "sqlmodel", "mcp", "openai"}, installed
    assert len(installed) <= 15, installed  # the whole app is ~130 packages

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(PLAN))
    agent = subprocess.Popen([str(python), str(HERE / "light_client_agent.py"), served.url, str(plan_file)],
                             env={**os.environ, "PLAN_STUDIO_TOKEN": token}, stdout=subprocess.PIPE, text=True,
                             cwd=tmp_path)  # not the repository: only the installed client is importable
    try:
        submitted = json.loads(agent.stdout.readline())
        assert submitted["status"] == "pending" and submitted["review_id"] == submitted["id"]
        with PlanStore(served.data_dir / "studio.sqlite3") as store:
            sent = store.get_review(submitted["review_id"]).plan
            edited = sent.model_copy(update={"steps": [sent.steps[0].model_copy(update={"params": {"location": "Leipzig"}})]})
            store.decide_review(submitted["review_id"], approve=True, plan=edited, comment="Leipzig")
        decided = json.loads(agent.stdout.readline())
        withdrawn = json.loads(agent.stdout.readline())
        both = json.loads(agent.stdout.readline())
        assert agent.wait(timeout=60) == 0
    finally:
        agent.kill()
        agent.wait()
    assert decided["status"] == "approved" and decided["verdicts"] == {"fac": "edited"}
    assert decided["plan"]["steps"][0]["params"] == {"location": "Leipzig"}
    assert withdrawn == {"event": "withdrawn", "status": "withdrawn"}
    assert both == {"event": "async", "status": "pending", "withdrawn": "withdrawn", "again": 409}


def test_only_its_submitter_or_an_admin_withdraws_a_review_and_then_nobody_approves_it(
        served: Studio, token: str) -> None:
    mine, other = agent_token(served, "withdrawer"), agent_token(served, "bystander")
    _, created, _ = call(served, "POST", "/api/reviews", {"plan": PLAN, "agent": "withdrawer"}, token=mine)
    review_id = created["review_id"]
    status, refused, _ = call(served, "POST", f"/api/reviews/{review_id}/withdraw", {}, token=other)
    assert status == 403 and "only the agent that sent it" in refused["error"]
    status, answer, _ = call(served, "POST", f"/api/reviews/{review_id}/withdraw", {"reason": "plan changed"},
                             token=mine)
    assert (status, answer["status"], answer["comment"]) == (200, "withdrawn", "plan changed")
    status, again, _ = call(served, "DELETE", f"/api/reviews/{review_id}", token=mine)
    assert status == 409 and again["status"] == "withdrawn"
    with PlanStore(served.data_dir / "studio.sqlite3") as store:
        with pytest.raises(ReviewDecided, match="already withdrawn"):
            store.decide_review(review_id, approve=True)
        [event] = store.audit.query(AuditFilter(review=review_id, action="review.withdrawn")).events
    assert event.actor_name.startswith("withdrawer") and (event.channel, event.detail["reason"]) == ("api", "plan changed")
    # An admin (the studio's own token) withdraws anyone's, with DELETE.
    _, created, _ = call(served, "POST", "/api/reviews", {"plan": PLAN}, token=other)
    status, answer, _ = call(served, "DELETE", f"/api/reviews/{created['review_id']}", token=token)
    assert (status, answer["status"]) == (200, "withdrawn")
    status, listed, _ = call(served, "GET", "/api/reviews?status=withdrawn", token=token)
    assert status == 200 and {r["review_id"] for r in listed["reviews"]} >= {review_id, created["review_id"]}


def test_every_path_under_api_answers_json_never_the_page(served: Studio, token: str) -> None:
    status, listed, kind = call(served, "GET", "/api/reviews", token=token)
    assert status == 200 and kind.startswith("application/json") and isinstance(listed["reviews"], list)
    for method, path in (("GET", "/api/nothing"), ("POST", "/api/reviews/x/y/z"), ("GET", "/api/")):
        status, answer, kind = call(served, method, path, {} if method == "POST" else None, token=token)
        assert (status, kind) == (404, "application/json") and path in answer["error"], (method, path, answer)
    status, answer, _ = call(served, "GET", "/api/runs/r1/cancel", token=token)
    assert status == 405 and "POST" in answer["error"]
    status, answer, kind = call(served, "GET", "/api/nothing")
    assert (status, kind) == (401, "application/json") and "error" in answer
    status, answer, _ = call(served, "GET", "/api/reviews?status=maybe", token=token)
    assert status == 400 and answer["field"] == "status"


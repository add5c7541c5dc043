"""Agents' own tokens on a real studio: each role may do what it holds and gets 403 naming the
role it lacks; an unknown token is 401; a token revoked while its agent works gets 401 on its
next call, saying it was revoked; the shared token keeps working as the admin token 'default'."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from conftest import Studio, start_studio
from core import LOCAL_ACTOR, Role, Settings
from studio.workbench._agent_tokens import create_token
from studio.workbench._services import build_services
from test_review_api import PLAN, call


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("api-roles"))


@pytest.fixture(scope="module")
def tokens(served: Studio) -> dict[str, str]:
    services = build_services(Settings(data_dir=served.data_dir))
    made = {role.name: create_token(services, f"{role.name}-bot", role=role, actor=LOCAL_ACTOR)[1] for role in Role}
    services.store.close()
    return made


def test_a_viewer_reads_but_may_not_submit(served: Studio, tokens: dict[str, str]) -> None:
    status, body = call(served, "POST", "/api/reviews", {"plan": PLAN, "agent": "v"}, token=tokens["viewer"])
    assert status == 403
    assert body == {"error": "viewer-bot (token viewer-bot) (agent:viewer-bot) may not submit a plan for review: "
                             "that needs the reviewer role (they have viewer)", "needed": "reviewer"}
    status, made = call(served, "POST", "/api/reviews", {"plan": PLAN, "agent": "r"}, token=tokens["reviewer"])
    assert status == 201
    status, seen = call(served, "GET", f"/api/reviews/{made['id']}", token=tokens["viewer"])
    assert (status, seen["status"], seen["submitted_by"]) == (200, "pending", "agent:reviewer-bot")


@pytest.mark.parametrize(("role", "allowed"), [("viewer", False), ("reviewer", False), ("approver", True),
                                               ("admin", True)])
def test_only_approvers_decide_on_a_waiting_step(served: Studio, tokens: dict[str, str], role: str,
                                                 allowed: bool) -> None:
    status, body = call(served, "POST", "/api/runs/nope/steps/a/decision", {"approve": True, "shown_hash": "h"},
                        token=tokens[role])
    if allowed:
        assert status == 404  # past the role check: there is no such run
    else:
        assert status == 403 and body["needed"] == "approver"


def test_a_viewer_may_not_resume_or_cancel_a_run(served: Studio, tokens: dict[str, str]) -> None:
    for path in ("/api/runs/x/resume", "/api/runs/x/cancel"):
        status, answer = call(served, "POST", path, {}, token=tokens["viewer"])
        assert (status, answer["needed"]) == (403, "reviewer"), path
        assert call(served, "POST", path, {}, token=tokens["reviewer"])[0] == 404, path  # past the check


def test_an_unknown_token_is_401_and_the_shared_one_is_the_admin_default(served: Studio) -> None:
    status, body = call(served, "GET", "/api/reviews/x", token="ps_not-a-token")
    assert status == 401 and "revoked" not in body["error"]
    shared = (served.data_dir / "api-token").read_text().strip()
    assert call(served, "POST", "/api/reviews", {"plan": PLAN, "agent": "old"}, token=shared)[0] == 201


def _cli(served: Studio, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAN_STUDIO_")}
    command = Path(sys.executable).with_name("plan-studio")
    return subprocess.run([str(command), *args, "--data-dir", str(served.data_dir)], env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_token_revoked_while_its_agent_works_is_refused_on_the_next_call(served: Studio) -> None:
    made = _cli(served, "token", "create", "night-run", "--role", "reviewer")
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert "shown only now" in made.stderr and token not in made.stderr
    status, review = call(served, "POST", "/api/reviews", {"plan": PLAN, "agent": "night"}, token=token)
    assert status == 201
    assert _cli(served, "token", "revoke", "night-run").returncode == 0
    status, body = call(served, "GET", f"/api/reviews/{review['id']}", token=token)
    assert status == 401
    assert "'night-run' was revoked" in body["error"]
    listed = _cli(served, "token", "list").stdout
    line = next(l for l in listed.splitlines() if l.startswith("night-run\t"))
    assert "agent:night-run" in line and "reviewer" in line and "revoked" in line and token not in listed

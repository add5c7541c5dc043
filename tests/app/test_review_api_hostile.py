"""Hostile schemas over the real review API: a backtracking pattern in an agent's tool answers
in bounded time with a problem naming the step and field while the health check keeps
answering; a schema nested 100 levels is a 400 naming the field, with no traceback in the log.

The bounds are generous liveness bounds (the fixed studio answers in well under a second;
before, one review took minutes and froze every other call): see benchmarks/hostile_schema.py
for figures."""

from __future__ import annotations

import threading
import time
import urllib.request
from typing import Any, Iterator

import pytest

from conftest import Studio, start_studio
from test_review_api import call

LIVENESS_SECONDS = 30.0
HEALTH_SECONDS = 5.0


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("review-api-hostile"))


@pytest.fixture(scope="module")
def token(served: Studio) -> str:
    return (served.data_dir / "api-token").read_text().strip()


def submission(pattern: str, value: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"text": {"type": "string", "pattern": pattern}}}
    return {"plan": {"goal": "echo", "steps": [
                {"id": "ok", "tool": "echo", "params": {"text": "aaaa"}},
                {"id": "evil", "tool": "echo", "params": {"text": value}}]},
            "tools": [{"name": "echo", "inputSchema": schema}]}


def health_seconds(served: Studio) -> float:
    started = time.monotonic()
    with urllib.request.urlopen(served.url + "/_stcore/health", timeout=HEALTH_SECONDS) as response:
        assert response.status == 200
    return time.monotonic() - started


@pytest.mark.parametrize("pattern", ["^(a+)+$", "^(?=(a|aa)+$)"], ids=["re2", "lookahead-timeout"])
def test_a_backtracking_pattern_answers_in_bounded_time_and_the_studio_stays_up(
        served: Studio, token: str, pattern: str) -> None:
    answers: dict[str, Any] = {}

    def review() -> None:
        status, created = call(served, "POST", "/api/reviews", submission(pattern, "a" * 40 + "!"), token=token)
        answers["created"] = status
        answers["review"] = call(served, "GET", f"/api/reviews/{created['id']}", token=token)
    agent = threading.Thread(target=review, daemon=True)
    started = time.monotonic()
    agent.start()
    health = []
    while agent.is_alive() and time.monotonic() - started < LIVENESS_SECONDS:
        health.append(health_seconds(served))  # raises if the studio stops answering
    agent.join(timeout=1)
    assert not agent.is_alive(), f"the review took over {LIVENESS_SECONDS} s"
    assert max(health) < HEALTH_SECONDS
    status, view = answers["review"]
    assert (answers["created"], status) == (201, 200)
    assert [(p["step_index"], p["step_id"], p["field"]) for p in view["problems"]] == [(1, "evil", "params.text")]
    assert pattern in view["problems"][0]["message"]


def test_a_schema_nested_100_levels_is_400_naming_the_field_without_a_traceback(served: Studio, token: str) -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(100):
        schema = {"type": "object", "properties": {"x": schema}}
    body = {"plan": {"goal": "g", "steps": [{"id": "a", "tool": "deep", "params": {}}]},
            "tools": [{"name": "deep", "inputSchema": schema}]}
    status, answer = call(served, "POST", "/api/reviews", body, token=token)
    assert (status, answer["field"]) == (400, "tools[0].inputSchema")
    assert "nested more than 64 levels" in answer["error"]
    assert "Traceback" not in served.log.read_text(errors="replace")

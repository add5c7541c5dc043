"""The Plan page with the LLM planner, the scripted model server standing in for the model:
a timeout and an HTTP 500 lose nothing, a re-plan goes through the model and keeps locks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_server import LLMServer
from streamlit.testing.v1 import AppTest

from studio import Keys
from apptest_helpers import APP, GOAL, make_plan, no_failures, texts

BERLIN = {"steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}", "has_contaminants": True},
     "depends_on": [0], "parallel": False},
]}


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llm_server: LLMServer) -> AppTest:
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    monkeypatch.setenv("PLAN_STUDIO_PLANNER", "llm")
    monkeypatch.setenv("PLAN_STUDIO_MODEL", "test-model")
    monkeypatch.setenv("PLAN_STUDIO_TIMEOUT", "1")
    monkeypatch.setenv("PLAN_STUDIO_FIRST_TIMEOUT", "1")
    monkeypatch.delenv("PLAN_STUDIO_DB", raising=False)
    return AppTest.from_file(str(APP), default_timeout=60).run()


def error_texts(at: AppTest) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def test_a_model_timeout_says_so_and_keeps_the_goal_and_the_plan(app: AppTest, llm_server: LLMServer) -> None:
    llm_server.reply(json.dumps(BERLIN))
    plan = make_plan(app)
    assert len(llm_server.requests) == 1

    llm_server.reply(json.dumps(BERLIN), delay=3)
    make_plan(app, "Show me failed inspections in Hamburg")
    [error] = error_texts(app)
    assert error.startswith("Could not make a plan:") and "timed out after 1 s" in error
    assert app.text_input(key=Keys.GOAL).value == "Show me failed inspections in Hamburg"
    assert app.session_state[Keys.BENCH].plan == plan
    assert json.loads(app.text_area(key=Keys.JSON).value)["goal"] == GOAL


def test_a_model_sending_its_headers_slowly_is_cut_off_and_the_plan_says_so(app: AppTest,
                                                                            llm_server: LLMServer) -> None:
    # One header line every 0.3 s never trips a per-read timeout of 1 s; the whole answer's does.
    llm_server.slow_headers(every=0.3)
    app.text_input(key=Keys.GOAL).input(GOAL)
    app.button(key="plan.make").click().run()
    assert llm_server.hung_up() < 1 + 15  # on the server's clock: the limit, and a margin for a loaded machine
    no_failures(app)
    [error] = error_texts(app)
    assert error.startswith("Could not make a plan:") and "timed out after 1 s" in error
    assert app.text_input(key=Keys.GOAL).value == GOAL


def test_an_http_500_says_so_and_keeps_what_the_user_had(app: AppTest, llm_server: LLMServer) -> None:
    llm_server.fail(500, "model overloaded")
    app.text_input(key=Keys.GOAL).input(GOAL)
    app.button(key="plan.make").click().run()
    no_failures(app)
    [error] = error_texts(app)
    assert error.startswith("Could not make a plan:") and "500" in error and "model overloaded" in error
    assert app.text_input(key=Keys.GOAL).value == GOAL
    assert app.session_state[Keys.BENCH].plan is None


def test_a_replan_through_the_model_keeps_the_locked_step(app: AppTest, llm_server: LLMServer) -> None:
    llm_server.reply(json.dumps(BERLIN))
    first = make_plan(app)
    app.multiselect(key=Keys.LOCKS).set_value([first.steps[1].id]).run()

    # The model changes both steps; the locked one must come out as it was.
    changed = json.loads(json.dumps(BERLIN))
    changed["steps"][0]["params"]["location"] = "Munich"
    changed["steps"][1]["params"]["risk_level"] = "high"
    llm_server.reply(json.dumps(changed))
    app.text_area(key=Keys.FEEDBACK).input("use Munich instead")
    app.button(key="plan.replan").click().run()
    no_failures(app)
    assert not app.error, error_texts(app)
    new = app.session_state[Keys.BENCH].plan
    assert new.steps[0].params == {"location": "Munich"}
    assert new.steps[1] == first.steps[1].model_copy(update={"locked": True})
    sent = llm_server.text_of(1)
    assert "use Munich instead" in sent and "locked" in sent
    assert "Re-planned as version 2" in texts(app)

"""The LLM planner and its model client, against a real OpenAI-compatible socket server."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import logging
import resource
import socket
import time
import traceback
import zlib
from pathlib import Path

import pytest

from conftest import TEST_API_KEY
from llm_server import gzip_bomb
from core import Plan, PlannerError, PlannerUnavailable, RepairLimitReached, Settings
from core.formats import plan_from_seed, plan_to_seed
from core.llm import NOT_CONFIGURED, ModelClient
from core.planners import LLMPlanner, PlanContext, Planner, make_planner
from core.planners.llm._reply import MAX_REPLY_CHARS
from tools import build_registry

TODAY = dt.date(2025, 10, 12)

BERLIN_SHIPMENTS = {"steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0],
     "parallel": False},
]}


def reply(plan: dict) -> str:
    return json.dumps(plan)


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, today=TODAY, planner="llm", model="test-model",
                    temperature=0.3, max_retries=2, timeout=5, first_timeout=5)


@pytest.fixture
def registry(settings):
    return build_registry(settings, groups=["waste"])


@pytest.fixture
def planner(registry, settings, llm_server) -> LLMPlanner:
    return LLMPlanner(registry, settings)


def seed_steps(plan: Plan) -> list[tuple[str, dict, list[str], bool]]:
    return [(s.tool, s.params, plan.dependencies_of(s.id), s.parallel) for s in plan.steps]


# -- a good first reply -------------------------------------------------------------------------
def test_a_valid_first_reply_costs_exactly_one_request(planner, llm_server, settings):
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    plan = planner.plan("Get facilities in Berlin, then their shipments", today=TODAY)

    assert len(llm_server.requests) == 1
    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list"]
    assert plan.steps[0].params == {"location": "Berlin"}
    assert plan.dependencies_of(plan.steps[1].id) == [plan.steps[0].id]
    assert plan.goal == "Get facilities in Berlin, then their shipments"
    meta = plan.metadata.model_dump(mode="json")
    assert meta["planner"] == "llm" and meta["model"] == "test-model"
    assert meta["attempts"] == 1 and meta["today"] == "2025-10-12"

    request = llm_server.requests[0]
    assert request["model"] == "test-model"
    assert request["temperature"] == 0.3
    fmt = request["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "plan" and fmt["json_schema"]["strict"] is False
    assert "steps" in fmt["json_schema"]["schema"]["properties"]
    system, user = request["messages"]
    assert system["role"] == "system" and user == {"role": "user",
                                                   "content": "Goal: Get facilities in Berlin, then their shipments"}
    # today, how to write dates (as the goal says them: the studio works them out), the
    # reference syntax and the manual
    assert "Today is 2025-10-12 (Sunday)" in system["content"]
    assert '"date_from": "last week", "date_to": "last week"' in system["content"]
    assert "${step[0].data.*.id}" in system["content"]
    for name in ("facilities_list", "shipments_list", "contaminants_list", "inspections_list"):
        assert f"### {name}" in system["content"]


def test_prose_and_fences_around_the_json_are_accepted(planner, llm_server):
    llm_server.reply("Sure! Here is the plan you asked for:\n\n```json\n"
                     + json.dumps(BERLIN_SHIPMENTS, indent=2) + "\n```\n\nLet me know if you want changes.")
    plan = planner.plan("Get facilities in Berlin, then their shipments", today=TODAY)
    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list"]
    assert len(llm_server.requests) == 1


def test_locks_in_a_new_plan_are_the_users_decision_not_the_models(planner, llm_server):
    steps = [dict(BERLIN_SHIPMENTS["steps"][0], locked=True)]
    llm_server.reply(reply({"steps": steps}))
    plan = planner.plan("Get facilities in Berlin", today=TODAY)
    assert plan.steps[0].locked is False


def test_the_models_metadata_cannot_overrule_the_planners(planner, llm_server):
    llm_server.reply(reply({**BERLIN_SHIPMENTS, "metadata": {"planner": "embedded", "today": "1999-01-01",
                                                             "goal": "something else"}}))
    plan = planner.plan("Berlin shipments", today=TODAY)
    assert plan.metadata.planner == "llm" and plan.metadata.today == TODAY
    assert plan.goal == "Berlin shipments"


# -- the repair loop ------------------------------------------------------------------------------
def test_broken_json_then_a_fix_feeds_the_parse_error_back(planner, llm_server):
    broken = '{"steps": [{"tool": "facilities_list" "params": {"location": "Berlin"}}]}'
    llm_server.reply(broken)
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    plan = planner.plan("Berlin facilities and their shipments", today=TODAY)

    assert len(llm_server.requests) == 2
    assert plan.metadata.model_dump()["attempts"] == 2
    second = llm_server.messages(1)
    assert second[:2] == llm_server.messages(0)  # same conversation, continued
    assert second[2] == {"role": "assistant", "content": broken}
    assert second[3]["role"] == "user"
    assert "could not be read as a plan" in second[3]["content"]
    assert "Expecting ',' delimiter at line 1" in second[3]["content"]


def test_an_unknown_tool_then_a_fix_sends_did_you_mean(planner, llm_server):
    wrong = {"steps": [dict(BERLIN_SHIPMENTS["steps"][0]),
                       dict(BERLIN_SHIPMENTS["steps"][1], tool="shipment_list")]}
    llm_server.reply(reply(wrong))
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    plan = planner.plan("Berlin facilities and their shipments", today=TODAY)

    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list"]
    assert len(llm_server.requests) == 2
    feedback = llm_server.messages(1)[-1]["content"]
    assert "step 1 (shipment_list) · tool: unknown tool 'shipment_list'; did you mean 'shipments_list'?" in feedback


def test_a_cycle_then_a_fix(planner, llm_server):
    cyclic = {"steps": [
        {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [1], "parallel": False},
        {"tool": "inspections_list", "params": {}, "depends_on": [0], "parallel": False},
    ]}
    fixed = {"steps": [dict(cyclic["steps"][0], depends_on=[]), cyclic["steps"][1]]}
    llm_server.reply(reply(cyclic))
    llm_server.reply(reply(fixed))
    plan = planner.plan("Berlin facilities and inspections", today=TODAY)

    assert len(llm_server.requests) == 2
    assert "dependency cycle" in llm_server.messages(1)[-1]["content"]
    assert plan.dependencies_of(plan.steps[0].id) == []


def test_bad_params_are_named_by_step_and_field(planner, llm_server):
    bad = {"steps": [{"tool": "facilities_list", "params": {"type": "dump", "city": "Berlin"},
                      "depends_on": [], "parallel": False}]}
    llm_server.reply(reply(bad))
    llm_server.reply(reply({"steps": [{"tool": "facilities_list", "params": {"type": "landfill"},
                                       "depends_on": [], "parallel": False}]}))
    planner.plan("landfills", today=TODAY)
    feedback = llm_server.messages(1)[-1]["content"]
    assert "step 0 (facilities_list) · params.type: 'dump' is not one of the allowed values" in feedback
    assert "step 0 (facilities_list) · params.city: is not a parameter of this tool" in feedback


def test_the_retry_limit_raises_with_the_last_problems(planner, llm_server, settings):
    llm_server.reply("I think you should look at the facilities first.")
    llm_server.reply(reply({"steps": [{"tool": "facility_list", "params": {}}]}))
    llm_server.reply(reply({"steps": [{"tool": "facilities_list", "params": {"limit": "many"}}]}))
    llm_server.reply(reply(BERLIN_SHIPMENTS))  # never asked for: the limit comes first

    with pytest.raises(RepairLimitReached) as caught:
        planner.plan("facilities", today=TODAY)

    assert settings.max_retries == 2
    assert len(llm_server.requests) == settings.max_retries + 1
    assert caught.value.attempts == 3
    assert len(caught.value.problems) == 1
    assert caught.value.problems[0].startswith("step 0 (facilities_list) · params.limit:")
    assert "no valid plan after 3 attempts" in str(caught.value)
    assert len(llm_server.replies) == 1
    # the first two rounds were each fed back
    assert "no JSON found in the reply" in llm_server.messages(1)[-1]["content"]
    assert "did you mean 'facilities_list'" in llm_server.messages(2)[-1]["content"]


def test_no_retries_allowed_means_one_request(registry, settings, llm_server):
    strict = LLMPlanner(registry, settings.model_copy(update={"max_retries": 0}))
    llm_server.reply("no plan here")
    with pytest.raises(RepairLimitReached) as caught:
        strict.plan("facilities", today=TODAY)
    assert caught.value.attempts == 1 and len(llm_server.requests) == 1


def test_a_reply_cut_at_the_length_limit_is_not_taken_for_a_shorter_plan(planner, llm_server):
    # The first step alone is a valid plan: only finish_reason says the rest is missing.
    llm_server.reply(reply({"steps": BERLIN_SHIPMENTS["steps"][:1]}), finish_reason="length")
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    plan = planner.plan("Berlin facilities and their shipments", today=TODAY)

    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list"]
    assert len(llm_server.requests) == 2
    assert "stopped at the length limit" in llm_server.messages(1)[-1]["content"]


def test_replies_always_cut_end_in_the_repair_limit_saying_why(registry, settings, llm_server):
    strict = LLMPlanner(registry, settings.model_copy(update={"max_retries": 0}))
    llm_server.reply(reply({"steps": BERLIN_SHIPMENTS["steps"][:1]}), finish_reason="length")
    with pytest.raises(RepairLimitReached) as caught:
        strict.plan("Berlin facilities and their shipments", today=TODAY)
    assert "stopped at the length limit" in caught.value.problems[0]


def test_the_repair_limit_message_lists_the_first_problems_only():
    problems = [f"step {n} (x) · params.y: wrong " + "z" * 2000 for n in range(500)]
    message = str(RepairLimitReached(3, problems))
    assert message.count("\n- step ") == RepairLimitReached.PROBLEMS_SHOWN
    assert message.endswith(f"… and {500 - RepairLimitReached.PROBLEMS_SHOWN} more")
    assert len(message) < 20 * 600
    assert len(RepairLimitReached(3, problems).problems) == 500  # all kept for callers


# -- endpoints that misbehave ---------------------------------------------------------------------
def test_an_endpoint_refusing_structured_output_still_gets_a_plan(planner, llm_server):
    llm_server.reject_response_format()
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    llm_server.reply(reply(BERLIN_SHIPMENTS))

    first = planner.plan("Berlin facilities and their shipments", today=TODAY)
    assert [s.tool for s in first.steps] == ["facilities_list", "shipments_list"]
    # OpenAI's dialect refused, then llama.cpp's, then none asked for
    assert ["response_format" in r for r in llm_server.requests] == [True, True, False]
    assert llm_server.requests[0]["messages"] == llm_server.requests[2]["messages"]
    assert planner.client.structured_output is False

    planner.plan("Berlin facilities and their shipments", today=TODAY)  # remembered: no refusal again
    assert ["response_format" in r for r in llm_server.requests] == [True, True, False, False]


def test_a_bad_request_that_is_not_about_structured_output_is_reported(planner, llm_server):
    llm_server.fail(400, "messages: too many tokens")
    with pytest.raises(PlannerUnavailable, match=r"HTTP 400: messages: too many tokens"):
        planner.plan("facilities", today=TODAY)
    assert len(llm_server.requests) == 1
    assert planner.client.structured_output is True


def test_http_500_becomes_planner_unavailable_with_the_endpoints_message(planner, llm_server):
    llm_server.fail(500, "the model is overloaded")
    with pytest.raises(PlannerUnavailable) as caught:
        planner.plan("facilities", today=TODAY)
    message = str(caught.value)
    assert "HTTP 500" in message and "the model is overloaded" in message
    assert llm_server.base_url in message
    assert len(llm_server.requests) == 1  # the SDK's own retries are off


def test_http_404_names_the_model(planner, llm_server):
    llm_server.fail(404, "model 'test-model' not found")
    with pytest.raises(PlannerUnavailable, match=r"HTTP 404: model 'test-model' not found\. Check the model name \(test-model\)"):
        planner.plan("facilities", today=TODAY)


def test_a_timeout_becomes_planner_unavailable_saying_so(registry, settings, llm_server):
    impatient = LLMPlanner(registry, settings.model_copy(update={"timeout": 0.5, "first_timeout": 0.5}))
    llm_server.reply(reply(BERLIN_SHIPMENTS), delay=30)
    with pytest.raises(PlannerUnavailable, match=r"timed out after 0\.5 s"):
        impatient.plan("facilities", today=TODAY)
    assert len(llm_server.requests) == 1


def test_a_refused_connection_names_the_base_url(registry, settings, monkeypatch):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", TEST_API_KEY)
    with pytest.raises(PlannerUnavailable) as caught:
        LLMPlanner(registry, settings).plan("facilities", today=TODAY)
    assert f"Cannot connect to the model at http://127.0.0.1:{port}/v1: connection refused" in str(caught.value)


def test_no_model_configured(registry, settings, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(PlannerUnavailable) as caught:
        LLMPlanner(registry, settings).plan("facilities", today=TODAY)
    assert str(caught.value) == NOT_CONFIGURED
    assert not ModelClient(settings).configured


def test_a_local_server_without_a_key_gets_a_placeholder(registry, settings, llm_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    LLMPlanner(registry, settings).plan("Berlin shipments", today=TODAY)
    assert llm_server.auth_headers == ["Bearer not-needed"]


# -- re-planning ------------------------------------------------------------------------------------
def locked_berlin_plan() -> Plan:
    plan = plan_from_seed(BERLIN_SHIPMENTS, goal="Get facilities in Berlin, then their shipments")
    first = plan.steps[0].model_copy(update={"locked": True, "note": "approved"})
    return plan.model_copy(update={"steps": [first, plan.steps[1]]})


def test_replan_keeps_locked_steps_exactly_and_records_the_feedback(planner, llm_server):
    old = locked_berlin_plan()
    # The model changes the locked step too (Munich): that change must not survive.
    llm_server.reply(reply({"steps": [
        {"step": 0, "id": old.steps[0].id, "tool": "facilities_list", "params": {"location": "Munich"},
         "depends_on": [], "parallel": False},
        {"step": 1, "id": old.steps[1].id, "tool": "shipments_list",
         "params": {"facility_id": "${step[0].data.*.id}", "status": "rejected"}, "depends_on": [0],
         "parallel": False},
    ]}))
    new = planner.replan(old, "only rejected shipments", today=TODAY)

    assert new.steps[0] == old.steps[0]  # every field: id, params, note, lock
    assert new.steps[1].id == old.steps[1].id
    assert new.steps[1].params == {"facility_id": f"${{steps.{old.steps[0].id}.data.*.id}}", "status": "rejected"}
    assert new.steps[1].locked is False
    assert new.goal == old.goal
    meta = new.metadata.model_dump()
    assert meta["feedback"] == "only rejected shipments" and meta["planner"] == "llm"

    sent = llm_server.text_of(0)
    assert "only rejected shipments" in sent
    current = json.loads(sent[sent.index('{\n  "steps"'):sent.index("\n\nChange the plan")])
    assert [s["step"] for s in current["steps"]] == [0, 1]
    assert current["steps"][0]["locked"] is True and "locked" not in current["steps"][1]
    assert "step 0 (facilities_list)" in sent  # the lock rule names the locked step


def test_replan_restores_a_locked_step_the_model_dropped(planner, llm_server):
    old = locked_berlin_plan()
    llm_server.reply(reply({"steps": [
        {"tool": "inspections_list", "params": {"result": "failed"}, "depends_on": [], "parallel": False},
        {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"},
         "depends_on": [0], "parallel": False},
    ]}))
    new = planner.replan(old, "shipments of facilities that failed inspection", today=TODAY)

    assert len(llm_server.requests) == 1
    assert new.steps[0] == old.steps[0]  # back at its old position
    assert [s.tool for s in new.steps] == ["facilities_list", "inspections_list", "shipments_list"]
    # the model's "step 0" (inspections) is now step 1: its reference names it by id
    assert new.steps[2].params == {"facility_id": f"${{steps.{new.steps[1].id}.data.*.id}}"}
    assert new.dependencies_of(new.steps[2].id) == [new.steps[1].id]


def test_replan_keeps_ids_of_unchanged_steps_and_gives_new_steps_fresh_ones(planner, llm_server):
    old = plan_from_seed(BERLIN_SHIPMENTS, goal="Berlin facilities and their shipments")
    llm_server.reply(reply({"steps": [
        BERLIN_SHIPMENTS["steps"][0],
        {"tool": "contaminants_list", "params": {"facility_id": "${step[0].data.*.id}"},
         "depends_on": [0], "parallel": False},
    ]}))
    new = planner.replan(old, "contaminants instead of shipments", today=TODAY)
    assert new.steps[0].id == old.steps[0].id
    assert new.steps[1].id not in {s.id for s in old.steps}
    assert new.dependencies_of(new.steps[1].id) == [old.steps[0].id]


def test_replan_keeps_the_id_of_a_step_changed_in_place_so_a_locked_step_still_has_it(planner, llm_server):
    plan = plan_from_seed(BERLIN_SHIPMENTS, goal="Berlin facilities and their shipments")
    old = plan.model_copy(update={"steps": [plan.steps[0], plan.steps[1].model_copy(update={"locked": True})]})
    munich = json.loads(reply(BERLIN_SHIPMENTS))
    munich["steps"][0]["params"]["location"] = "Munich"  # changed, same tool, same place, no id
    llm_server.reply(json.dumps(munich))
    new = planner.replan(old, "use Munich instead", today=TODAY)
    assert len(llm_server.requests) == 1
    assert new.steps[0].id == old.steps[0].id and new.steps[0].params == {"location": "Munich"}
    assert new.steps[1] == old.steps[1]


def test_replan_asks_again_when_the_model_removes_a_step_a_locked_step_needs(planner, llm_server):
    plan = plan_from_seed(BERLIN_SHIPMENTS, goal="Berlin facilities and their shipments")
    old = plan.model_copy(update={"steps": [plan.steps[0], plan.steps[1].model_copy(update={"locked": True})]})
    llm_server.reply(reply({"steps": [
        {"tool": "inspections_list", "params": {}, "depends_on": [], "parallel": False}]}))
    llm_server.reply(reply({"steps": [
        BERLIN_SHIPMENTS["steps"][0], BERLIN_SHIPMENTS["steps"][1],
        {"tool": "inspections_list", "params": {}, "depends_on": [], "parallel": True}]}))
    new = planner.replan(old, "also inspections", today=TODAY)

    assert len(llm_server.requests) == 2
    assert "is locked and needs step 0 (facilities_list)" in llm_server.messages(1)[-1]["content"]
    assert new.steps[1] == old.steps[1]
    assert [s.tool for s in new.steps] == ["facilities_list", "shipments_list", "inspections_list"]


# -- context -------------------------------------------------------------------------------------------
def test_replan_that_would_leave_no_step_is_refused_and_the_model_not_asked_again(planner, llm_server):
    llm_server.reply(reply({"steps": [BERLIN_SHIPMENTS["steps"][0]]}))
    one = planner.plan("facilities in Berlin", today=TODAY)
    llm_server.reply(reply({"steps": []}))
    with pytest.raises(PlannerError, match=r"would leave the plan with no step.*The plan is unchanged"):
        planner.replan(one, "drop the facilities step", today=TODAY)
    assert len(llm_server.requests) == 2


def test_context_carries_the_previous_goal_and_plan(planner, llm_server):
    previous = plan_from_seed(BERLIN_SHIPMENTS, goal="Get facilities in Berlin, then their shipments")
    munich = json.loads(json.dumps(BERLIN_SHIPMENTS).replace("Berlin", "Munich"))
    llm_server.reply(reply(munich))
    plan = planner.plan("The same for Munich", today=TODAY,
                        context=PlanContext(previous_goal=previous.goal, previous_plan=previous))

    messages = llm_server.messages(0)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "Goal: Get facilities in Berlin, then their shipments"
    assert json.loads(messages[2]["content"])["steps"][0]["params"] == {"location": "Berlin"}
    assert messages[3]["content"].startswith("Goal: The same for Munich")
    assert plan.steps[0].params == {"location": "Munich"}
    assert plan.metadata.model_dump()["previous_goal"] == previous.goal


# -- answers that are not chat completions -------------------------------------------------------
def no_traceback_chain(error: BaseException) -> None:
    """The SDK's exception (which holds the request) does not travel with ours."""
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__


@pytest.mark.parametrize("script, expected", [
    (lambda s: s.raw(b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "{\\"st'),
     "answered with a body that is not valid JSON (Unterminated string"),
    (lambda s: s.raw(b"<html><body>Bad gateway</body></html>"),
     "answered with a body that is not valid JSON (Expecting value: line 1 column 1"),
    (lambda s: s.raw(b"[" * 100_000 + b"]" * 100_000), "answered with a body that is not valid JSON (nested too deeply)"),
    (lambda s: s.raw(b"<h1>Welcome to nginx!</h1>", content_type="text/html"),
     "did not answer with JSON but with '<h1>Welcome to nginx!</h1>'"),
    (lambda s: s.raw(b'{"id": "chatcmpl-1", "choices": []}', declared_length=4_000),
     "The connection to the model at {url} broke off: peer closed connection without sending complete message body"),
    (lambda s: s.raw(b'{"object": "list", "data": []}'), 'did not answer with a chat completion (it has no "choices" list)'),
    (lambda s: s.raw(b'{"choices": []}'), 'answered without any reply ("choices" is empty)'),
    (lambda s: s.raw(b'{"choices": [{"index": 0}]}'), 'answered without a message (choices[0] has no "message" object)'),
    (lambda s: s.raw(b'{"choices": [{"message": {"role": "assistant", "content": null}}]}'),
     "answered with an empty message (its content is null)"),
    (lambda s: s.raw(b'{"choices": [{"message": {"role": "assistant", "content": null, "refusal": "I cannot help"}}]}'),
     "refused: I cannot help"),
    (lambda s: s.raw(b'{"choices": [{"message": {"role": "assistant", "content": {"steps": []}}}]}'),
     "answered with message content that is not text but an object"),
], ids=["truncated-json", "html-as-json", "nested-too-deep", "html", "cut-off-body", "no-choices",
        "empty-choices", "no-message", "null-content", "refusal", "object-content"])
def test_an_answer_that_is_not_a_chat_completion_is_planner_unavailable(planner, llm_server, script, expected):
    script(llm_server)
    with pytest.raises(PlannerUnavailable) as caught:
        planner.plan("Berlin facilities", today=TODAY)
    message = str(caught.value)
    assert expected.format(url=llm_server.base_url) in message
    assert llm_server.base_url in message  # names the endpoint
    no_traceback_chain(caught.value)
    assert len(llm_server.requests) == 1  # the endpoint's fault: no repair round


def test_a_trickling_endpoint_times_out_after_the_whole_limit(registry, settings, llm_server):
    # One byte every 0.2 s: no single read ever waits 1 s, the answer as a whole never ends.
    impatient = LLMPlanner(registry, settings.model_copy(update={"timeout": 1, "first_timeout": 1}))
    llm_server.trickle()
    began = time.monotonic()
    with pytest.raises(PlannerUnavailable, match=r"timed out after 1 s before it finished answering") as caught:
        impatient.plan("facilities", today=TODAY)
    assert time.monotonic() - began < 10  # generous: the point is that it ends at all
    no_traceback_chain(caught.value)
    assert len(llm_server.requests) == 1


def test_an_endpoint_sending_its_headers_slowly_is_cut_off_at_the_limit(registry, settings, llm_server):
    # A header line every 0.3 s: no single read waits the 1 s limit, the headers never end.
    impatient = LLMPlanner(registry, settings.model_copy(update={"timeout": 1, "first_timeout": 1}))
    llm_server.slow_headers(every=0.3)
    with pytest.raises(PlannerUnavailable, match=r"timed out after 1 s before it finished answering") as caught:
        impatient.plan("facilities", today=TODAY)
    # It hung up by itself, long before the headers stop (60 s): on the server's clock, the limit
    # and a margin for a loaded machine.
    assert llm_server.hung_up() < 1 + 15
    no_traceback_chain(caught.value)


def test_a_stream_whose_headers_come_slowly_is_cut_off_at_the_limit(settings, llm_server):
    client = ModelClient(settings.model_copy(update={"timeout": 1, "first_timeout": 1}))
    llm_server.slow_headers(every=0.3)
    with pytest.raises(PlannerUnavailable, match=r"timed out after 1 s"):
        list(client.stream([{"role": "user", "content": "a poem"}]))
    assert llm_server.hung_up() < 1 + 15


def _peak_memory_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_a_gzip_bomb_is_refused_without_inflating_it(settings, llm_server, streamed):
    # About 1 MB on the wire that inflates to 1 GiB: it must be stopped at the size bound while
    # inflating, not inflated in full first.
    llm_server.raw(gzip_bomb(1 << 30), content_encoding="gzip",
                   content_type="text/event-stream" if streamed else "application/json")
    client = ModelClient(settings)
    before = _peak_memory_mib()
    began = time.thread_time()
    messages = [{"role": "user", "content": "plan"}]
    with pytest.raises(PlannerUnavailable, match=r"stopped reading: the answer is larger than 128 MiB") as caught:
        list(client.stream(messages)) if streamed else client.chat(messages)
    # The CPU this thread spent reading, not the wall clock: on a loaded machine the wall clock
    # says how busy the other processes are; inflating 1 GiB would cost several seconds of CPU.
    assert time.thread_time() - began < settings.timeout
    assert _peak_memory_mib() - before < 600  # 1 GiB inflated would show
    assert llm_server.base_url in str(caught.value)
    no_traceback_chain(caught.value)


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compressed_answer_is_still_read(planner, llm_server, encoding):
    body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "test-model",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": reply(BERLIN_SHIPMENTS)}}]})
    packed = gzip.compress(body.encode()) if encoding == "gzip" else zlib.compress(body.encode())
    llm_server.raw(packed, content_encoding=encoding)
    plan = planner.plan("facilities", today=TODAY)
    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list"]


def test_an_encoding_the_client_did_not_ask_for_is_reported(settings, llm_server):
    llm_server.raw(b"\x00" * 40, content_encoding="br")
    with pytest.raises(PlannerUnavailable, match=r"encoded as 'br', which was not asked for"):
        ModelClient(settings).chat([{"role": "user", "content": "plan"}])
    assert llm_server.accept_encodings == ["gzip, deflate"]  # what it sent was not asked for


# -- what goes back to the model ------------------------------------------------------------------
def test_a_plan_with_many_problems_gets_a_bounded_repair_request(planner, llm_server):
    many = {"steps": [{"tool": f"no_such_tool_{n}", "params": {"x": "y" * 100}, "depends_on": [],
                       "parallel": True} for n in range(300)]}
    llm_server.reply(reply(many))
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    planner.plan("Berlin facilities and their shipments", today=TODAY)

    repair = llm_server.messages(1)[-1]["content"]
    listed = [line for line in repair.splitlines() if line.startswith("- ")]
    assert 1 < len(listed) <= 21 and len(repair) < 6_000
    assert "step 0 (no_such_tool_0) · tool: unknown tool 'no_such_tool_0'" in repair
    omitted = int(listed[-1].split(" more problems not listed")[0].rsplit(" ", 1)[1])
    assert omitted == 300 - (len(listed) - 1)
    # the model's own reply goes back too, cut to a size worth sending
    echoed = llm_server.messages(1)[-2]
    assert echoed["role"] == "assistant" and len(echoed["content"]) < 21_000
    assert echoed["content"].startswith(reply(many)[:1_000])
    assert "characters of this reply are left out" in echoed["content"]


def test_a_reply_too_long_to_be_a_plan_is_sent_back_saying_so(planner, llm_server):
    llm_server.reply("x" * (MAX_REPLY_CHARS + 1))
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    planner.plan("Berlin facilities and their shipments", today=TODAY)
    repair = llm_server.messages(1)[-1]["content"]
    assert f"the reply is {MAX_REPLY_CHARS + 1:,} characters long" in repair


# -- the key is never kept --------------------------------------------------------------------------
def test_the_api_key_is_used_but_never_stored_shown_or_logged(planner, llm_server, settings, caplog):
    caplog.set_level(logging.DEBUG)
    llm_server.reply(reply(BERLIN_SHIPMENTS))
    plan = planner.plan("Berlin shipments", today=TODAY)
    assert llm_server.auth_headers == [f"Bearer {TEST_API_KEY}"]  # it was really sent

    # an endpoint that echoes the key back in its error
    llm_server.fail(401, f"Incorrect API key provided: {TEST_API_KEY}. Find your key at ...")
    with pytest.raises(PlannerUnavailable) as caught:
        planner.plan("Berlin shipments", today=TODAY)

    shown = [
        plan.model_dump_json(), json.dumps(plan.metadata.model_dump(mode="json")),
        str(caught.value), repr(caught.value),
        "".join(traceback.format_exception(caught.value)),
        repr(planner.client), repr(planner), str(vars(planner.client)),
        Settings.from_env().model_dump_json(), settings.model_dump_json(), repr(settings),
        caplog.text,
    ]
    assert "openai" in caplog.text  # the SDK's debug logging was captured, and checked
    for text in shown:
        assert TEST_API_KEY not in text
    assert "HTTP 401" in str(caught.value) and "[redacted]" in str(caught.value)
    assert "Check OPENAI_API_KEY" in str(caught.value)


# -- wiring --------------------------------------------------------------------------------------------
def test_make_planner_picks_the_llm_planner_and_it_is_a_planner(registry, settings, llm_server):
    client = ModelClient(settings)
    planner = make_planner(settings, registry, client=client)
    assert isinstance(planner, LLMPlanner) and isinstance(planner, Planner)
    assert planner.client is client and planner.name == "llm"


def test_make_planner_picks_the_embedded_planner(registry, settings):
    embedded = pytest.importorskip("core.planners.embedded._planner")
    planner = make_planner(settings.model_copy(update={"planner": "embedded"}), registry)
    assert isinstance(planner, embedded.EmbeddedPlanner)


# -- the acceptance plans pass through the LLM path unchanged -----------------------------------------
ACCEPTANCE = json.loads((Path(__file__).resolve().parents[2] / "docs" / "acceptance" / "seed_examples.json").read_text())


@pytest.mark.parametrize("case", ACCEPTANCE["cases"], ids=[c["goal"] for c in ACCEPTANCE["cases"]])
def test_every_acceptance_plan_is_read_validated_and_kept_as_the_model_wrote_it(case, planner, llm_server):
    llm_server.reply(f"Here is the plan.\n```json\n{json.dumps(case['plan'], indent=2)}\n```")
    plan = planner.plan(case["goal"], today=TODAY)
    assert plan_to_seed(plan)["steps"] == case["plan"]["steps"]
    assert len(llm_server.requests) == 1

"""The LLM planner against servers that answer as local ones do: llama-cpp-python's
``llama_cpp.server``, llama.cpp's ``llama-server``, vLLM and Ollama (``llm_server`` dialects),
over a real socket with the real ``openai`` client."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from llm_server import LLMServer
from core import PlannerUnavailable, Settings
from core.llm import redact
from core.planners import LLMPlanner
from tools import build_registry

TODAY = dt.date(2025, 10, 12)
BERLIN = {"steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0],
     "parallel": False},
]}


def local_server(monkeypatch: pytest.MonkeyPatch, dialect: str, n_ctx: int | None = None,
                 key: str = "sk-no-key-required") -> LLMServer:
    server = LLMServer(dialect=dialect, n_ctx=n_ctx).start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", key)
    return server


@pytest.fixture
def servers(monkeypatch):
    started: list[LLMServer] = []

    def start(dialect: str, n_ctx: int | None = None, key: str = "sk-no-key-required") -> LLMServer:
        started.append(local_server(monkeypatch, dialect, n_ctx, key))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, today=TODAY, planner="llm", model="local", temperature=0.1,
                    max_retries=1, timeout=5)


@pytest.fixture
def registry(settings):
    return build_registry(settings, groups=["waste"])


# -- structured output: the server's own dialect ---------------------------------------------------
def test_llama_cpp_refusing_json_schema_with_http_500_gets_its_own_json_object_dialect(servers, registry, settings):
    server = servers("llama_cpp")
    server.reply(json.dumps(BERLIN))
    server.reply(json.dumps(BERLIN))
    planner = LLMPlanner(registry, settings)

    plan = planner.plan("Berlin facilities and their shipments", today=TODAY)
    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list"]
    formats = [r.get("response_format", {}).get("type") for r in server.requests]
    assert formats == ["json_schema", "json_object"]
    # grammar-constrained: the same schema goes along in llama.cpp's dialect
    assert server.requests[1]["response_format"]["schema"] == server.requests[0]["response_format"]["json_schema"]["schema"]

    planner.plan("Berlin facilities and their shipments", today=TODAY)  # remembered
    assert [r.get("response_format", {}).get("type") for r in server.requests] == ["json_schema", "json_object",
                                                                                  "json_object"]


def test_a_server_error_that_does_not_name_the_response_format_is_not_a_refusal(servers, registry, settings):
    server = servers("llama_cpp")
    server.fail(500, "CUDA out of memory")  # the scripted error comes after the dialect's checks
    with pytest.raises(PlannerUnavailable, match="CUDA out of memory"):
        LLMPlanner(registry, settings).plan("Berlin facilities", today=TODAY)
    # json_schema refused (500), then json_object tried and it failed for its own reason
    assert [r.get("response_format", {}).get("type") for r in server.requests] == ["json_schema", "json_object"]


# -- placeholder keys are not secrets --------------------------------------------------------------
@pytest.mark.parametrize("key", ["x", "EMPTY", "ollama", "none", "sk-no-key-required", "lm-studio", "1234567"])
def test_a_placeholder_key_is_never_redacted_from_the_models_text(servers, registry, settings, monkeypatch, key):
    server = servers("llama_cpp", key=key)
    goal = "Berlin facilities of type textile recycling and their shipments"
    text_plan = {"steps": [{"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [],
                            "parallel": False, "note": f"sites first; the key was {key}, ollama, none, EMPTY, x"}]}
    server.reply(json.dumps(text_plan))
    plan = LLMPlanner(registry, settings).plan(goal, today=TODAY)
    assert plan.steps[0].note == text_plan["steps"][0]["note"]
    assert redact(f"text {key} sk-no-key-required") == f"text {key} sk-no-key-required"


def test_a_real_key_is_still_redacted(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "my-long-local-secret")
    assert redact("echo my-long-local-secret and sk-proj-abcdef123") == "echo [redacted] and [redacted]"


# -- max_tokens ------------------------------------------------------------------------------------
def test_every_request_says_how_many_tokens_the_answer_may_take(servers, registry, settings):
    server = servers("llama_cpp")
    server.reply("no plan")
    server.reply(json.dumps(BERLIN))
    LLMPlanner(registry, settings).plan("Berlin facilities and their shipments", today=TODAY)
    assert len(server.requests) == 3  # json_schema refused, then two replies in llama.cpp's dialect
    assert [r.get("max_tokens") for r in server.requests] == [settings.max_tokens] * 3
    assert Settings().max_tokens >= 1024


# -- a context too small for the manual -----------------------------------------------------------
@pytest.mark.parametrize("dialect", ["llama_cpp", "llama_server", "vllm", "ollama"])
def test_a_context_too_small_for_the_manual_says_so_and_how_big_it_must_be(servers, registry, settings, dialect):
    server = servers(dialect, n_ctx=512)
    with pytest.raises(PlannerUnavailable) as caught:
        LLMPlanner(registry, settings).plan("Berlin facilities and their shipments", today=TODAY)
    message = str(caught.value)
    assert "context" in message and "too small" in message, message
    needed = int(re.search(r"at least ([\d,]+) tokens", message)[1].replace(",", ""))
    request = server.requests[-1]
    prompt = sum(len(m["content"]) for m in request["messages"]) // 4
    assert needed >= prompt + settings.max_tokens  # enough for the manual and the answer
    assert needed <= 3 * (prompt + settings.max_tokens)  # and not a wild guess
    assert "HTTP" not in message.split(".")[0]  # plain words first, not a status line
    assert len(server.requests) <= 2  # no repair loop on a request that cannot fit


def test_vllm_with_only_max_tokens_too_large_says_the_same(servers, registry, settings):
    server = servers("vllm", n_ctx=5000)
    with pytest.raises(PlannerUnavailable, match=r"too small.*at least [\d,]+ tokens") as caught:
        LLMPlanner(registry, settings.model_copy(update={"max_tokens": 4000})).plan("Berlin facilities", today=TODAY)
    assert "5,000" in str(caught.value)
    assert len(server.requests) == 1


# -- a cold server --------------------------------------------------------------------------------
def test_the_first_request_may_take_longer_than_later_ones(servers, registry, settings):
    server = servers("llama_cpp")
    patient = settings.model_copy(update={"timeout": 1.0, "first_timeout": 10.0})
    server.reply(json.dumps(BERLIN), delay=2.0)  # loading the model
    server.reply(json.dumps(BERLIN), delay=2.0)  # warm now: this is too slow
    planner = LLMPlanner(registry, patient)
    assert planner.client.loading_notice() is not None  # the user is told before the first answer
    assert [s.tool for s in planner.plan("Berlin facilities and their shipments", today=TODAY).steps] == [
        "facilities_list", "shipments_list"]
    assert planner.client.loading_notice() is None
    with pytest.raises(PlannerUnavailable, match=r"timed out after 1 s"):
        planner.plan("Berlin facilities and their shipments", today=TODAY)


def test_a_first_request_that_times_out_says_the_model_may_still_be_loading(servers, registry, settings):
    server = servers("llama_cpp")
    server.reply(json.dumps(BERLIN), delay=3.0)
    impatient = settings.model_copy(update={"timeout": 0.5, "first_timeout": 0.5})
    with pytest.raises(PlannerUnavailable) as caught:
        LLMPlanner(registry, impatient).plan("Berlin facilities", today=TODAY)
    assert "loading the model" in str(caught.value) and "PLAN_STUDIO_FIRST_TIMEOUT" in str(caught.value)

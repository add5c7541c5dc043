"""Semantic Kernel's WriterPlugin tools: they write through the configured model."""

from __future__ import annotations

import time

import pytest

from conftest import TEST_API_KEY
from core import Executor, Settings, StepStatus, ToolArgumentsError, ToolExecutionError
from core.formats import plan_from_seed
from core.planners import render_manual
from tools import build_registry


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, model="writer-model", timeout=5)


@pytest.fixture
def no_model(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_the_writer_group_registers_short_poem_and_translate(settings):
    registry = build_registry(settings, groups=["writer"])
    assert registry.names() == ["ShortPoem", "Translate"]
    assert {t.group for t in registry} == {"writer"}
    assert registry.get("ShortPoem").required == ["input"]
    assert registry.get("Translate").required == ["input", "language"]
    manual = render_manual(registry)
    assert "### ShortPoem\nTurn the input into a short poem." in manual
    assert "  - language: string; not blank; required. The language to translate into" in manual


def test_short_poem_asks_the_model_and_returns_its_text(settings, llm_server):
    registry = build_registry(settings, groups=["writer"])
    llm_server.reply("  Trucks at dawn,\nbins in a row,\nBerlin recycles\nall that we throw.\n")
    poem = registry.get("ShortPoem").call({"input": "recycling in Berlin"})

    assert poem == "Trucks at dawn,\nbins in a row,\nBerlin recycles\nall that we throw."
    request = llm_server.requests[0]
    assert request["model"] == "writer-model"
    assert "response_format" not in request and not request.get("stream")
    assert request["messages"][0]["role"] == "system" and "poem" in request["messages"][0]["content"]
    assert request["messages"][1] == {"role": "user", "content": "recycling in Berlin"}


def test_translate_names_the_language(settings, llm_server):
    registry = build_registry(settings, groups=["writer"])
    llm_server.reply("Guten Morgen")
    assert registry.get("Translate").call({"input": "Good morning", "language": "German"}) == "Guten Morgen"
    system, user = llm_server.messages(0)
    assert "into German" in system["content"] and user["content"] == "Good morning"


def test_writer_steps_chain_through_a_plan(settings, llm_server):
    registry = build_registry(settings, groups=["writer"])
    llm_server.reply("Roses are red")
    llm_server.reply("Rosen sind rot")
    plan = plan_from_seed({"steps": [
        {"tool": "ShortPoem", "params": {"input": "a garden"}},
        {"tool": "Translate", "params": {"input": "${step[0]}", "language": "German"}},
    ]}, goal="a poem in German")
    run = Executor(registry).execute(plan)
    assert [s.result for s in run.steps.values()] == ["Roses are red", "Rosen sind rot"]
    assert llm_server.messages(1)[1]["content"] == "Roses are red"


def test_without_a_model_the_call_fails_saying_no_model_is_configured(settings, no_model):
    registry = build_registry(settings, groups=["writer"])
    with pytest.raises(ToolExecutionError, match=r"^ShortPoem failed: No model configured: set OPENAI_API_KEY"):
        registry.get("ShortPoem").call({"input": "anything"})

    plan = plan_from_seed({"steps": [{"tool": "Translate", "params": {"input": "hi", "language": "French"}}]})
    run = Executor(registry).execute(plan)
    step = next(iter(run.steps.values()))
    assert step.status == StepStatus.failed
    assert "No model configured" in step.error


def test_endpoint_errors_and_empty_input_fail_the_step_with_a_clear_message(settings, llm_server):
    registry = build_registry(settings, groups=["writer"])
    llm_server.fail(500, "overloaded")
    with pytest.raises(ToolExecutionError, match=r"HTTP 500: overloaded"):
        registry.get("ShortPoem").call({"input": "x"})
    with pytest.raises(ToolArgumentsError, match=r"input: must not be blank"):
        registry.get("Translate").call({"input": "  ", "language": "German"})
    with pytest.raises(ToolArgumentsError, match=r"language: must not be blank"):
        registry.get("Translate").call({"input": "hi", "language": ""})
    assert len(llm_server.requests) == 1


def test_a_trickling_endpoint_fails_the_step_at_the_time_limit(settings, llm_server):
    registry = build_registry(settings.model_copy(update={"timeout": 1, "first_timeout": 1}), groups=["writer"])
    llm_server.trickle()
    began = time.monotonic()
    with pytest.raises(ToolExecutionError, match=r"^ShortPoem failed: The model at .* timed out after 1 s"):
        registry.get("ShortPoem").call({"input": "autumn"})
    assert time.monotonic() - began < 10  # generous: the point is that it ends at all


def test_an_answer_that_is_not_json_fails_the_step_naming_the_endpoint(settings, llm_server):
    registry = build_registry(settings, groups=["writer"])
    llm_server.raw(b'{"choices": [{"message": {"content": "Roses')
    with pytest.raises(ToolExecutionError) as caught:
        registry.get("ShortPoem").call({"input": "roses"})
    assert f"The model endpoint at {llm_server.base_url} answered with a body that is not valid JSON" in str(caught.value)


def test_a_key_in_the_models_text_is_scrubbed_from_the_tools_output(settings, llm_server):
    registry = build_registry(settings, groups=["writer"])
    llm_server.reply(f"Guten Morgen, {TEST_API_KEY}")
    assert registry.get("Translate").call({"input": "Good morning", "language": "German"}) == "Guten Morgen, [redacted]"

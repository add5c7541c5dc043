"""The final answer: the offline summary, and the model's streamed answer with its fallback."""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest

from conftest import TEST_API_KEY
from core import Executor, ModelSynthesizer, Settings, make_synthesizer, offline_summary
from core.formats import plan_from_seed
from core.llm import ModelClient
from core.planners import LLMPlanner
from core.storage import PlanStore
from tools import build_registry
from toy_tools import toy_registry

PLAN = plan_from_seed({"steps": [
    {"tool": "sites_list", "params": {"city": "Berlin"}},
    {"tool": "explode", "params": {"reason": "disk full"}},
    {"tool": "visits_list", "params": {"site_id": "${step[1].data.*.id}"}, "depends_on": [1]},
    {"tool": "visits_list", "params": {"site_id": "${step[0].data.*.id}", "note": "checked"}, "depends_on": [0]},
]}, goal="Berlin sites and their visits")


@pytest.fixture
def run():
    return Executor(toy_registry()).execute(PLAN)


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, planner="llm", timeout=5)


def test_the_offline_summary_tells_each_step_from_the_results(run):
    assert offline_summary(run) == "\n".join([
        "Goal: Berlin sites and their visits",
        "4 steps: 2 succeeded, 1 failed, 1 skipped.",
        "- step 0 (sites_list): succeeded, 2 rows",
        "- step 1 (explode): failed: explode failed: disk full",
        "- step 2 (visits_list): skipped: depends on step 1 (explode), which did not succeed",
        "- step 3 (visits_list): succeeded, 2 rows",
    ])


def test_the_offline_summary_of_a_run_not_started():
    from core import Run

    text = offline_summary(Run.for_plan(PLAN))
    assert "4 steps: 4 pending." in text and "- step 0 (sites_list): pending" in text


def test_the_model_answer_streams_in_pieces_that_join_to_the_full_text(run, settings, llm_server):
    answer = "Berlin has 2 sites. Their visits: 2. The explode step failed (disk full), so step 2 was skipped."
    llm_server.reply(answer)
    pieces = list(ModelSynthesizer(ModelClient(settings))(run))

    assert len(pieces) > 5 and "".join(pieces) == answer
    request = llm_server.requests[0]
    assert request["stream"] is True
    sent = llm_server.text_of(0)
    assert "Goal: Berlin sites and their visits" in sent
    assert '"id": "S0", "city": "Berlin"' in sent          # the results themselves
    assert "failed: explode failed: disk full" in sent
    assert "skipped: depends on step 1 (explode)" in sent


def test_the_executor_emits_the_answer_as_text_deltas(settings, llm_server):
    llm_server.reply("Two sites in Berlin.", chunks=["Two ", "sites ", "in ", "Berlin."])
    executor = Executor(toy_registry(), synthesizer=ModelSynthesizer(ModelClient(settings)))
    run = executor.start(plan_from_seed({"steps": [{"tool": "sites_list", "params": {"city": "Berlin"}}]},
                                        goal="Berlin sites"))
    events = list(executor.run_all(run))
    deltas = [e.data["text"] for e in events if e.type == "text_delta"]
    assert deltas == ["Two ", "sites ", "in ", "Berlin."]
    assert run.answer == "Two sites in Berlin." and events[-1].type == "turn_end"


def test_a_model_failing_mid_stream_falls_back_without_raising(run, settings, llm_server):
    llm_server.reply("Berlin has two sites and", chunks=["Berlin ", "has ", "two ", "sites ", "and"],
                     stream_error_after=3, error="backend crashed")
    pieces = list(ModelSynthesizer(ModelClient(settings))(run))

    assert pieces[:3] == ["Berlin ", "has ", "two "]
    note = pieces[3]
    assert note.startswith("\n\n(The model could not finish the summary:") and "backend crashed" in note
    assert note.strip().count("\n") == 0  # one line
    assert pieces[4] == offline_summary(run)


def test_a_model_that_cannot_be_reached_gives_the_offline_summary(run, settings, llm_server):
    llm_server.fail(503, "maintenance")
    pieces = list(ModelSynthesizer(ModelClient(settings))(run))
    assert "HTTP 503: maintenance" in pieces[0] and pieces[-1] == offline_summary(run)


def test_no_model_configured_gives_the_offline_summary(run, settings, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    pieces = list(ModelSynthesizer(ModelClient(settings))(run))
    assert "No model configured" in pieces[0] and pieces[-1] == offline_summary(run)


def test_large_results_are_cut_down_before_they_reach_the_model(settings, llm_server):
    from core import ToolRegistry

    registry = ToolRegistry()

    @registry.register
    def many_rows(n: int = 5000) -> dict:
        """Return many rows.

        Args:
            n: How many.
        """
        return {"data": [{"id": f"R{i}", "text": "x" * 50} for i in range(n)], "count": n}

    run = Executor(registry).execute(plan_from_seed({"steps": [{"tool": "many_rows"}] * 3}, goal="rows"))
    llm_server.reply("Lots of rows.")
    assert "".join(ModelSynthesizer(ModelClient(settings))(run)) == "Lots of rows."
    sent = llm_server.text_of(0)
    assert sent.count("first 20 of 5000 rows") == 3
    assert '"id": "R19"' in sent and '"id": "R20"' not in sent
    assert "succeeded, 5000 rows" in sent
    assert len(sent) < 20_000


def test_make_synthesizer_picks_by_settings_and_environment(tmp_path, monkeypatch, llm_server, run):
    llm = Settings(data_dir=tmp_path, planner="llm")
    assert isinstance(make_synthesizer(llm), ModelSynthesizer)
    offline = make_synthesizer(Settings(data_dir=tmp_path, planner="embedded"))  # offline stays offline
    assert list(offline(run)) == [offline_summary(run)]
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert not isinstance(make_synthesizer(llm), ModelSynthesizer)
    assert llm_server.requests == []


# -- streams that go wrong: one line saying what, then the offline summary ----------------------
@pytest.mark.parametrize("script, shown, expected", [
    (lambda s: s.reply("Berlin has two sites", chunks=["Berlin ", "has ", "two ", "sites"], stream_end_after=2),
     ["Berlin ", "has "], "stopped streaming before it finished the answer"),
    (lambda s: s.raw_stream(['{"choices": [{"index": 0, "delta": {"content": "Ber']),
     [], "sent a stream event that is not valid JSON (Unterminated string"),
    (lambda s: s.raw_stream(['{"object": "error"}']), [], "sent a stream event that is not a chat completion chunk"),
    (lambda s: s.raw(b'{"choices": [{"message": {"content": "not streamed"}}]}'),
     [], "stopped streaming before it finished the answer"),
], ids=["ends-early", "broken-event", "not-a-chunk", "no-stream"])
def test_a_broken_stream_is_named_and_falls_back(run, settings, llm_server, script, shown, expected):
    script(llm_server)
    pieces = list(ModelSynthesizer(ModelClient(settings))(run))
    assert pieces[:len(shown)] == shown
    note = pieces[len(shown)]
    assert note.strip().startswith("(The model could not finish the summary:") and expected in note
    assert llm_server.base_url in note and note.strip().count("\n") == 0
    assert pieces[len(shown) + 1:] == [offline_summary(run)]


def test_a_trickling_stream_ends_at_the_time_limit(run, settings, llm_server):
    llm_server.trickle()
    began = time.monotonic()
    pieces = list(ModelSynthesizer(ModelClient(settings.model_copy(update={"timeout": 1, "first_timeout": 1})))(run))
    assert time.monotonic() - began < 10  # generous: the point is that it ends at all
    assert "timed out after 1 s" in pieces[0] and pieces[-1] == offline_summary(run)


# -- the API key, written by the model, never gets further ---------------------------------------
def test_a_key_the_model_writes_is_scrubbed_from_plan_run_events_and_store(tmp_path, llm_server):
    settings = Settings(data_dir=tmp_path, planner="llm", model="test-model", timeout=5, max_retries=0)
    registry = build_registry(settings, groups=["writer"])
    llm_server.reply(json.dumps({"steps": [{
        "tool": "ShortPoem", "params": {"input": f"a poem about {TEST_API_KEY}"}, "depends_on": [],
        "parallel": False, "note": f"uses {TEST_API_KEY} as asked"}]}))
    llm_server.reply(f"Roses are red, the key is {TEST_API_KEY}")
    split = 12  # the streamed answer splits the key across two pieces
    llm_server.reply(f"The poem: key {TEST_API_KEY}.",
                     chunks=["The poem: ", f"key {TEST_API_KEY[:split]}", f"{TEST_API_KEY[split:]}."])

    plan = LLMPlanner(registry, settings).plan("Write a poem", today=dt.date(2025, 10, 12))
    executor = Executor(registry, synthesizer=ModelSynthesizer(ModelClient(settings)))
    run = executor.start(plan)
    events = list(executor.run_all(run))
    store = PlanStore(tmp_path / "store.sqlite3")
    saved = store.save_plan(plan)
    store.save_run(run, plan_id=saved.plan_id, version=saved.version)

    step = plan.steps[0]
    assert step.note == "uses [redacted] as asked" and step.params == {"input": "a poem about [redacted]"}
    assert run.steps[step.id].result == "Roses are red, the key is [redacted]"
    assert run.answer == "The poem: key [redacted]."
    assert [e.data["text"] for e in events if e.type == "text_delta"] == ["The poem: ", "key ", "[redacted]."]
    assert llm_server.messages(1)[1]["content"] == "a poem about [redacted]"  # not sent on either
    for text in (plan.model_dump_json(), run.model_dump_json(), *(e.model_dump_json() for e in events)):
        assert TEST_API_KEY not in text
    files = [f for f in tmp_path.rglob("*") if f.is_file()]
    assert tmp_path / "store.sqlite3" in files
    for file in files:  # the store with any journal beside it
        assert TEST_API_KEY.encode() not in file.read_bytes(), file

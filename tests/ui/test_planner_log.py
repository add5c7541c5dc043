"""Watching the planner: every attempt is kept with the plan (its metadata, saved with the
version) and shown by the Plan page's "Planner log" expander and by ``plan -v``."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from apptest_helpers import APP, make_plan, no_failures
from core import RepairLimitReached, Settings
from core.planners import EmbeddedPlanner, LLMPlanner, log_lines, planner_log
from core.storage import PlanStore
from studio.cli._main import main
from tools import build_registry

TODAY = dt.date(2025, 10, 12)
GOOD = {"steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}", "date_from": "last week",
                                          "date_to": "last week"}, "depends_on": [0], "parallel": False},
]}
# A reply that is untrusted text: markup that must be drawn as text, never run or rendered.
HOSTILE = ('<img src=x onerror=alert(1)> **bold** {"steps": [{"tool": "facility_list", "params": {}, '
           '"depends_on": [], "parallel": false}]}')


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, today=TODAY, planner="llm", model="test-model", temperature=0.2,
                    max_retries=1, timeout=5, first_timeout=5)


@pytest.fixture
def registry(settings):
    return build_registry(settings, groups=["waste"])


def test_every_attempt_is_kept_with_the_plan_and_its_saved_version(registry, settings, llm_server, tmp_path):
    llm_server.reply(HOSTILE)
    llm_server.reply(json.dumps(GOOD))
    plan = LLMPlanner(registry, settings).plan("Berlin facilities and last week's shipments", today=TODAY)

    first, second = planner_log(plan)
    assert first["reply"] == HOSTILE  # raw, as the model wrote it
    assert any("unknown tool 'facility_list'" in p for p in first["problems"])
    assert first["repair"] == llm_server.messages(1)[-1]["content"]  # exactly what went back
    assert first["temperature"] == 0.2 and second["temperature"] < 0.2
    assert second["tools"] == ["facilities_list"]
    assert second["problems"] == [] and "repair" not in second
    assert second["dates"] == ['step 1 · date_from: "last week" → 2025-10-05',
                               'step 1 · date_to: "last week" → 2025-10-12']
    for attempt in (first, second):
        assert attempt["prompt_tokens"] > 1000 and attempt["completion_tokens"] > 10
        assert 0 <= attempt["seconds"] < 5

    store = PlanStore(tmp_path / "store.sqlite3")
    saved = store.save_plan(plan)
    assert planner_log(store.load_plan(saved.plan_id, saved.version)) == planner_log(plan)


def test_a_planner_that_gives_up_still_hands_over_its_log(registry, settings, llm_server):
    llm_server.reply(HOSTILE)
    llm_server.reply(HOSTILE)
    with pytest.raises(RepairLimitReached) as caught:
        LLMPlanner(registry, settings).plan("Berlin facilities", today=TODAY)
    log = caught.value.planner_log
    assert [a["attempt"] for a in log] == [1, 2] and all(a["reply"] == HOSTILE for a in log)


def test_the_embedded_planners_log_says_which_words_chose_which_tool_and_filter(registry):
    plan = EmbeddedPlanner(registry).plan("Get contaminated shipments from Berlin facilities last week", today=TODAY)
    [attempt] = planner_log(plan)
    assert attempt["words"] == [
        {"words": "contaminated", "chose": "filter has_contaminants = true"},
        {"words": "shipments", "chose": "tool shipments_list"},
        {"words": "Berlin", "chose": 'filter location = "Berlin"'},
        {"words": "facilities", "chose": "tool facilities_list"},
        {"words": "last week", "chose": "filter dates 2025-10-05 to 2025-10-12"},
    ]
    assert '  "shipments" → tool shipments_list' in log_lines(planner_log(plan))


def test_plan_v_prints_the_log_on_stderr_and_keeps_stdout_the_plan(tmp_path, llm_server, capsys, monkeypatch):
    monkeypatch.setenv("PLAN_STUDIO_MODEL", "test-model")
    llm_server.reply(HOSTILE)
    llm_server.reply(json.dumps(GOOD))
    status = main(["plan", "-v", "--planner", "llm", "--data-dir", str(tmp_path), "--today", "2025-10-12",
                   "Berlin facilities and last week's shipments"])
    out, err = capsys.readouterr()
    assert status == 0
    assert [s["tool"] for s in json.loads(out)["steps"]] == ["facilities_list", "shipments_list"]
    assert err.startswith("plan-studio: Waiting for the model test-model")  # before the first answer
    assert "planner: attempt 1:" in err and "planner: attempt 2:" in err
    assert "unknown tool 'facility_list'" in err and "repair sent:" in err and HOSTILE in err

    llm_server.reply(json.dumps(GOOD))
    main(["plan", "--planner", "llm", "--data-dir", str(tmp_path), "--today", "2025-10-12", "Berlin"])
    assert capsys.readouterr().err == ""  # only with -v


@pytest.fixture
def llm_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llm_server) -> AppTest:
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-10-12")
    monkeypatch.setenv("PLAN_STUDIO_PLANNER", "llm")
    monkeypatch.setenv("PLAN_STUDIO_MODEL", "test-model")
    monkeypatch.delenv("PLAN_STUDIO_DB", raising=False)
    return AppTest.from_file(str(APP), default_timeout=60).run()


def test_the_plan_page_says_the_models_first_answer_may_be_slow_until_it_came(llm_app: AppTest, llm_server) -> None:
    def said() -> bool:
        return any("first answer can take a minute" in c.value for c in llm_app.caption)

    assert said()
    llm_server.reply(json.dumps(GOOD))
    make_plan(llm_app, "Berlin facilities and last week's shipments")
    assert not said()


def test_the_plan_page_shows_the_planner_log_escaped(llm_app: AppTest, llm_server) -> None:
    llm_server.reply(HOSTILE)
    llm_server.reply(json.dumps(GOOD))
    make_plan(llm_app, "Berlin facilities and last week's shipments")
    no_failures(llm_app)
    [panel] = [e for e in llm_app.expander if e.label.startswith("Planner log")]
    assert panel.label == "Planner log · 2 attempts"
    codes = [c.value for c in panel.code]
    assert HOSTILE in codes  # the raw reply, drawn as code: no Markdown, no HTML
    assert llm_server.messages(1)[-1]["content"] in codes  # the repair sent back
    markdown = "\n".join(m.value for m in panel.markdown)
    assert "<img" not in markdown and "unknown tool" in markdown
    assert "Attempt 1" in markdown and "Attempt 2" in markdown


def test_the_plan_page_shows_what_the_studio_set_right_in_a_reply(llm_app: AppTest, llm_server) -> None:
    """A value the user never said, which the studio leaves out of the model's plan, is listed
    as fixed in the log the page shows, as ``plan -v`` lists it."""
    llm_server.reply(json.dumps({"steps": [
        {"tool": "shipments_list", "params": {"status": "delivered"}, "depends_on": [], "parallel": False}]}))
    make_plan(llm_app, "all shipments")
    no_failures(llm_app)
    [panel] = [e for e in llm_app.expander if e.label.startswith("Planner log")]
    fixed = [m.value for m in panel.markdown if m.value.startswith("- fixed\\:")]  # as md_escape draws it
    assert len(fixed) == 1 and "delivered" in fixed[0], [m.value for m in panel.markdown]


@pytest.mark.browser
def test_the_planner_log_in_the_browser(page, llm_studio, llm_server) -> None:
    from browser_helpers import click, enter, open_studio, screenshot
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1440, "height": 1400})
    open_studio(page, llm_studio.url)
    llm_server.reply(HOSTILE)
    llm_server.reply(json.dumps(GOOD))
    enter(page.get_by_role("textbox", name="Goal"), "Berlin facilities and last week's shipments")
    click(page.get_by_role("button", name="Plan", exact=True))
    page.get_by_text("Planner log · 2 attempts").click()  # opening an expander reruns nothing
    panel = page.locator(".st-key-plan-planner_log")
    expect(panel.get_by_text("<img src=x onerror=alert(1)> **bold**", exact=False)).to_be_visible()
    expect(panel.locator("img")).to_have_count(0)  # the model's markup is text, never an element
    panel.scroll_into_view_if_needed()
    screenshot(page, "planner_log.png")

"""The studio in real Chromium with a model: the scripted OpenAI-compatible server on
127.0.0.1 stands in for it (the studio talks to it through the real ``openai`` client).

One journey: a plan that needs a repair, a re-plan into a new version, a run with the
answer streamed in, an HTTP 500 that loses nothing, and an imported Semantic Kernel plan
whose text tools call the model. The key never reaches the page or the database.
"""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import choose, click, enter, graph, offsite, open_studio, screenshot
from conftest import TEST_API_KEY
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"


def plan_reply(city: str, facilities_tool: str = "facilities_list") -> str:
    return json.dumps({"steps": [
        {"tool": facilities_tool, "params": {"location": city}, "depends_on": [], "parallel": False},
        {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}",
                                              "has_contaminants": True},
         "depends_on": [0], "parallel": False},
    ]})


SK_PLAN = """<plan>
  <!-- Write a poem about the harbour and translate it -->
  <function.WriterPlugin.ShortPoem input="the harbour at dawn" setContextVariable="POEM"/>
  <function.WriterPlugin.Translate input="$POEM" language="French" appendToResult="RESULT__TRANSLATED_POEM"/>
</plan>"""


def test_plan_repair_replan_run_and_import_with_a_model(page: Page, llm_studio, llm_server) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, llm_studio.url)
    expect(page.get_by_text(re.compile(r"Planner: llm"))).to_be_visible()

    # A reply naming a tool that does not exist is sent back with the validator's words.
    llm_server.reply(plan_reply("Berlin", facilities_tool="facility_list"))
    llm_server.reply(plan_reply("Berlin"))
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    expect(plan_json).to_have_value(re.compile(r'"location": "Berlin"'))
    graph(page, "pending pending")
    assert len(llm_server.requests) == 2
    assert "did you mean 'facilities_list'" in llm_server.text_of(1)

    # Re-plan with feedback: a new version, the old one kept.
    llm_server.reply(plan_reply("Munich"))
    page.get_by_text("Ask for changes (re-plan)").click()  # opens the expander: no rerun
    enter(page.get_by_role("textbox", name="What should change?"), "use Munich instead")
    click(page.get_by_role("button", name="Re-plan"))
    expect(plan_json).to_have_value(re.compile(r'"location": "Munich"'))
    expect(page.get_by_text(re.compile(r"Re-planned as version 2"))).to_be_visible()
    expect(page.get_by_text("Versions · 2")).to_be_visible()
    assert "use Munich instead" in llm_server.text_of(2)

    # Run: the answer is one streamed call after the steps.
    answer = "Munich's facilities sent several contaminated shipments; see the table."
    llm_server.reply(answer)
    click(page.get_by_role("button", name="Approve"))  # a re-plan shows what it changed first
    expect(page.get_by_text(re.compile(r"Before you approve: this plan is a re-plan of version 1"))).to_be_visible()
    click(page.get_by_role("button", name="Approve these changes"))
    click(page.get_by_role("button", name="Run all"))
    # Streamed (into the progress box while the run is in progress), then shown under "Answer".
    expect(page.get_by_text(answer)).to_be_visible()
    graph(page, "succeeded succeeded")
    assert llm_server.requests[3].get("stream") is True
    screenshot(page, "llm-journey.png")

    # The model fails: a clear error, and the goal typed and the plan on screen stay.
    llm_server.fail(500, "model overloaded")
    enter(page.get_by_role("textbox", name="Goal"), "Show inspections in Hamburg")
    click(page.get_by_role("button", name="Plan", exact=True))
    expect(page.get_by_text(re.compile(r"Could not make a plan: .*500"))).to_be_visible()
    expect(page.get_by_role("textbox", name="Goal")).to_have_value("Show inspections in Hamburg")
    expect(plan_json).to_have_value(re.compile(r'"location": "Munich"'))

    # An imported Semantic Kernel plan whose text tools call the model.
    llm_server.reply("Gulls wake the quay")
    llm_server.reply("Les mouettes réveillent le quai")
    llm_server.reply("A poem about the harbour, in French.")
    click(page.get_by_text("Import / export"))  # opening it reruns, to write the export text
    choose(page, "Import from", "Semantic Kernel XML plan")
    enter(page.get_by_role("textbox", name="Plan to import"), SK_PLAN)
    click(page.get_by_role("button", name="Import", exact=True))
    expect(page.get_by_text("Imported 2 steps from the Semantic Kernel XML plan")).to_be_visible()
    expect(plan_json).to_have_value(re.compile(r'"tool": "Translate"'))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    # The appended result's name, as a heading of the results (the JSON panel holds it too).
    expect(page.get_by_test_id("stMarkdownContainer").get_by_text("RESULT__TRANSLATED_POEM", exact=True)).to_be_visible()
    expect(page.get_by_text("Les mouettes réveillent le quai").first).to_be_visible()
    graph(page, "succeeded succeeded")

    assert TEST_API_KEY not in page.content()
    for path in llm_studio.data_dir.rglob("*"):
        if path.is_file():
            assert TEST_API_KEY.encode() not in path.read_bytes(), path
    assert offsite(requests) == []


def test_a_model_sending_its_headers_slowly_gets_a_message_within_the_limit(page: Page, llm_studio,
                                                                           llm_server) -> None:
    # PLAN_STUDIO_TIMEOUT=5 (llm_studio); one header line every 0.5 s never trips a per-read
    # timeout, and the Plan button used to spin for as long as the endpoint kept trickling.
    open_studio(page, llm_studio.url)
    llm_server.slow_headers(every=0.5)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    expect(page.get_by_text(re.compile(r"Could not make a plan: .*timed out after 5 s"))).to_be_visible()
    # The studio hung up on its own, long before the endpoint stopped trickling (60 s): the server
    # saw it, on its own clock, a margin for a loaded machine past the 5 s limit.
    assert llm_server.hung_up() < 5 + 15
    expect(page.get_by_role("textbox", name="Goal")).to_have_value(GOAL)
    screenshot(page, "llm-slow-headers.png")

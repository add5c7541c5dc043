"""Issue 17, item 5 in real Chromium: a step the reviewer marked waits for a person; the graph
colours it, the page shows its resolved arguments, and Approve runs it."""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import click, enter, graph, graph_nodes, open_studio, screenshot
from playwright.sync_api import Page, expect

from studio.ui.plan._graph import STATUS_COLOURS

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"


def test_a_marked_step_waits_until_approved_on_the_page(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    expect(plan_json).to_have_value(re.compile(r'"tool": "shipments_list"'))
    plan = json.loads(plan_json.input_value())
    plan["steps"][1]["ask_first"] = True
    enter(plan_json, json.dumps(plan, indent=2))
    graph(page, "pending pending")

    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    drawn = graph(page, "succeeded waiting")
    assert graph_nodes(drawn)[1]["color"]["background"] == STATUS_COLOURS["waiting"][0]
    panel = page.locator(".st-key-plan-pause")
    expect(panel.get_by_text("The run waits for you")).to_be_visible()
    expect(panel.get_by_text(re.compile(r"step 1 \(shipments_list\)"))).to_be_visible()
    expect(panel.locator("[data-testid=stDataFrame]")).to_have_count(1)
    screenshot(page, "pause-waiting.png")

    click(panel.get_by_role("button", name="Approve and run"))
    graph(page, "succeeded succeeded")
    expect(page.locator(".st-key-plan-pause")).to_have_count(0)
    screenshot(page, "pause-approved.png")

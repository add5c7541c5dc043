"""Plan formats in real Chromium: the CLI's default output pasted into the Plan JSON panel is
read (and the page says as what), and an export names what it dropped."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

import browser_helpers
from browser_helpers import choose, click, enter, screenshot

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"


def test_seed_json_pasted_into_the_plan_json_is_read_and_an_export_says_what_it_dropped(page: Page, studio) -> None:
    # Tall enough that the export selectbox needs no scrolling: a scroll closes its list.
    page.set_viewport_size({"width": 1440, "height": 2400})
    page.set_default_timeout(60_000)
    browser_helpers.open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    panel = page.get_by_role("textbox", name="Plan JSON")
    native = json.loads(panel.input_value())
    seed = {"steps": [{"tool": s["tool"], "params": s["params"], "depends_on": [0] if n else [],
                       "parallel": False} for n, s in enumerate(native["steps"])],
            "metadata": {"goal": GOAL, "planner": "embedded"}}
    enter(panel, json.dumps(seed, indent=2))
    expect(page.get_by_text("Read as Planner Agent JSON (seed)")).to_be_visible()
    assert [s["tool"] for s in json.loads(panel.input_value())["steps"]] == [s["tool"] for s in native["steps"]]
    screenshot(page, "formats-json-panel-seed.png")

    click(page.get_by_text("Import / export"))
    choose(page, "Export as", "LLMCompiler plan")
    expect(page.get_by_text("Not in the LLMCompiler plan: the goal")).to_be_visible()
    screenshot(page, "formats-export-dropped.png")

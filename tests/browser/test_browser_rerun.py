"""Issue 17, item 3 in real Chromium: retry a failed step from the Plan page (a preview first,
writing tools marked), the new run shown linked to its parent, and the lineage in the Library."""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import click, enter, graph, open_studio, screenshot
from playwright.sync_api import Page, expect
from rerun_helpers import shopping_plan

from core import Settings
from tools import load_tools

pytestmark = pytest.mark.browser

PLAN = shopping_plan("Take the <b>eggs</b> off")


def test_retry_a_failed_step_with_a_preview_and_see_the_lineage_in_the_library(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1440, "height": 1100})
    open_studio(page, studio.url)
    click(page.get_by_role("button", name="Start an empty plan"))
    enter(page.get_by_role("textbox", name="Plan JSON"), json.dumps(PLAN, indent=2))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    graph(page, "succeeded succeeded failed skipped")

    panel = page.locator(".st-key-plan-rerun")
    click(panel.get_by_role("button", name="Retry failed step(s)"))
    preview = page.locator(".st-key-plan-rerun-preview")
    expect(preview.get_by_text("2 steps run again, 2 keep their recorded results")).to_be_visible()
    expect(preview.get_by_text(re.compile(r"may write: removeItem “Take the <b>eggs</b> off”"))).to_be_visible()
    expect(preview.locator("[data-testid=stDataFrame]")).to_have_count(1)
    preview.scroll_into_view_if_needed()
    screenshot(page, "rerun-preview.png")

    registry, _problems = load_tools(Settings(data_dir=studio.data_dir))  # the eggs are on the list now
    registry.get("addItem").runner("addItem", {"list": "shop", "item": "eggs"})
    click(preview.get_by_role("button", name="Start the rerun"))
    graph(page, "succeeded succeeded succeeded succeeded")
    expect(page.get_by_text(re.compile(r"succeeded · saved with the plan · rerun of run \w+ from removeItem “Take the <b>eggs</b> off”"))).to_be_visible()
    screenshot(page, "rerun-done.png")

    click(page.get_by_role("link", name="Library"))
    page.get_by_text("Versions and runs").click()
    expect(page.get_by_text(re.compile(r"reruns: \w+ \(from removeItem"))).to_be_visible()
    child = page.get_by_text(re.compile(r"^\W*rerun of run \w+ from removeItem"))
    expect(child).to_be_visible()
    opens = page.get_by_role("button", name="Open run")
    expect(opens).to_have_count(2)  # each run of the lineage opens
    expect(opens.nth(1)).to_be_in_viewport(ratio=1)  # the expander has finished opening
    screenshot(page, "rerun-library.png")

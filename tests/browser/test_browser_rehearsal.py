"""Issue 29, item 6 in real Chromium: Rehearse by the run buttons, refused naming the writes
without a result; a real run; then a rehearsal taking that run's recorded results, marked
"rehearsal" on the run and on each step, and the list tool's real state untouched by it.
Screenshots at 1280x800 and 1920x1080."""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import choose, click, enter, graph, open_studio, screenshot
from playwright.sync_api import Page, expect

from core import Settings
from tools import load_tools

pytestmark = pytest.mark.browser

PLAN = {"goal": "Shopping", "steps": [
    {"id": "mk", "tool": "createList", "params": {"list": "shop"}},
    {"id": "add", "tool": "addItem", "params": {"list": "shop", "item": "milk"}, "depends_on": ["mk"]},
    {"id": "show", "tool": "showList", "params": {"list": "shop"}, "depends_on": ["add"]}]}


def _open_rehearse(page: Page):
    click(page.get_by_role("button", name="Rehearse"))  # opens the popover (tracked: a rerun)
    start = page.get_by_role("button", name="Start rehearsal")
    expect(start).to_be_visible()
    return start


def test_rehearse_after_a_real_run_with_its_recorded_results(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, studio.url)
    click(page.get_by_role("button", name="Start an empty plan"))
    enter(page.get_by_role("textbox", name="Plan JSON"), json.dumps(PLAN, indent=2))

    click(_open_rehearse(page))
    expect(page.get_by_text("Not rehearsed: 2 steps of tools that may write have no recorded or pinned result: "
                            "step 0 (createList), step 1 (addItem).", exact=False)).to_be_visible()

    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    graph(page, "succeeded succeeded succeeded")
    real = re.search(r"Run (\w+) · succeeded", page.get_by_text(re.compile(r"^Run \w+ · succeeded")).inner_text())
    assert real is not None

    _open_rehearse(page)
    choose(page, "Results recorded in", re.compile(f"Run {real.group(1)}"))
    click(page.get_by_role("button", name="Start rehearsal"))
    expect(page.get_by_role("button", name="Start rehearsal")).to_have_count(0)  # the popover closed
    summary = page.get_by_text(re.compile(rf"· rehearsal: no tool was called; results recorded in run {real.group(1)}"))
    expect(summary).to_be_visible()
    graph(page, "succeeded succeeded succeeded")
    expect(page.get_by_text(f"rehearsal · recorded in run {real.group(1)}")).to_have_count(3)
    expect(page.get_by_role("button", name="Download the run (JSON)")).to_be_visible()

    registry, _problems = load_tools(Settings(data_dir=studio.data_dir))  # the real list: milk once
    assert registry.get("showList").runner("showList", {"list": "shop"})["items"] == ["milk"]

    summary.scroll_into_view_if_needed()
    screenshot(page, "rehearsal-1280.png")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.get_by_role("button", name="Rehearse").scroll_into_view_if_needed()
    screenshot(page, "rehearsal-1920.png")

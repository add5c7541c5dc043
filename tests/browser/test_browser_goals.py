"""Goals typed one after another in real Chromium: words the planner did not use are named,
a new goal is planned fresh, and only a follow-up builds on the plan that is open."""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import click, enter, open_studio, screenshot
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def _plan_on_screen(page: Page) -> dict:
    return json.loads(page.get_by_role("textbox", name="Plan JSON").input_value())


def _ask(page: Page, goal: str) -> dict:
    enter(page.get_by_role("textbox", name="Goal"), goal)
    click(page.get_by_role("button", name="Plan", exact=True))
    expect(page.get_by_role("textbox", name="Plan JSON")).to_have_value(
        re.compile(r'"goal": ' + re.escape(json.dumps(goal))))
    return _plan_on_screen(page)


def test_unused_words_are_named_and_a_new_goal_is_planned_fresh(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)

    first = _ask(page, "Get contaminated shipments from Berlin facilities")
    assert [s["tool"] for s in first["steps"]] == ["facilities_list", "shipments_list"]
    expect(page.get_by_text("Not used from the goal")).to_have_count(0)

    # A goal with a word no tool reads: a plan for what could be read, and the word named.
    weather = _ask(page, "What's the weather in Berlin?")
    assert [s["tool"] for s in weather["steps"]] == ["facilities_list"]
    expect(page.get_by_text("Not used from the goal: “weather”")).to_be_visible()
    screenshot(page, "goals-unused-words.png")

    # An unrelated goal while a plan is open: planned fresh, never reported as a failed re-plan.
    fresh = _ask(page, "Show inspections in Hamburg")
    assert [s["tool"] for s in fresh["steps"]] == ["facilities_list", "inspections_list"]
    assert fresh["steps"][0]["params"] == {"location": "Hamburg"}
    expect(page.get_by_text("Not used from the goal")).to_have_count(0)
    expect(page.get_by_text("Could not make a plan")).to_have_count(0)

    # A follow-up builds on the open plan.
    follow_up = _ask(page, "Show me the same for Munich")
    assert [s["tool"] for s in follow_up["steps"]] == ["facilities_list", "inspections_list"]
    assert follow_up["steps"][0]["params"] == {"location": "Munich"}


def test_a_negation_not_applied_and_a_typo_read_are_said_above_the_graph(page: Page, studio) -> None:
    """Issue 18: what the plan does NOT apply, and a word read as another, are on the page
    above the graph, where the reviewer reads before approving."""
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)
    plan = _ask(page, "inspectons at landfills that are not in Hamburg")
    assert [s["tool"] for s in plan["steps"]] == ["facilities_list", "inspections_list"]
    assert plan["steps"][0]["params"] == {"type": "landfill"}
    warning = page.get_by_test_id("stAlertContentWarning").get_by_text(re.compile("“not in Hamburg” was NOT applied"))
    expect(warning).to_be_visible()
    expect(page.get_by_test_id("stAlertContentInfo").get_by_text("read ‘inspectons’ as ‘inspections’")).to_be_visible()
    graph_top = page.get_by_text(re.compile(r"^Graph · 2 steps")).bounding_box()
    assert warning.bounding_box()["y"] < graph_top["y"]
    screenshot(page, "goals-negation-not-applied.png")

"""The Plan page's gate in real Chromium: while the Plan JSON is not a plan, nothing acts on the
last valid one; a plan with a problem cannot be approved."""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import click, enter, graph, open_studio, screenshot
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"
ALL_CLEAR = "No problems found"


def test_broken_json_holds_every_action_until_it_is_fixed(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    good = plan_json.input_value()
    buttons = {name: page.get_by_role("button", name=name, exact=True)
               for name in ("Approve", "Run next step", "Run all", "Save")}
    expect(page.get_by_text(ALL_CLEAR)).to_be_visible()
    expect(buttons["Approve"]).to_be_enabled()

    # A dropped comma: every action waits, the page says where to look, the all-clear goes.
    broken = good.replace('"tool": "facilities_list",', '"tool": "facilities_list"', 1)
    enter(plan_json, broken)
    for button in buttons.values():
        expect(button).to_be_disabled()
    expect(page.get_by_text(ALL_CLEAR)).to_have_count(0)
    expect(page.get_by_text(re.compile(r"Approve, Run and Save are disabled\. Fix the Plan JSON first "
                                       r"\(not valid JSON: .* line 7, column \d+\)"))).to_be_visible()
    expect(plan_json).to_have_value(broken)
    graph(page, "pending pending")  # the last valid plan stays drawn
    screenshot(page, "gate-broken-json.png")

    # Fixed (and changed): Approve and Save are back, and approving enables Run.
    enter(plan_json, good.replace("Berlin", "Munich"))
    expect(buttons["Approve"]).to_be_enabled()
    expect(buttons["Save"]).to_be_enabled()
    expect(page.get_by_text(ALL_CLEAR)).to_be_visible()
    click(buttons["Approve"])
    expect(buttons["Run all"]).to_be_enabled()
    expect(buttons["Run next step"]).to_be_enabled()

    # Broken again after approval: Run waits too.
    enter(plan_json, plan_json.input_value().replace('"steps": [', '"steps": [[', 1))
    expect(buttons["Run all"]).to_be_disabled()
    expect(buttons["Run next step"]).to_be_disabled()


def test_a_plan_with_a_problem_cannot_be_approved(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan = {"goal": GOAL, "steps": [{"id": "a", "tool": "facility_list", "params": {"location": "Berlin"}}]}
    enter(page.get_by_role("textbox", name="Plan JSON"), json.dumps(plan, indent=2))

    expect(page.get_by_text("unknown tool 'facility_list'; did you mean 'facilities_list'?")).to_be_visible()
    expect(page.get_by_role("button", name="Approve")).to_be_disabled()
    expect(page.get_by_role("button", name="Run all")).to_be_disabled()
    expect(page.get_by_text(ALL_CLEAR)).to_have_count(0)
    expect(page.get_by_text("Approve is disabled: the plan has 1 problem to fix first")).to_be_visible()
    screenshot(page, "gate-problem.png")

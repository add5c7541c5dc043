"""The Lab in real Chromium: one description edit changes the tools the embedded planner chooses
for a goal set. Dropping "City" from facilities_list's location words leaves the planner
without a place parameter, so "in Hannover" no longer names facilities: the goal about
Hannover's contaminants loses its facilities step, "Hannover" alone gets no plan, and the goal
about last week's shipments stays as it was."""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import click, enter, open_studio, reruns, screenshot
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

GOALS = "Analyse today's contaminants in Hannover\nGet shipments from last week\nHannover"


def test_one_description_edit_changes_the_tool_chosen_for_a_goal_set(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    open_studio(page, f"{studio.url}/lab")
    expect(page.get_by_role("heading", name="Lab")).to_be_visible()

    picker = page.get_by_role("combobox", name="Tools to edit")
    picker.click()
    click(page.get_by_role("option", name="facilities_list"))
    page.keyboard.press("Escape")
    card = page.locator("[class*=st-key-lab-1-card-facilities_list], [class*=st-key-lab-0-card-facilities_list]")
    location = card.get_by_role("textbox", name="Parameter location")
    expect(location).to_have_value("City the facility is in, e.g. Berlin, Hannover, Munich.")
    enter(location, "Where the facility is.")
    expect(card.get_by_role("button", name=re.compile("Download the edit as a patch"))).to_be_visible()

    enter(page.get_by_role("textbox", name="Goals, one per line"), GOALS)
    click(page.get_by_role("button", name="Use these goals"))
    expect(page.get_by_text("3 goals, 0 with a plan expected")).to_be_visible()

    click(page.get_by_role("button", name="Run experiment"))
    expect(page.get_by_text("3 of 3 goals planned · 2 planned differently with the edited words")).to_be_visible()
    details = page.locator("[class*=st-key-lab-details]")
    expect(details.get_by_text("Original words: facilities_list → contaminants_list")).to_be_visible()
    expect(details.get_by_text(re.compile(r"^Edited words: contaminants_list"))).to_be_visible()
    expect(details.get_by_text(re.compile(r"^Edited words: no plan"))).to_be_visible()
    expect(details.get_by_text("Get shipments from last week")).to_have_count(0)  # unchanged: not listed
    screenshot(page, "lab-one-edit-changes-a-tool.png")

    # A goal set file: its bad line is named by number, the good ones are the new set.
    expected = {"steps": [{"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": []}]}
    lines = [json.dumps({"goal": "Get facilities in Berlin", "expected": expected}), "{broken", '"Hannover"']
    page.get_by_role("tab", name="From a file").click()
    with reruns(page):
        page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(
            files=[{"name": "goals.jsonl", "mimeType": "application/json", "buffer": "\n".join(lines).encode()}])
    expect(page.get_by_text("goals.jsonl: line 2: not JSON")).to_be_visible()
    expect(page.get_by_text("2 goals, 1 with a plan expected")).to_be_visible()

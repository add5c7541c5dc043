"""The on-ramp in real Chromium at 1280×800 and 1920×1080: example goals on the empty page from the
tools loaded, Enter in the goal box plans, the guide follows plan → approve → run and hides on a
click, and a finished run ends in a readable summary."""

from __future__ import annotations

import json
import re
from typing import Iterator

import pytest
from browser_helpers import click, graph, open_studio, reruns, screenshot
from conftest import Studio, start_studio
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    yield from start_studio(tmp_path_factory.mktemp("onramp"))


def _examples(page: Page) -> list[str]:
    labels = page.locator(".st-key-onramp-examples button:visible [data-testid=stMarkdownContainer]")
    expect(labels.first).to_be_visible()
    return [label.inner_text().strip() for label in labels.all()]


def _plan_json(page: Page) -> dict:
    return json.loads(page.get_by_role("textbox", name="Plan JSON").input_value())


def test_enter_plans_and_the_guide_leads_from_an_empty_page_to_a_summary(page: Page, served) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, served.url)
    guide = page.locator(".st-key-onramp-guide")
    expect(guide).to_contain_text("● Plan")
    examples = _examples(page)
    assert 2 <= len(examples) <= 3
    # The examples sit on the laptop's first screen, beside the guide.
    last = page.locator(".st-key-onramp-examples button:visible").last.bounding_box()
    assert last["y"] + last["height"] <= 800
    screenshot(page, "onramp-empty-1280.png")

    # Enter in the goal box plans: no click on Plan.
    goal = page.get_by_role("textbox", name="Goal")
    goal.fill(examples[-1].lower())
    with reruns(page):
        goal.press("Enter")
    expect(page.get_by_role("textbox", name="Plan JSON")).to_have_value(re.compile(re.escape(examples[-1].lower())))
    steps = _plan_json(page)["steps"]
    graph(page, " ".join(["pending"] * len(steps)))
    expect(page.locator(".st-key-onramp-examples")).to_have_count(0)
    expect(guide).to_contain_text("✓ Plan → ● Approve → ○ Run")

    click(page.get_by_role("button", name="Approve"))
    expect(guide).to_contain_text("✓ Approve → ● Run")
    click(page.get_by_role("button", name="Run all"))
    summary = page.locator(".st-key-plan-summary")
    expect(summary).to_contain_text(re.compile(rf"Summary · {len(steps)} steps?: {len(steps)} succeeded"))
    expect(summary.get_by_text(re.compile(r"^The final result, Step"))).to_be_visible()
    expect(guide).to_contain_text("Done:")
    screenshot(page, "onramp-done-1280.png")

    click(guide.get_by_role("button", name="Hide guide"))
    expect(guide).to_have_count(0)


def test_an_example_plans_on_a_click_at_full_hd(page: Page, served) -> None:
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_studio(page, served.url)
    examples = _examples(page)
    screenshot(page, "onramp-empty-1920.png")
    click(page.locator(".st-key-onramp-example-0 button:visible"))
    expect(page.get_by_role("textbox", name="Goal")).to_have_value(examples[0])
    assert _plan_json(page)["goal"] == examples[0]
    steps = _plan_json(page)["steps"]
    drawn = graph(page, " ".join(["pending"] * len(steps)))
    box = drawn.bounding_box()
    assert box["y"] < 1080  # the graph starts on the first screen
    screenshot(page, "onramp-planned-1920.png")

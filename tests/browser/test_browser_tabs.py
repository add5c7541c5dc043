"""Two browser tabs (two contexts, so two sessions) on one saved plan: both edit it, both save.
The second is told a newer version exists and what changed in it, saves on top, and the Library
shows every version: nothing is dropped without the user choosing it."""

from __future__ import annotations

import re

import pytest
from typing import Callable, Iterator

from browser_helpers import click, enter, graph, open_studio, screenshot
from playwright.sync_api import Browser, BrowserContext, Page, expect

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"


@pytest.fixture
def new_tab(browser: Browser, studio) -> Iterator[Callable[[], Page]]:
    """Opens the studio in a browser context of its own (its own session, like another
    browser window); the contexts are closed after the test."""
    contexts: list[BrowserContext] = []

    def open_tab() -> Page:
        contexts.append(browser.new_context(viewport={"width": 1440, "height": 1000}))
        page = contexts[-1].new_page()
        open_studio(page, studio.url)
        return page

    yield open_tab
    for context in contexts:
        context.close()


def _open_from_library(page: Page) -> None:
    click(page.get_by_role("link", name="Library"))
    card = page.locator("[class*=st-key-library-card]").filter(has_text=GOAL)
    click(card.get_by_role("button", name="Open", exact=True))
    expect(page.get_by_text("Opened version 1 of this plan.")).to_be_visible()


def _edit_and_save(page: Page, city: str) -> None:
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    enter(plan_json, plan_json.input_value().replace('"Berlin"', f'"{city}"'))
    click(page.get_by_role("button", name="Save", exact=True))


def test_the_second_tab_to_save_sees_the_first_tabs_change_and_saves_on_top(new_tab) -> None:
    first = new_tab()
    enter(first.get_by_role("textbox", name="Goal"), GOAL)
    click(first.get_by_role("button", name="Plan", exact=True))
    click(first.get_by_role("button", name="Save", exact=True))
    expect(first.get_by_text("Saved as version 1.")).to_be_visible()
    second = new_tab()
    _open_from_library(first)
    _open_from_library(second)

    _edit_and_save(first, "Munich")
    expect(first.get_by_text("Saved as version 2.")).to_be_visible()
    _edit_and_save(second, "Hamburg")
    warning = second.get_by_text(re.compile(r"Not saved: version 2 of this plan was saved"))
    expect(warning).to_be_visible()
    # the step named by label (tool and note, or short id), never by position
    expect(warning).to_contain_text(re.compile(r"Its changes since version 1: changed: facilities_list .+ "
                                               r"\(location 'Berlin' → 'Munich'\)"))
    expect(second.get_by_role("button", name="Reload the newer version")).to_be_visible()
    graph(second, "pending pending")
    screenshot(second, "tabs-conflict.png")

    click(second.get_by_role("button", name="Save mine on top"))
    expect(second.get_by_text(re.compile(r"Saved as version 3, after version 2"))).to_be_visible()
    expect(second.get_by_text(re.compile(r"Not saved: version 2"))).to_have_count(0)

    click(second.get_by_role("link", name="Library"))
    card = second.locator("[class*=st-key-library-card]").filter(has_text=GOAL)
    expect(card.get_by_text(re.compile(r"3 versions"))).to_be_visible()
    card.get_by_text("Versions and runs").click()
    expect(card.get_by_text(re.compile(r"Version 3 · .* · saved over version 2 \(edited from version 1\)"))).to_be_visible()
    expect(card.get_by_text(re.compile(r"^Version 2 · "))).to_be_visible()
    expect(card.get_by_text(re.compile(r"^Version 1 · "))).to_be_visible()
    screenshot(second, "tabs-library.png")

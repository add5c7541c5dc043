"""The Tools page in real Chromium: every allowed value and description can be read in full."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from browser_helpers import ARTIFACTS, click, enter, open_studio, screenshot

pytestmark = pytest.mark.browser


def test_allowed_values_and_descriptions_are_shown_in_full(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    open_studio(page, f"{studio.url}/tools")
    card = page.locator("[class*=st-key-tools-card-facilities_list]")
    cell = card.locator("td", has_text="landfill")
    expect(cell).to_have_text("recycling, sorting, composting, incineration, landfill")
    # Nothing is clipped: every table cell on the page shows its whole text.
    expect(cell).to_be_visible()
    clipped = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stTable"] td')]
        .filter(td => td.scrollWidth > td.clientWidth + 1 || td.scrollHeight > td.clientHeight + 1)
        .map(td => td.innerText)""")
    assert clipped == []
    ARTIFACTS.mkdir(exist_ok=True)
    card.screenshot(path=str(ARTIFACTS / "tools-facilities.png"))


def test_a_description_edited_for_the_session_shows_on_its_card_until_reset(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    open_studio(page, f"{studio.url}/tools")
    card = page.locator("[class*=st-key-tools-card-addItem]")
    expect(card.get_by_text("Effects: writes, additive")).to_be_visible()
    card.get_by_text("Edit description (this session)").click()
    field = card.get_by_role("textbox", name="Description")
    expect(field).to_be_visible()
    enter(field, "Append exactly one grocery item.")
    click(card.get_by_role("button", name="Apply"))
    expect(card.get_by_text("Description edited for this session")).to_be_visible()
    expect(card.get_by_role("paragraph").filter(has_text="Append exactly one grocery item.")).to_be_visible()
    screenshot(page, "tools-edited-description.png")
    card.screenshot(path=str(ARTIFACTS / "tools-edited-description-card.png"))
    click(card.get_by_role("button", name="Reset"))
    expect(card.get_by_text("Description edited for this session")).to_have_count(0)
    expect(card.get_by_role("paragraph").filter(has_text="Add an item to the end of a named list")).to_be_visible()
    expect(card.get_by_role("textbox", name="Description")).to_have_value(
        "Add an item to the end of a named list, creating the list if it does not exist.")

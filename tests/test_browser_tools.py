"""The Tools page in real Chromium: every allowed value and description can be read in full."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from browser_helpers import ARTIFACTS, open_studio

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

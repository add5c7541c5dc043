"""Hole 3 in a browser: without the address plan-studio printed, Chromium gets a refusal and no
app; with it, the page opens (and stays open on other pages and after a reload)."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from browser_helpers import open_studio, reload, screenshot
from conftest import Studio


def test_a_browser_without_the_secret_gets_no_app(browser: Browser, studio: Studio) -> None:
    stranger = browser.new_context()  # not the test's signed-in context: no cookie
    try:
        page = stranger.new_page()
        sockets: list[str] = []
        page.on("websocket", lambda socket: sockets.append(socket.url))
        response = page.goto(studio.url)
        assert response is not None and response.status == 403
        expect(page.locator("body")).to_contain_text("plan-studio printed")
        response = page.goto(f"{studio.url}/settings")
        assert response is not None and response.status == 403
        assert sockets == []
        expect(page.get_by_test_id("stApp")).to_have_count(0)
    finally:
        stranger.close()


def test_the_printed_address_opens_the_studio(browser: Browser, studio: Studio) -> None:
    person = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page: Page = person.new_page()
        open_studio(page, studio.open_url)
        assert "token=" not in page.url  # the token left the address bar for a cookie
        expect(page.get_by_role("link", name="Settings")).to_be_visible()
        reload(page)
        expect(page.get_by_test_id("stApp")).to_be_visible()
        cookies = person.cookies()
        assert [c["httpOnly"] and c["sameSite"] == "Strict" for c in cookies if c["name"].startswith("plan_studio_")] == [True]
        screenshot(page, "signed-in-with-the-start-address.png")
    finally:
        person.close()

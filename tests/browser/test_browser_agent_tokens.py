"""Settings' agents' tokens in Chromium: a token made there is shown once (gone after the next
click), listed with its agent and role, works on the review API, and once revoked is refused
with 401 saying so, and listed as revoked."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

from playwright.sync_api import Page, expect

from browser_helpers import click, enter, open_studio, screenshot
from conftest import Studio
from core.storage import PlanStore

PLAN = {"goal": "Facilities in Berlin", "steps": [{"id": "fac", "tool": "facilities_list",
                                                   "params": {"location": "Berlin"}}]}


def call(studio: Studio, method: str, path: str, body: Any = None, *, token: str) -> tuple[int, dict[str, Any]]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(studio.url + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_token_made_on_settings_is_shown_once_works_and_is_revoked(page: Page, studio: Studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, f"{studio.url}/settings")
    tokens = page.locator(".st-key-settings-agent-tokens")
    enter(page.get_by_label("New token's name"), "nightly-bot")
    click(page.get_by_role("button", name="Create token"))
    expect(tokens).to_contain_text("shown only this once")
    token = tokens.locator("pre code").inner_text().strip()
    assert re.fullmatch(r"ps_[\w-]{43}", token)
    screenshot(page, "settings-token-made.png")
    status, review = call(studio, "POST", "/api/reviews", {"plan": PLAN, "agent": "nightly"}, token=token)
    assert status == 201

    # Opened from the keyboard (a click on this box, focused already, leaves its list shut).
    box = page.get_by_role("combobox", name="Token to revoke")
    box.focus()
    expect(box).to_be_focused()  # the key goes to the box drawn now (the screenshot's resizes redraw the page)
    page.keyboard.press("ArrowDown")
    expect(box).to_have_attribute("aria-expanded", "true")
    click(page.locator("[role=option]", has_text="nightly-bot"))
    expect(tokens).not_to_contain_text(token)  # the next run no longer shows it
    click(page.get_by_role("button", name="Revoke"))
    expect(page.get_by_text("Token 'nightly-bot' revoked")).to_be_visible()
    status, body = call(studio, "GET", f"/api/reviews/{review['id']}", token=token)
    assert status == 401 and "'nightly-bot' was revoked" in body["error"]
    table = page.locator(".st-key-settings-agent-tokens [data-testid='stDataFrame']")
    expect(table).to_be_visible()
    with PlanStore(studio.data_dir / "studio.sqlite3") as store:  # the grid draws on a canvas: the rows it shows
        listed = {t.name: t for t in store.people.tokens()}
    made = listed["nightly-bot"]
    assert (made.agent_id, made.role.name, made.revoked) == ("agent:nightly-bot", "reviewer", True)
    screenshot(page, "settings-token-revoked.png")
    assert token not in page.content()

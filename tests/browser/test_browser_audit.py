"""End to end: an agent submits a plan over HTTP; in Chromium the Audit page lists the event,
filters it by agent, and exports it as CSV and JSON (real downloads); an agent's markup in the
goal is shown as text. Screenshots at 1280x800 and 1920x1080."""

from __future__ import annotations

import csv
import io
import json
import urllib.request

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import click, enter, open_studio, screenshot

pytestmark = pytest.mark.browser

GOAL = "<img src=x onerror=alert(1)> **Empty** the bins"
PLAN = {"goal": GOAL, "steps": [{"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}}]}


def _submit(studio, agent: str) -> str:
    token = (studio.data_dir / "api-token").read_text().strip()
    request = urllib.request.Request(f"{studio.url}/api/reviews", method="POST",
                                     data=json.dumps({"plan": PLAN, "format": "native", "agent": agent}).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())["id"]


def test_the_audit_page_lists_filters_and_exports_what_agents_did(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, studio.url)
    first = _submit(studio, "ship-bot")
    _submit(studio, "other-bot")
    click(page.get_by_role("link", name="Audit"))
    expect(page.get_by_text("Events 1–2 of 2, newest first")).to_be_visible()
    screenshot(page, "audit-page-1280.png")
    enter(page.locator(".st-key-audit_agent input"), "ship-bot")
    expect(page.get_by_text("Events 1–1 of 1, newest first")).to_be_visible()
    with page.expect_download() as caught:
        page.locator(".st-key-audit_export_csv button").click()
    [row] = list(csv.DictReader(io.StringIO(caught.value.path().read_text(encoding="utf-8"))))
    # Who called is the shared token's holder ("default"); the agent the submission names is its subject.
    assert (row["action"], row["actor_id"], row["review"], row["channel"], row["agent"]) == (
        "review.submitted", "agent:default", first, "api", "ship-bot")
    assert json.loads(row["detail"])["goal"] == GOAL
    with page.expect_download() as caught:
        page.locator(".st-key-audit_export_json button").click()
    [event] = json.loads(caught.value.path().read_text(encoding="utf-8"))
    assert event["subject"] == {"review": first, "agent": "ship-bot"}
    assert page.locator("img[src=x]").count() == 0  # the agent's markup is not drawn
    page.set_viewport_size({"width": 1920, "height": 1080})
    screenshot(page, "audit-page-1920.png")

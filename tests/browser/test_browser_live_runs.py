"""Issue 29, item 3 in real Chromium: runs safe from every tab and link.

One studio, then the same data folder after a kill -9:
- a run waits for a person: Reviews lists it and the navigation counts it; a tab opened from
  the first tab's URL (another browser window) shows the waiting run with its decision, not a
  fresh Run all; decided over the review API, the open page shows it within a second or so, unasked;
- a run going on: the URL names it; a second window opened from that URL watches it live (Run
  all disabled); after kill -9 and a restart, the first tab's own URL opens the run interrupted
  and offers Resume, which finishes it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, expect

from browser_helpers import ARTIFACTS, click, enter, graph, open_studio
from conftest import Studio, start_studio
from test_browser_control_plane import _approver_token
from test_browser_runs import _open_gate, gate_plugin

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
GOAL = "Get contaminated shipments from Berlin facilities"


def _api(studio: Studio, token: str, method: str, path: str, body: Any = None) -> dict[str, Any]:
    request = urllib.request.Request(studio.url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def _first_screen(page: Page, name: str) -> None:
    """What shows without scrolling, at 1280x800 and 1920x1080."""
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in ((1280, 800), (1920, 1080)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})


def _window(browser: Browser, url: str) -> Page:
    """Another browser window (a context of its own: its own session) on ``url``."""
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    open_studio(page, url)
    return page


def _moved_to(url: str, studio: Studio) -> str:
    """``url`` (path and query: the tab's draft, plan, version and run) on ``studio``'s address."""
    parts = urlparse(url)
    return f"{studio.url}{parts.path}?{parts.query}"


def test_every_tab_and_link_shows_the_run_and_never_starts_it_again(browser: Browser, tmp_path: Path) -> None:
    plugin, fifo = gate_plugin(tmp_path)
    first = start_studio(tmp_path, PYTHONPATH=str(plugin))
    studio = next(first)
    second_studio = None
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        # -- a run waiting for a person ---------------------------------------------------------
        open_studio(page, studio.url)
        enter(page.get_by_role("textbox", name="Goal"), GOAL)
        click(page.get_by_role("button", name="Plan", exact=True))
        plan_json = page.get_by_role("textbox", name="Plan JSON")
        expect(plan_json).to_have_value(re.compile(r'"tool": "shipments_list"'))
        plan = json.loads(plan_json.input_value())
        plan["steps"][1]["ask_first"] = True
        enter(plan_json, json.dumps(plan, indent=2))
        click(page.get_by_role("button", name="Approve"))
        click(page.get_by_role("button", name="Run all"))
        graph(page, "succeeded waiting")
        run_id = re.search(r"[?&]run=(\w+)", page.url).group(1)  # the URL names the run
        expect(page.get_by_role("link", name="Reviews (1)")).to_be_visible()

        other = _window(browser, page.url)  # the first tab's URL, in another window
        graph(other, "succeeded waiting")
        expect(other.locator(".st-key-plan-pause").get_by_role("button", name="Approve and run")).to_be_enabled()
        expect(other.get_by_role("button", name="Run all")).to_have_attribute("data-testid", "stBaseButton-secondary")
        click(other.get_by_role("link", name="Reviews (1)"))
        card = other.locator(f".st-key-reviews-run-{run_id}")
        expect(card.get_by_text(GOAL)).to_be_visible()
        _first_screen(other, "live-runs-reviews-waiting")
        click(card.get_by_role("button", name="Decide"))
        graph(other, "succeeded waiting")
        _first_screen(other, "live-runs-second-tab-waiting")

        # Decided over the review API: both open pages show it on their own, nobody reloads.
        token = _approver_token(studio, "an-agent")
        [step] = _api(studio, token, "GET", f"/api/runs/{run_id}/waiting")["waiting"]
        decided = _api(studio, token, "POST", f"/api/runs/{run_id}/steps/{step['step_id']}/decision",
                       {"approve": True, "shown_hash": step["shown_hash"]})
        assert decided["settled"], decided
        graph(page, "succeeded succeeded")
        graph(other, "succeeded succeeded")
        expect(page.locator(".st-key-plan-pause")).to_have_count(0)
        expect(page.get_by_role("link", name="Reviews", exact=True)).to_be_visible()
        other.context.close()

        # -- a run going on, a second window, then kill -9 -------------------------------------
        steps = [{"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}},
                 {"id": "gate", "tool": "wait_for_gate", "params": {"label": "n=${step[0].count}"}},
                 {"id": "say", "tool": "say", "params": {"message": "after the gate: ${step[1].label}"}}]
        enter(plan_json, json.dumps({"goal": "Gated", "steps": steps}, indent=1))
        click(page.get_by_role("button", name="Approve"))
        click(page.get_by_role("button", name="Run all"))
        expect(page.get_by_text("Step 1 · wait_for_gate: running")).to_be_visible()
        expect(page).to_have_url(re.compile(r"[?&]run=\w+"))
        gated_run = re.search(r"[?&]run=(\w+)", page.url).group(1)
        assert gated_run != run_id

        watcher = _window(browser, page.url)
        expect(watcher.get_by_text("Step 1 · wait_for_gate: running")).to_be_visible()
        expect(watcher.get_by_role("button", name="Run all")).to_be_disabled()
        expect(watcher.get_by_role("button", name="Run next step")).to_be_disabled()
        _first_screen(watcher, "live-runs-second-tab-watching")
        watcher.context.close()

        tab_url = page.url
        os.kill(studio.pid, signal.SIGKILL)  # the studio dies mid-run, the gate step mid-call
        os.waitpid(studio.pid, 0)
        first.close()
        second_studio = start_studio(tmp_path, PYTHONPATH=str(plugin))
        studio = next(second_studio)
        open_studio(page, _moved_to(tab_url, studio))  # the tab's own URL, on the restarted studio
        expect(page.get_by_text("This run was interrupted: it stopped while steps ran.")).to_be_visible()
        panel = page.locator(".st-key-plan-resume")
        expect(panel.get_by_role("button", name="Resume")).to_be_visible()
        expect(page.get_by_role("button", name="Run all")).to_have_attribute("data-testid", "stBaseButton-secondary")
        _first_screen(page, "live-runs-restart-resume")
        click(panel.get_by_text("Run it again"))
        click(panel.get_by_role("button", name="Resume"))
        expect(page.get_by_text("Step 1 · wait_for_gate: running")).to_be_visible()
        _open_gate(fifo)
        expect(page.get_by_text(re.compile(rf"^Run {gated_run} · succeeded · 3 succeeded"))).to_be_visible()
    finally:
        _open_gate(fifo, missing_ok=True)
        page.context.close()
        first.close()
        if second_studio is not None:
            second_studio.close()

"""The studio in real Chromium: goal → plan graph and JSON → approve → run → save → library.

Runs the real ``plan-studio`` command (the ``studio`` fixture) and checks that no request
leaves 127.0.0.1: the graph library is served by the studio itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
GOAL = "Get contaminated shipments from Berlin facilities"
TIMEOUT_MS = 30_000
SUCCEEDED_FILL = "#16a34a"  # studio._graph.STATUS_COLOURS["succeeded"][0]


def _graph(page: Page, statuses: str) -> Locator:
    """The drawn graph once its steps show ``statuses`` (space-separated, in plan order)."""
    graph = page.locator("[data-testid=plan-graph][data-ready=true]")
    expect(graph).to_have_attribute("data-statuses", statuses)
    return graph


def _nodes(graph: Locator) -> list[dict]:
    """The nodes vis-network holds (the component lives in a shadow root; locators reach it)."""
    return graph.evaluate("el => el.__network.body.data.nodes.get()")


def _screenshot(page: Page, path: Path) -> None:
    """The whole page: Streamlit scrolls inside its own container, so grow the viewport to fit."""
    height = page.evaluate("() => Math.max(...[...document.querySelectorAll('*')].map(e => e.scrollHeight))")
    page.set_viewport_size({"width": page.viewport_size["width"], "height": min(height + 40, 6000)})
    page.wait_for_timeout(1000)  # vis-network and the tables redraw their canvases after a resize
    page.screenshot(path=str(path), full_page=True)


def enter(field: Locator, text: str) -> None:
    """Type ``text`` and commit it as Streamlit does on Ctrl+Enter (Enter in a one-line
    field), so a click that follows never races the field's commit on blur."""
    field.fill(text)
    field.press("Enter" if field.evaluate("e => e.tagName") == "INPUT" else "Control+Enter")


def _offsite(urls: list[str]) -> list[str]:
    return [u for u in urls if urlparse(u).scheme not in ("data", "blob")
            and urlparse(u).hostname != "127.0.0.1"]


def test_journey_from_goal_to_library(page: Page, studio) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("websocket", lambda socket: requests.append(socket.url))
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(studio.url)

    # Plan
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    page.get_by_role("button", name="Plan", exact=True).click()
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    expect(plan_json).to_have_value(re.compile(r'"tool": "shipments_list"'), timeout=TIMEOUT_MS)
    plan = json.loads(plan_json.input_value())
    assert [s["tool"] for s in plan["steps"]] == ["facilities_list", "shipments_list"]

    # The graph: vis draws on a canvas inside the component, one node per step, in plan order.
    graph = _graph(page, "pending pending")
    expect(graph.locator("canvas")).to_be_visible()
    nodes = _nodes(graph)
    assert [n["id"] for n in nodes] == [s["id"] for s in plan["steps"]]
    assert [n["label"] for n in nodes] == ["0 · facilities_list", "1 · shipments_list"]

    # Approve, then Run all
    run_all = page.get_by_role("button", name="Run all")
    expect(run_all).to_be_disabled()
    page.get_by_role("button", name="Approve").click()
    expect(run_all).to_be_enabled()
    run_all.click()
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 2 succeeded"))).to_be_visible()
    expect(page.get_by_text("succeeded", exact=True)).to_have_count(2)
    expect(page.locator("[data-testid=stDataFrame]")).to_have_count(2)
    assert {n["color"]["background"] for n in _nodes(_graph(page, "succeeded succeeded"))} == {SUCCEEDED_FILL}

    # Save
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Saved as version 1.")).to_be_visible()
    # The notice above the graph moves it, so Streamlit mounts it afresh: wait for the redraw.
    _graph(page, "succeeded succeeded")
    ARTIFACTS.mkdir(exist_ok=True)
    _screenshot(page, ARTIFACTS / "journey.png")
    page.set_viewport_size({"width": 1440, "height": 1000})

    # Library lists it; opening it brings the plan back
    page.get_by_role("link", name="Library").click()
    card = page.locator("[class*=st-key-library-card]").filter(has_text=GOAL)
    expect(card).to_be_visible()
    expect(card.get_by_text(re.compile(r"2 steps · 1 version · 1 run"))).to_be_visible()
    _screenshot(page, ARTIFACTS / "library.png")
    card.get_by_role("button", name="Open", exact=True).click()
    expect(page.get_by_role("textbox", name="Plan JSON")).to_have_value(re.compile(re.escape(f'"goal": "{GOAL}"')))
    expect(page.get_by_role("textbox", name="Goal")).to_have_value(GOAL)

    assert _offsite(requests) == []
    assert any(u.endswith("/app/static/vis-network.min.js") for u in requests)

"""Issue 29, item 1 in real Chromium: one view, at 1280x800 and 1920x1080.

What a reviewer needs is on the first screen, without scrolling: after Plan, every step of the
graph; when a run waits, the step's Approve and run beside the graph and what the run came to by
the run buttons; after the run, its summary there and the selected step's result beside the
graph; a review sent by an agent shows its plan before its decision buttons.
"""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import Locator, Page, expect

from browser_helpers import ARTIFACTS, click, enter, graph, open_studio
from conftest import Studio

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"
SIZES = ((1280, 800), (1920, 1080))


def _to_top(page: Page) -> None:
    """Scrolled back to the top, as the page first shows (Streamlit scrolls its own container)."""
    page.evaluate("() => { for (const e of document.querySelectorAll('[data-testid=stMain], "
                  "[data-testid=stAppScrollToBottomContainer], section')) e.scrollTop = 0; window.scrollTo(0, 0); }")
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def _on_first_screen(page: Page, element: Locator, height: int) -> None:
    _to_top(page)
    box = element.bounding_box()
    assert box is not None, "not drawn"
    assert 0 <= box["y"] and box["y"] + box["height"] <= height, f"at y {box['y']:.0f}-{box['y'] + box['height']:.0f}"


def _nodes_on_first_screen(page: Page, height: int) -> None:
    """Every node's centre of the drawn graph lies inside the viewport."""
    _to_top(page)
    drawn = page.locator("[data-testid=plan-graph][data-ready=true]")
    centres = drawn.evaluate("""el => {
        const network = el.__network, canvas = el.querySelector('canvas').getBoundingClientRect();
        return Object.values(network.getPositions()).map(p => {
            const at = network.canvasToDOM(p); return [canvas.left + at.x, canvas.top + at.y]; });
    }""")
    width = page.viewport_size["width"]
    assert centres and all(0 < x < width and 0 < y < height for x, y in centres), centres


def _each_size(page: Page, name: str, check) -> None:  # noqa: ANN001 - check(page, height)
    """``check`` at both sizes, with a screenshot of the first screen at each."""
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        expect(page.locator("[data-testid=plan-graph][data-ready=true]")).to_be_visible()
        _to_top(page)
        page.screenshot(path=str(ARTIFACTS / f"one-view-{name}-{width}.png"))
        check(page, height)
    page.set_viewport_size({"width": 1280, "height": 800})


def test_the_plan_a_waiting_step_and_the_results_are_on_the_first_screen(page: Page, studio: Studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    expect(plan_json).to_have_value(re.compile(r'"tool": "shipments_list"'))
    # Once a plan exists the page has no title: the goal row comes first.
    expect(page.get_by_role("heading", name="Plan", exact=True)).to_have_count(0)
    _each_size(page, "planned", _nodes_on_first_screen)

    plan = json.loads(plan_json.input_value())
    plan["steps"][1]["ask_first"] = True
    enter(plan_json, json.dumps(plan, indent=2))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    graph(page, "succeeded waiting")
    pause = page.locator(".st-key-plan-pause")
    approve = pause.get_by_role("button", name="Approve and run")
    summary = page.get_by_text(re.compile(r"^The run shown \(waiting\): 2 steps: 1 succeeded, 1 waiting"))

    def waiting(page: Page, height: int) -> None:
        _nodes_on_first_screen(page, height)
        _on_first_screen(page, approve, height)
        _on_first_screen(page, summary, height)
        # Beside the graph, not under it.
        graph_box = page.locator("[data-testid=plan-graph]").bounding_box()
        assert pause.bounding_box()["x"] > graph_box["x"] + graph_box["width"]
    _each_size(page, "waiting", waiting)

    click(approve)
    graph(page, "succeeded succeeded")
    expect(pause).to_have_count(0)
    done = page.get_by_text(re.compile(r"^The run shown \(succeeded\): 2 steps: 2 succeeded · \d+ rows"))
    _each_size(page, "done", lambda page, height: (_nodes_on_first_screen(page, height),
                                                   _on_first_screen(page, done, height)))


def test_a_review_shows_its_plan_before_its_decision(page: Page, studio: Studio) -> None:
    token = (studio.data_dir / "api-token").read_text().strip()
    plan = {"goal": "Facilities in Berlin", "steps": [
        {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}},
        {"id": "ship", "tool": "shipments_list", "params": {"facility_id": "${steps.fac.data.*.id}"}}]}
    request = urllib.request.Request(f"{studio.url}/api/reviews", method="POST",
                                     data=json.dumps({"plan": plan, "agent": "nightly"}).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        review_id = json.loads(answer.read())["id"]
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, studio.url)
    click(page.get_by_role("link", name="Reviews (1)"))
    click(page.locator(f".st-key-reviews-open-{review_id}").get_by_role("button"))
    approve = page.locator(".st-key-review-bar").get_by_role("button", name="Approve review")

    def plan_first(page: Page, height: int) -> None:
        _nodes_on_first_screen(page, height)
        _on_first_screen(page, approve, height)
        # Read left to right, top to bottom: the graph comes first, the decision beside it.
        graph_box = page.locator("[data-testid=plan-graph]").bounding_box()
        assert approve.bounding_box()["x"] > graph_box["x"] + graph_box["width"]
    _each_size(page, "review", plan_first)

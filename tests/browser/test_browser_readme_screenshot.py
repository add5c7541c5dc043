"""The README's screenshot: the Plan page mid-run, made by the studio itself.

A goal is planned, a step of the ``wait_for_gate`` tool (test_browser_runs' gated group) goes in
between its first step and one that needs it, and Run all stops there: one step succeeded, one
running, one waiting for it. The shot is taken then, at 1280x800, into docs/images/plan-page.png,
the file the README shows; the test regenerates it on every run and checks it shows the graph
with a succeeded and a running step.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from browser_helpers import click, enter, graph, open_studio
from PIL import Image
from playwright.sync_api import Page, expect
from studio.ui.plan._graph import STATUS_COLOURS
from test_browser_runs import _open_gate, gated_studio  # noqa: F401  (gated_studio is a fixture)

pytestmark = pytest.mark.browser

SHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "plan-page.png"
GOAL = "Get contaminated shipments from Berlin facilities and their inspections"


def _fill(status: str) -> tuple[int, int, int]:
    """The fill colour the graph gives a step of that status."""
    code = STATUS_COLOURS[status][0].lstrip("#")
    return int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16)


def _with_a_gate(plan_json: str) -> str:
    """The plan with a gated step between its first step and the one after it."""
    plan = json.loads(plan_json)
    first, second = plan["steps"][0], plan["steps"][1]
    gate = {"id": "gate", "tool": "wait_for_gate", "params": {"label": "Berlin facilities"},
            "depends_on": [first["id"]], "note": "Waits until the test opens the gate."}
    second["depends_on"] = [*second.get("depends_on", []), "gate"]
    plan["steps"].insert(1, gate)
    return json.dumps(plan, indent=2)


def _shows(shot: bytes, colour: tuple[int, int, int]) -> int:
    """How many pixels of the screenshot have (nearly) that colour."""
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    return sum(count for count, pixel in image.getcolors(image.width * image.height)
               if all(abs(a - b) <= 8 for a, b in zip(pixel, colour)))


def test_the_readme_screenshot_shows_the_plan_page_mid_run(page: Page, gated_studio) -> None:
    studio, fifo = gated_studio
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    enter(plan_json, _with_a_gate(plan_json.input_value()))
    graph(page, "pending pending pending pending")
    click(page.get_by_role("button", name="Approve"))

    click(page.get_by_role("button", name="Run all"))
    drawn = graph(page, "succeeded running pending succeeded")
    expect(page.get_by_text("Running the plan: 2 of 4 steps done")).to_be_visible()
    # The graph whole at the bottom of the screen, the run's progress and buttons above it.
    drawn.evaluate("el => el.scrollIntoView({block: 'end'})")
    # Whole, but for rounding: the page scrolls by whole pixels, so the bottom edge of a box at a
    # fractional offset can end a fraction of a pixel below the screen's (ratio 0.998 seen once).
    expect(drawn).to_be_in_viewport(ratio=0.99)
    page.get_by_role("button", name="Fit").click()  # the graph's own button: no rerun
    outside = drawn.evaluate("""el => {
        const canvas = el.querySelector(".ps-graph-canvas");
        const positions = el.__network.getPositions();
        return Object.keys(positions).filter(id => {
            const p = el.__network.canvasToDOM(positions[id]);
            return p.x < 0 || p.y < 0 || p.x > canvas.clientWidth || p.y > canvas.clientHeight; }); }""")
    assert outside == []  # every step in the picture
    # vis-network repaints its canvas in animation frames: let it paint the colours first.
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    shot = page.screenshot()
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    SHOT.write_bytes(shot)
    expect(page.get_by_text("Running the plan: 2 of 4 steps done")).to_be_visible()  # still mid-run

    image = Image.open(io.BytesIO(shot))
    assert image.size == (1280, 800)
    assert _shows(shot, _fill("succeeded")) > 200 and _shows(shot, _fill("running")) > 200  # step fills, not a stray pixel

    _open_gate(fifo)
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 4 succeeded"))).to_be_visible()

"""The plan graph in real Chromium: the whole plan at any size, zoomable,
marks problems and locks, and live during a run (the same network recoloured in place, its view kept).

Label sizes are measured as vis-network draws them: the node's font size times the view's
scale is the label's height in CSS pixels on screen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import browser_helpers
from browser_helpers import click, enter
from playwright.sync_api import Locator, Page, expect

from test_browser_runs import _open_gate, gated_studio  # noqa: F401  (gated_studio is a fixture)

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
TIMEOUT_MS = 60_000
LEGIBLE_PX = 12


def press(button: Locator) -> None:
    """Click one of the graph's own buttons: it acts in the page, with no rerun to wait for."""
    button.click()


def graph(page: Page, statuses: str) -> Locator:
    """The drawn graph once its steps show ``statuses`` (space-separated, in plan order)."""
    drawn = page.locator("[data-testid=plan-graph][data-ready=true]")
    expect(drawn).to_have_attribute("data-statuses", statuses)
    return drawn


def label_px(graph: Locator) -> float:
    """The smallest label height on screen, in CSS pixels."""
    return graph.evaluate("""el => {
        const network = el.__network;
        const sizes = Object.values(network.body.nodes).map((n) => n.options.font.size);
        return Math.min(...sizes) * network.getScale();
    }""")


def scale(graph: Locator) -> float:
    return graph.evaluate("el => el.__network.getScale()")


def on_screen(graph: Locator, index: int) -> bool:
    """Whether step ``index``'s box lies inside the graph's visible area."""
    return graph.evaluate("""(el, index) => {
        const network = el.__network;
        const id = el.__nodes.getIds()[index];
        const box = network.getBoundingBox(id);
        const topLeft = network.canvasToDOM({x: box.left, y: box.top});
        const bottomRight = network.canvasToDOM({x: box.right, y: box.bottom});
        const canvas = el.querySelector("canvas");
        return topLeft.x >= 0 && topLeft.y >= 0 && bottomRight.x <= canvas.clientWidth
            && bottomRight.y <= canvas.clientHeight;
    }""", index)


def chain(n: int, gates: tuple[int, ...] = ()) -> str:
    """``n`` steps, each after the one before: a plan as wide as it is long."""
    steps = []
    for i in range(n):
        tool = ({"tool": "wait_for_gate", "params": {"label": f"gate {i}"}} if i in gates else
                {"tool": "say", "params": {"message": f"step {i}"}} if i % 2 else
                {"tool": "facilities_list", "params": {"location": "Berlin"}})
        steps.append({"id": f"s{i}", **tool, "depends_on": [f"s{i - 1}"] if i else []})
    return json.dumps({"goal": f"A chain of {n}", "steps": steps}, indent=1)


def open_studio(page: Page, url: str) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    browser_helpers.open_studio(page, url)


def enter_plan(page: Page, text: str) -> None:
    """Make any plan (so the JSON panel shows), then replace it with ``text``."""
    if not page.get_by_role("textbox", name="Plan JSON").count():
        enter(page.get_by_role("textbox", name="Goal"), "Get facilities in Berlin")
        click(page.get_by_role("button", name="Plan", exact=True))
    enter(page.get_by_role("textbox", name="Plan JSON"), text)


def test_the_whole_plan_shows_at_any_size_and_fit_and_zoom_move_the_view(page: Page, studio) -> None:
    open_studio(page, studio.url)

    enter_plan(page, chain(8))
    drawn = graph(page, " ".join(["pending"] * 8))
    assert on_screen(drawn, 0) and on_screen(drawn, 7)  # the whole plan

    enter_plan(page, chain(200))
    drawn = graph(page, " ".join(["pending"] * 200))
    assert on_screen(drawn, 0) and on_screen(drawn, 199)  # the whole plan: an overview to zoom into
    expect(drawn).to_have_attribute("data-scale", f"{scale(drawn):.4f}")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "graph-200-steps.png"))

    whole = scale(drawn)
    press(page.get_by_role("button", name="Zoom in"))
    press(page.get_by_role("button", name="Zoom in"))
    assert scale(drawn) > whole
    press(page.get_by_role("button", name="Zoom out"))
    assert whole < scale(drawn)
    # Zooming out stops a little past the whole plan, from the buttons and from the mouse wheel.
    for _ in range(5):
        press(page.get_by_role("button", name="Zoom out"))
    floor = scale(drawn)
    assert whole * 0.7 < floor < whole
    box = drawn.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, 2000)
    expect(drawn).to_have_attribute("data-scale", f"{floor:.4f}")
    press(page.get_by_role("button", name="Zoom in"))
    press(page.get_by_role("button", name="Fit"))
    assert scale(drawn) == pytest.approx(whole, rel=1e-3)  # the whole plan again
    expect(drawn).to_have_attribute("data-scale", f"{scale(drawn):.4f}")

    enter_plan(page, chain(3))
    drawn = graph(page, " ".join(["pending"] * 3))
    press(page.get_by_role("button", name="Zoom in"))
    press(page.get_by_role("button", name="Zoom in"))
    press(page.get_by_role("button", name="Fit"))
    assert on_screen(drawn, 0) and on_screen(drawn, 2)  # a small plan fits whole


def test_steps_with_problems_and_locked_steps_are_marked(page: Page, studio) -> None:
    open_studio(page, studio.url)
    enter_plan(page, json.dumps({"goal": "marks", "steps": [
        {"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}, "locked": True},
        {"id": "b", "tool": "shipment_list", "params": {}, "note": "why " * 400},
        {"id": "c", "tool": "say", "params": {"message": "hi"}},
    ]}))
    drawn = graph(page, "pending pending pending")
    nodes = drawn.evaluate("""el => Object.values(el.__network.body.nodes).map((n) => ({
        id: n.id, label: n.options.label, border: n.options.color.border,
        width: n.options.borderWidth, dashes: n.options.shapeProperties.borderDashes}))""")
    marks = {n["id"]: n for n in nodes}
    assert marks["b"]["label"].startswith("⚠") and marks["b"]["width"] > marks["c"]["width"]
    assert marks["b"]["border"] != marks["c"]["border"]
    assert "locked" in marks["a"]["label"] and marks["a"]["dashes"]
    assert not marks["c"]["dashes"] and not marks["c"]["label"].startswith("⚠")

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "graph-marks.png"))

    # The tooltip of the step with a long note still shows its params.
    point = drawn.evaluate("""el => {
        const network = el.__network;
        const point = network.canvasToDOM(network.getPosition("b"));
        const box = el.querySelector("canvas").getBoundingClientRect();
        return {x: box.left + point.x, y: box.top + point.y};
    }""")
    page.mouse.move(point["x"], point["y"])
    tip = drawn.locator("div.vis-tooltip")
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("params: (none)")
    page.screenshot(path=str(ARTIFACTS / "graph-tooltip.png"))


def test_the_graph_stays_and_recolours_its_steps_while_a_run_goes(page: Page, gated_studio) -> None:
    studio, fifo = gated_studio
    open_studio(page, studio.url)
    enter_plan(page, chain(50, gates=(20, 40)))
    graph(page, " ".join(["pending"] * 50))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))

    # At the first gate: the graph shows the run so far, above the fold.
    drawn = graph(page, " ".join(["succeeded"] * 20 + ["running"] + ["pending"] * 29))
    expect(page.get_by_text("Running the plan: 20 of 50 steps done")).to_be_visible()
    expect(page.get_by_role("button", name="Stop")).to_be_in_viewport()
    expect(drawn).to_be_in_viewport()
    # Mark this very network and move its view: both must survive the next updates.
    press(page.get_by_role("button", name="Zoom in"))
    view = drawn.evaluate("el => { el.__network.__probe = 'same'; return el.__network.getScale(); }")

    _open_gate(fifo)
    drawn = graph(page, " ".join(["succeeded"] * 40 + ["running"] + ["pending"] * 9))
    expect(page.get_by_text("Running the plan: 40 of 50 steps done")).to_be_visible()
    expect(page.locator("[data-testid=plan-graph]")).to_have_count(1)
    assert drawn.evaluate("el => el.__network.__probe") == "same"  # recoloured, not re-created
    assert scale(drawn) == view  # and not refitted
    running = drawn.evaluate("el => el.__nodes.get('s40').color.background")
    assert running == "#3b82f6"  # studio.ui.plan._graph.STATUS_COLOURS["running"][0]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "graph-50-steps-mid-run.png"))

    _open_gate(fifo)
    graph(page, " ".join(["succeeded"] * 50))
    expect(page.get_by_text("Running the plan")).to_have_count(0)

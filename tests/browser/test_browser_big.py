"""Big plans in real Chromium, with screenshots to look at: a 50-step plan caught mid-run (some
steps succeeded, one running at a gate, the rest pending) and a 200-step plan run to the end.

What they must show: the graph on screen with every step's status (the whole plan, an overview:
tests/browser/test_browser_graph_nodes.py checks its minimap and jump-to-step), and the run's
progress where the user can see it without scrolling. Speed is measured in benchmarks/big.py,
not here.
"""

from __future__ import annotations

import re

import pytest
from browser_helpers import click, screenshot
from playwright.sync_api import Page, expect

from test_browser_graph import chain, enter_plan, graph, on_screen, open_studio
from test_browser_runs import _open_gate, gated_studio  # noqa: F401  (gated_studio is a fixture)

pytestmark = pytest.mark.browser

GATE_AT = 25  # of 50: the run waits here, half done


def _scroll_to_top(page: Page) -> None:
    """Streamlit scrolls inside its own containers: put each back at its top."""
    page.evaluate("() => document.querySelectorAll('*').forEach(e => { if (e.scrollTop) e.scrollTop = 0; })")


def test_a_50_step_plan_mid_run_shows_its_progress_and_the_whole_graph(page: Page, gated_studio) -> None:
    studio, fifo = gated_studio
    open_studio(page, studio.url)
    enter_plan(page, chain(50, gates=(GATE_AT,)))
    graph(page, " ".join(["pending"] * 50))
    click(page.get_by_role("button", name="Approve"))

    click(page.get_by_role("button", name="Run all"))
    progress = page.get_by_text(f"Running the plan: {GATE_AT} of 50 steps done")
    expect(progress).to_be_visible()
    expect(progress).to_be_in_viewport()  # no scrolling to see how far the run is
    expect(page.get_by_text(f"Step {GATE_AT} · wait_for_gate: running")).to_be_visible()
    drawn = graph(page, " ".join(["succeeded"] * GATE_AT + ["running"] + ["pending"] * (50 - GATE_AT - 1)))
    expect(drawn).to_be_in_viewport()
    assert on_screen(drawn, 0) and on_screen(drawn, 49)  # the whole plan
    # The view followed the run: the step running now is inside the graph, not off its edge.
    x, y, width, height = drawn.evaluate("""(el, at) => {
        const id = el.__network.body.data.nodes.getIds()[at];
        const p = el.__network.canvasToDOM(el.__network.getPositions([id])[id]);
        const canvas = el.querySelector(".ps-graph-canvas");
        return [p.x, p.y, canvas.clientWidth, canvas.clientHeight]; }""", GATE_AT)
    assert 0 <= x <= width and 0 <= y <= height
    shot = screenshot(page, "big-50-steps-mid-run.png")
    assert shot.stat().st_size > 0
    expect(progress).to_be_visible()  # the screenshot caught the run still at the gate

    _open_gate(fifo)
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 50 succeeded"))).to_be_visible()
    drawn = graph(page, " ".join(["succeeded"] * 50))
    assert on_screen(drawn, 0) and on_screen(drawn, 49)


def test_a_200_step_plan_runs_to_the_end_with_the_whole_graph_in_view(page: Page, studio) -> None:
    open_studio(page, studio.url)
    enter_plan(page, chain(200))
    drawn = graph(page, " ".join(["pending"] * 200))
    expect(page.get_by_text("Graph · 200 steps")).to_be_visible()
    assert on_screen(drawn, 0) and on_screen(drawn, 199)  # the whole plan
    click(page.get_by_role("button", name="Approve"))

    click(page.get_by_role("button", name="Run all"))
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 200 succeeded"))).to_be_visible()
    drawn = graph(page, " ".join(["succeeded"] * 200))
    expect(drawn).to_be_in_viewport()
    assert on_screen(drawn, 0) and on_screen(drawn, 199)
    # A long run draws its first results and offers the rest.
    expect(page.get_by_text("Show all 200 step results")).to_be_visible()
    _scroll_to_top(page)  # the run's results scrolled the page; the shot starts at the title
    shot = screenshot(page, "big-200-steps-run.png")
    assert shot.stat().st_size > 0

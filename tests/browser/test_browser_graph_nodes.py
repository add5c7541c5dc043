"""Issue 29, item 2 in real Chromium, at 1280×800 and 1920×1080: the graph's boxes say what their
steps do (tool, key params; after a run rows and duration, why a step waits or failed), Fit
shows the whole plan (a 3-step chain and a 300-step one), a plan past 50 steps has a minimap
and jump-to-step, no edge label lies on a box or under its edge, and during a run the graph
is updated in place: never blank, never drawn anew.

One studio for the module, with a tool group of this test's own: ``wait_for_gate`` (waits
until the test opens a named pipe, so the run is certainly in progress while it looks),
``explode`` (fails with the text it is given) and ``note_down`` (may write: it waits for a
person when the reviewer marks it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator

import pytest
from browser_helpers import click, enter, graph, open_studio, screenshot
from playwright.sync_api import Locator, Page, expect

from conftest import Studio, start_studio
from test_browser_graph import LEGIBLE_PX, label_px
from test_browser_runs import _open_gate

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
VIEWPORTS = [(1280, 800), (1920, 1080)]

_TOOLS = '''
from pathlib import Path

GATE = Path({fifo!r})


def register(registry, settings):
    @registry.register(group="test", effects="read-only")
    def wait_for_gate(label: str = "") -> dict:
        """Wait until the browser test opens the gate (a named pipe).

        Args:
            label: Carried into the result.
        """
        GATE.read_text()
        return {{"data": [{{"label": label}}]}}

    @registry.register(group="test", effects="read-only")
    def explode(why: str) -> dict:
        """Fail with ``why``.

        Args:
            why: The error's text.
        """
        raise RuntimeError(why)

    @registry.register(group="test")
    def note_down(text: str) -> dict:
        """Keep ``text`` somewhere (it may write).

        Args:
            text: What to keep.
        """
        return {{"kept": text}}
'''


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Studio, Path]]:
    folder = tmp_path_factory.mktemp("graph-nodes")
    fifo = folder / "gate"
    os.mkfifo(fifo)
    plugin = folder / "plugin"
    info = plugin / "node_tools-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: node-tools\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[plan_studio.tools]\nnodes = node_tools:register\n")
    (plugin / "node_tools.py").write_text(_TOOLS.format(fifo=str(fifo)))
    studio = start_studio(folder, PYTHONPATH=str(plugin))
    try:
        yield next(studio), fifo
    finally:
        _open_gate(fifo, missing_ok=True)  # never leave the studio's worker waiting
        studio.close()


def _open(page: Page, url: str, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.set_default_timeout(TIMEOUT_MS)
    open_studio(page, url)


def _enter_plan(page: Page, steps: list[dict], goal: str) -> None:
    if not page.get_by_role("textbox", name="Plan JSON").count():
        enter(page.get_by_role("textbox", name="Goal"), "Get facilities in Berlin")
        click(page.get_by_role("button", name="Plan", exact=True))
    # A long plan on few lines: the code editor redraws every line as the text goes in.
    enter(page.get_by_role("textbox", name="Plan JSON"),
          json.dumps({"goal": goal, "steps": steps}, indent=1 if len(steps) < 20 else None))


def _chain(n: int) -> list[dict]:
    return [{"id": f"s{i}", "tool": "say", "params": {"message": f"step {i}"}, "depends_on": [f"s{i - 1}"] if i else []}
            for i in range(n)]


def _labels(drawn: Locator) -> dict[str, str]:
    """Each step's text as vis-network paints it."""
    return drawn.evaluate("el => Object.fromEntries(el.__nodes.get().map((n) => [n.id, n.label]))")


def _off_screen(drawn: Locator) -> list[str]:
    """The steps whose box is not wholly inside the graph's visible area."""
    return drawn.evaluate("""el => {
        const network = el.__network, canvas = el.querySelector(".ps-graph-canvas");
        return el.__nodes.getIds().filter((id) => {
            const box = network.getBoundingBox(id);
            const a = network.canvasToDOM({x: box.left, y: box.top}), b = network.canvasToDOM({x: box.right, y: box.bottom});
            return a.x < 0 || a.y < 0 || b.x > canvas.clientWidth || b.y > canvas.clientHeight;
        });
    }""")


def _labels_on_boxes(drawn: Locator) -> list[str]:
    """Edges whose label overlaps a box, or is drawn without its own background (so its edge
    would run through it)."""
    return drawn.evaluate("""el => {
        const network = el.__network, bad = [];
        const boxes = el.__nodes.getIds().map((id) => network.getBoundingBox(id));
        for (const edge of Object.values(network.body.edges)) {
            const label = edge.labelModule;
            if (!edge.options.label) continue;
            if (!edge.options.font.background) { bad.push(edge.id + ": no background"); continue; }
            const s = label.size;
            for (const box of boxes) {
                if (s.left < box.right && s.left + s.width > box.left && s.top < box.bottom && s.top + s.height > box.top) {
                    bad.push(edge.id);
                }
            }
        }
        return bad;
    }""")


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_boxes_say_what_steps_do_and_the_graph_stays_drawn_through_a_run(page: Page, gated, size) -> None:
    studio, fifo = gated
    _open(page, studio.url, size)
    why = "<b>disk</b> full: " + "the volume /var/data has no space left " * 4
    _enter_plan(page, [
        {"id": "find", "tool": "facilities_list", "params": {"location": "Berlin"}},
        {"id": "gate", "tool": "wait_for_gate", "params": {"label": "<i>gate</i>"}, "depends_on": ["find"]},
        {"id": "boom", "tool": "explode", "params": {"why": why}, "depends_on": ["gate"]},
        {"id": "keep", "tool": "note_down", "params": {"text": "${step[1].data[0].label}"}, "ask_first": True,
         "depends_on": ["gate"]},
    ], goal=f"nodes at {size[0]}")
    drawn = graph(page, "pending pending pending pending")
    labels = _labels(drawn)
    assert labels["find"] == "0 · facilities_list\nlocation=Berlin"
    assert labels["gate"] == "1 · wait_for_gate\nlabel=<i>gate</i>"  # drawn as text, on the canvas
    assert labels["boom"] == "2 · explode\nwhy=<b>disk</b> f…"
    assert _off_screen(drawn) == [] and _labels_on_boxes(drawn) == []  # the whole plan, labels clear
    screenshot(page, f"graph-nodes-plan-{size[0]}.png")

    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    drawn = graph(page, "succeeded running pending pending")
    assert _labels(drawn)["find"].startswith("0 · facilities_list\nlocation=Berlin\n✓ ")
    # From now until the run has paused, every animation frame looks at the graph: it must
    # always be on the page with its network and a painted canvas, and the same network.
    drawn.evaluate("""el => {
        const probe = window.__graphProbe = {frames: 0, blank: 0, networks: new Set(), roots: new Set(),
                                             adopted: window.__planStudioAdopted || 0};
        const look = () => {
            const root = window.__planStudioNetworks.get("plan.graph");
            const canvas = root && root.isConnected && root.querySelector(".ps-graph-canvas canvas");
            probe.frames += 1;
            probe.roots.add(root);
            if (!canvas || !canvas.width || !root.__network) probe.blank += 1; else probe.networks.add(root.__network);
            if (!probe.stop) requestAnimationFrame(look);
        };
        requestAnimationFrame(look);
    }""")
    _open_gate(fifo)
    drawn = graph(page, "succeeded succeeded failed waiting")
    expect(page.locator(".st-key-plan-pause")).to_be_visible()
    probe = page.evaluate("() => { const p = window.__graphProbe; p.stop = true; "
                          "return {frames: p.frames, blank: p.blank, networks: p.networks.size, roots: p.roots.size, "
                          "adopted: (window.__planStudioAdopted || 0) - p.adopted}; }")
    # Not one blank frame, one network all along, in one element: the page never mounted it anew.
    assert probe["frames"] > 0 and probe["blank"] == 0 and probe["networks"] == 1 and probe["roots"] == 1, probe

    # The live view knows a step waits; the run read from the store says why: wait for that.
    page.wait_for_function("el => el.__nodes.get('keep').label.split('\\n').length === 4", arg=drawn.element_handle())
    labels = _labels(drawn)
    assert labels["gate"].split("\n")[2].startswith("✓ 1 row · ")
    failed = " ".join(labels["boom"].split("\n")[2:])
    assert failed.startswith("✗ failed: ") and "explode failed: <b>disk</b>" in failed and failed.endswith("…"), failed
    keep = labels["keep"].split("\n")
    assert keep[1:3] == ["text ← gate", "⚑ waits for a person"] and "note_down" in keep[3], keep
    assert _off_screen(drawn) == [] and _labels_on_boxes(drawn) == []
    screenshot(page, f"graph-nodes-run-{size[0]}.png")


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_fit_shows_the_whole_plan_and_a_large_one_has_an_overview_and_jump_to_step(page: Page, gated, size) -> None:
    studio, _fifo = gated
    _open(page, studio.url, size)
    _enter_plan(page, _chain(3), goal=f"three at {size[0]}")
    drawn = graph(page, "pending pending pending")
    assert _off_screen(drawn) == []  # not cut off at the right edge
    expect(page.get_by_test_id("graph-minimap")).to_be_hidden()
    expect(page.get_by_role("combobox", name="Jump to step")).to_have_count(0)

    _enter_plan(page, _chain(300), goal=f"long at {size[0]}")
    drawn = graph(page, " ".join(["pending"] * 300))
    assert _off_screen(drawn) == []  # the whole plan on load
    minimap = page.get_by_test_id("graph-minimap")
    expect(minimap).to_be_visible()
    screenshot(page, f"graph-nodes-300-{size[0]}.png")

    jump = page.get_by_role("combobox", name="Jump to step")
    jump.click()
    page.keyboard.type("s250")  # typed: the list filters to the steps that match
    click(page.get_by_role("option", name="250 · say · s250"))
    expect(drawn).to_have_attribute("data-selected", "s250")
    assert label_px(drawn) >= LEGIBLE_PX  # at the step, a size to read
    assert "s250" not in _off_screen(drawn) and "s0" in _off_screen(drawn)
    screenshot(page, f"graph-nodes-jump-{size[0]}.png")

    # The minimap: a click at its left end takes the view to the plan's first steps.
    box = minimap.bounding_box()
    minimap.click(position={"x": 3, "y": box["height"] / 2})
    assert "s0" not in _off_screen(drawn) and "s250" in _off_screen(drawn)
    page.get_by_role("button", name="Fit").click()
    assert _off_screen(drawn) == []

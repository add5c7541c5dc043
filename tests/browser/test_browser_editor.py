"""The graph as the editor, in real Chromium: each edit made with the mouse and the keyboard on
vis-network's canvas (points from ``network.getPositions()`` through ``canvasToDOM``), the step
inspector's fields, and bad input refused with a message naming what is wrong.

The done-criterion of issue 9 is the first test: example 7 of the seed ("facilities in Berlin,
then their shipments, then check for contaminants") built from an empty plan without touching
the JSON, a filter changed in the graph's inspector, approved and run.
"""

from __future__ import annotations

import json
import re

import pytest
import browser_helpers
from browser_helpers import choose, click, enter, reruns, screenshot
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
EXAMPLE_7 = "Get facilities in Berlin, then their shipments, then check for contaminants"


def open_studio(page: Page, url: str) -> None:
    page.set_viewport_size({"width": 1440, "height": 1800})
    page.set_default_timeout(TIMEOUT_MS)
    browser_helpers.open_studio(page, url)


def drawn(page: Page, steps: int) -> Locator:
    """The editable graph once it has drawn ``steps`` steps."""
    graph = page.locator("[data-testid=plan-graph][data-ready=true][data-editable=true]")
    expect(graph).to_have_attribute("data-statuses", re.compile(r"^\w+( \w+){%d}$" % (steps - 1)))
    return graph


def plan_json(page: Page) -> dict:
    return json.loads(page.get_by_role("textbox", name="Plan JSON").input_value())


def point(graph: Locator, step_id: str) -> tuple[float, float]:
    """Where step ``step_id`` is on the page."""
    at = graph.evaluate("(el, id) => el.__editor.positions()[id]", step_id)
    box = graph.locator("canvas").bounding_box()
    return box["x"] + at["x"], box["y"] + at["y"]


def click_step(page: Page, graph: Locator, step_id: str) -> None:
    """Click a step in the graph: it is selected and its inspector opens (a rerun)."""
    x, y = point(graph, step_id)
    with reruns(page):
        page.mouse.click(x, y)
    # The graph has drawn the run the click caused (its keys now go to this selection).
    expect(graph).to_have_attribute("data-drawn-selected", step_id)


def connect(page: Page, graph: Locator, source: str, target: str) -> None:
    """Press Connect, then drag from ``source`` to ``target``."""
    graph.get_by_role("button", name="Connect").click()
    expect(graph).to_have_attribute("data-mode", "connect")
    (x1, y1), (x2, y2) = point(graph, source), point(graph, target)
    with reruns(page):
        page.mouse.move(x1, y1)
        page.mouse.down()
        page.mouse.move((x1 + x2) / 2, (y1 + y2) / 2, steps=5)
        page.mouse.move(x2, y2, steps=5)
        page.mouse.up()


def add_step(page: Page, tool: str, search: str, steps: int) -> None:
    """Add step, then find the tool by typing part of its description, then Add; wait until the
    graph has drawn the ``steps`` steps (the page settles around it)."""
    click(page.get_by_role("button", name="Add step"))
    box = page.get_by_role("combobox", name="Tool for the new step")
    box.click()
    expect(box).to_have_attribute("aria-expanded", "true")
    page.keyboard.type(search)
    option = page.get_by_role("option", name=re.compile(f"^{tool} — "))
    expect(option).to_have_count(1)
    with reruns(page):
        option.click()
    click(page.get_by_role("button", name="Add", exact=True))
    drawn(page, steps)


def inspector(page: Page) -> Locator:
    return page.locator(".st-key-editor-inspector")


def test_example_7_is_built_from_an_empty_plan_changed_approved_and_run(page: Page, studio) -> None:
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), EXAMPLE_7)
    click(page.get_by_role("button", name="Start an empty plan"))
    expect(page.get_by_text("No steps yet")).to_be_visible()

    # Step 0: facilities in Berlin. The tool is found by what it does, not its name.
    add_step(page, "facilities_list", "waste facilities", 1)
    step = inspector(page)
    expect(step.get_by_role("heading", name="Step")).to_be_visible()
    enter(step.get_by_role("textbox", name="location", exact=True), "Berlin")

    # Step 1: their shipments: facility_id from step 0, the picker's first fitting path.
    add_step(page, "shipments_list", "shipments", 2)
    choose(page, "facility_id from", "step 0 (facilities_list)")
    expect(inspector(page).get_by_text(re.compile(r"not yet run · a list of strings"))).to_be_visible()

    # Step 2: check them for contaminants.
    add_step(page, "contaminants_list", "contaminants found", 3)
    choose(page, "shipment_ids from", "step 1 (shipments_list)")

    plan = plan_json(page)
    first_id, second_id = plan["steps"][0]["id"], plan["steps"][1]["id"]
    assert [(s["tool"], s["params"]) for s in plan["steps"]] == [
        ("facilities_list", {"location": "Berlin"}),
        ("shipments_list", {"facility_id": f"${{steps.{first_id}.data.*.id}}"}),
        ("contaminants_list", {"shipment_ids": f"${{steps.{second_id}.data.*.id}}"}),
    ]
    graph = drawn(page, 3)
    labels = graph.evaluate("el => el.__edges.get().map((e) => e.label)")
    assert labels == ["data.*.id → facility_id", "data.*.id → shipment_ids"]

    # Change a filter: click the shipments step in the graph, switch on has_contaminants.
    ids = [s["id"] for s in plan["steps"]]
    click_step(page, graph, ids[1])
    expect(graph).to_have_attribute("data-selected", ids[1])
    toggle = inspector(page).get_by_text("has_contaminants", exact=True)
    with reruns(page):
        toggle.click()
    assert plan_json(page)["steps"][1]["params"]["has_contaminants"] is True
    screenshot(page, "editor-example-7-built.png")

    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 3 succeeded"))).to_be_visible()
    graph = drawn(page, 3)
    expect(graph).to_have_attribute("data-statuses", "succeeded succeeded succeeded")
    # After the run, hovering an edge shows the values that flowed along it.
    titles = graph.evaluate("el => el.__edges.get().map((e) => e.title ? e.title.textContent : '')")
    assert re.search(r"facility_id: \[.+\] \(\d+ values?\)", titles[0]), titles
    screenshot(page, "editor-example-7-run.png")


FREE_STEPS = {"goal": "three steps", "steps": [
    {"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}},
    {"id": "b", "tool": "shipments_list", "params": {}},
    {"id": "c", "tool": "inspections_list", "params": {}},
]}


def test_edges_are_drawn_deleted_undone_and_a_cycle_is_refused_naming_the_steps(page: Page, studio) -> None:
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), "three steps")
    click(page.get_by_role("button", name="Start an empty plan"))
    enter(page.get_by_role("textbox", name="Plan JSON"), json.dumps(FREE_STEPS, indent=1))
    graph = drawn(page, 3)

    connect(page, graph, "a", "b")
    assert plan_json(page)["steps"][1]["depends_on"] == ["a"]
    graph = drawn(page, 3)
    connect(page, graph, "b", "c")
    assert plan_json(page)["steps"][2]["depends_on"] == ["b"]

    # c -> a would close a cycle: refused, naming the steps around it.
    graph = drawn(page, 3)
    connect(page, graph, "c", "a")
    expect(page.get_by_text(re.compile(r"cycle.*step 0 \(facilities_list\).*step 1 \(shipments_list\)"))).to_be_visible()
    assert plan_json(page)["steps"][0]["depends_on"] == []

    # Select the edge a -> b by clicking its middle, press Delete: the dependency goes.
    graph = drawn(page, 3)
    (x1, y1), (x2, y2) = point(graph, "a"), point(graph, "b")
    page.mouse.click((x1 + x2) / 2, (y1 + y2) / 2)
    expect(graph).to_have_attribute("data-selected-edge", "a>b")
    with reruns(page):
        page.keyboard.press("Delete")
    assert plan_json(page)["steps"][1]["depends_on"] == []

    # Ctrl+Z brings it back, Ctrl+Shift+Z takes it away again.
    graph = drawn(page, 3)
    graph.focus()
    with reruns(page):
        page.keyboard.press("Control+z")
    assert plan_json(page)["steps"][1]["depends_on"] == ["a"]
    graph = drawn(page, 3)
    graph.focus()
    with reruns(page):
        page.keyboard.press("Control+Shift+z")
    assert plan_json(page)["steps"][1]["depends_on"] == []
    screenshot(page, "editor-edges.png")


def test_deleting_a_needed_step_asks_and_a_bad_path_is_shown_on_its_field(page: Page, studio) -> None:
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), "Get contaminated shipments from Berlin facilities")
    click(page.get_by_role("button", name="Plan", exact=True))
    plan = plan_json(page)
    first, second = plan["steps"][0]["id"], plan["steps"][1]["id"]
    graph = drawn(page, 2)

    # A path the source tool cannot return, typed into the path picker: refused on the field.
    click_step(page, graph, second)
    path = page.get_by_role("combobox", name="facility_id", exact=True)
    path.click()
    page.keyboard.type("data.*.nonexistent")
    with reruns(page):
        page.keyboard.press("Enter")
    expect(inspector(page).get_by_text(re.compile(r"cannot have the path 'data\.\*\.nonexistent'"))).to_be_visible()
    shown = plan_json(page)["steps"]
    assert shown[1]["params"]["facility_id"] == f"${{steps.{shown[0]['id']}.data.*.id}}"
    # The picker's list stays open over the graph until Escape (or a click, which it takes).
    page.keyboard.press("Escape")
    expect(page.get_by_role("listbox")).to_have_count(0)
    screenshot(page, "editor-bad-path.png")

    # The Delete key on a step others need: nothing goes until the user chooses.
    graph = drawn(page, 2)
    click_step(page, graph, first)
    # No focusing by hand: the rerun a click causes may leave the focus on the page's body,
    # and a key pressed there still reaches the graph.
    with reruns(page):
        page.keyboard.press("Delete")
    expect(page.get_by_text("step 1 (shipments_list) uses its output in params.facility_id")).to_be_visible()
    assert len(plan_json(page)["steps"]) == 2
    screenshot(page, "editor-delete-choice.png")
    click(page.get_by_role("button", name="Delete those too (1)"))
    expect(page.get_by_text("No steps yet")).to_be_visible()
    assert plan_json(page)["steps"] == []
    click(page.get_by_role("button", name="Undo"))
    assert len(plan_json(page)["steps"]) == 2

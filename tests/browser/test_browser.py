"""The studio in real Chromium: goal → plan graph and JSON → approve → run → save → library.

Runs the real ``plan-studio`` command (the ``studio`` fixture) and checks that no request
leaves 127.0.0.1: the graph library is served by the studio itself.
"""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import click, enter, graph, graph_nodes, offsite, open_studio, screenshot
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"
SUCCEEDED_FILL = "#16a34a"  # studio.ui.plan._graph.STATUS_COLOURS["succeeded"][0]


def test_journey_from_goal_to_library(page: Page, studio) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("websocket", lambda socket: requests.append(socket.url))
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)

    # Plan
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    expect(plan_json).to_have_value(re.compile(r'"tool": "shipments_list"'))
    plan = json.loads(plan_json.input_value())
    assert [s["tool"] for s in plan["steps"]] == ["facilities_list", "shipments_list"]

    # The graph: vis draws on a canvas inside the component, one node per step, in plan order.
    drawn = graph(page, "pending pending")
    expect(drawn.locator("canvas")).to_be_visible()
    nodes = graph_nodes(drawn)
    assert [n["id"] for n in nodes] == [s["id"] for s in plan["steps"]]
    assert [n["label"].split("\n")[0] for n in nodes] == ["0 · facilities_list", "1 · shipments_list"]

    # Approve, then Run all
    run_all = page.get_by_role("button", name="Run all")
    expect(run_all).to_be_disabled()
    click(page.get_by_role("button", name="Approve"))
    expect(run_all).to_be_enabled()
    click(run_all)
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 2 succeeded"))).to_be_visible()
    expect(page.get_by_text("succeeded", exact=True)).to_have_count(2)
    # Each step's table, and the summary's: the final result's top rows.
    expect(page.locator("[data-testid=stDataFrame]")).to_have_count(3)
    expect(page.locator(".st-key-plan-summary [data-testid=stDataFrame]")).to_have_count(1)
    assert {n["color"]["background"] for n in graph_nodes(graph(page, "succeeded succeeded"))} == {SUCCEEDED_FILL}

    # Running saved it (a run is stored with the version it ran): Save has nothing new to store
    click(page.get_by_role("button", name="Save"))
    expect(page.get_by_text("No changes since version 1.")).to_be_visible()
    # The notice above the graph moves it, so Streamlit mounts it afresh: wait for the redraw.
    graph(page, "succeeded succeeded")
    screenshot(page, "journey.png")

    # Library lists it; opening it brings the plan back
    click(page.get_by_role("link", name="Library"))
    card = page.locator("[class*=st-key-library-card]").filter(has_text=GOAL)
    expect(card).to_be_visible()
    expect(card.get_by_text(re.compile(r"2 steps · 1 version · 1 run"))).to_be_visible()
    screenshot(page, "library.png")
    click(card.get_by_role("button", name="Open", exact=True))
    expect(page.get_by_role("textbox", name="Plan JSON")).to_have_value(re.compile(re.escape(f'"goal": "{GOAL}"')))
    expect(page.get_by_role("textbox", name="Goal")).to_have_value(GOAL)

    assert offsite(requests) == []
    assert any(u.endswith("/app/static/vis-network.min.js") for u in requests)

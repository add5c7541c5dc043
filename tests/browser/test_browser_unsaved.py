"""Unsaved edits in Chromium: opening a Library plan or planning a new goal over them asks
first, and an edit typed while a run goes on waits in the Plan JSON until the user applies it."""

from __future__ import annotations

import json
import re

import pytest
from browser_helpers import click, enter, graph, open_studio, screenshot
from playwright.sync_api import Page, expect

from test_browser_runs import _open_gate, gated_studio  # noqa: F401  (a fixture, used by name)

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"
QUESTION = re.compile(r"^Your edits are not saved")


def test_a_library_plan_or_a_new_goal_over_unsaved_edits_asks_first(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    click(page.get_by_role("button", name="Save", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    edited = plan_json.input_value().replace('"Berlin"', '"Hamburg"')
    enter(plan_json, edited)

    # The Library's Open leads to the Plan page, which asks; Keep editing keeps the edit.
    click(page.get_by_role("link", name="Library"))
    card = page.locator("[class*=st-key-library-card]").filter(has_text=GOAL)
    click(card.get_by_role("button", name="Open", exact=True))
    question = page.locator("[class*=st-key-plan-replace]")
    expect(question.get_by_text(QUESTION)).to_contain_text("edited since version 1 was saved")
    expect(question.get_by_text(QUESTION)).to_contain_text("open version 1 of")
    expect(plan_json).to_have_value(edited)
    screenshot(page, "unsaved-library-asks.png")
    click(question.get_by_role("button", name="Keep editing"))
    expect(question).to_have_count(0)
    expect(page.get_by_text("Nothing was replaced: your edits are as you left them.")).to_be_visible()
    expect(plan_json).to_have_value(edited)

    # A new goal asks too; Save first stores the edit as version 2, then plans the goal.
    enter(page.get_by_role("textbox", name="Goal"), "Get facilities in Munich")
    click(page.get_by_role("button", name="Plan", exact=True))
    expect(question.get_by_text(QUESTION)).to_contain_text("plan the goal “Get facilities in Munich”")
    click(question.get_by_role("button", name="Save first"))
    expect(page.get_by_text("Your edits were saved first, as version 2; the Library has them.")).to_be_visible()
    expect(plan_json).to_have_value(re.compile('"Munich"'))
    graph(page, "pending")

    # Edited again, then the saved plan opened and the edit discarded: version 2 comes back.
    enter(plan_json, plan_json.input_value().replace('"Munich"', '"Leipzig"'))
    click(page.get_by_role("link", name="Library"))
    card = page.locator("[class*=st-key-library-card]").filter(has_text=GOAL)
    click(card.get_by_role("button", name="Open", exact=True))
    expect(question.get_by_text(QUESTION)).to_contain_text("open version 2 of")
    click(question.get_by_role("button", name="Discard my edits"))
    expect(page.get_by_text("Opened version 2 of this plan.")).to_be_visible()
    expect(plan_json).to_have_value(edited)


def test_an_edit_typed_during_a_run_waits_and_applies_after_it(page: Page, gated_studio) -> None:  # noqa: F811
    studio, fifo = gated_studio
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), "Get facilities in Berlin")
    click(page.get_by_role("button", name="Plan", exact=True))
    steps = [{"tool": "wait_for_gate", "params": {"label": "gate"}},
             {"tool": "facilities_list", "params": {"location": "Berlin"}}]
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    enter(plan_json, json.dumps({"goal": "Gated", "steps": steps}, indent=1))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    expect(page.get_by_text("Step 0 · wait_for_gate: running")).to_be_visible()

    edited = plan_json.input_value().replace('"Berlin"', '"Munich"')
    enter(plan_json, edited)
    pending = page.locator("[class*=st-key-plan-pending]")
    expect(pending.get_by_text(re.compile(r"^Not applied yet: you edited the plan during the run"))).to_be_visible()
    expect(pending.get_by_role("button", name="Apply my edit")).to_be_disabled()
    expect(plan_json).to_have_value(edited)
    screenshot(page, "unsaved-pending-during-run.png")

    _open_gate(fifo)
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 2 succeeded"))).to_be_visible()
    expect(plan_json).to_have_value(edited)  # still there once the run ended
    expect(page.get_by_role("button", name="Approve")).to_be_disabled()
    screenshot(page, "unsaved-pending-after-run.png")
    click(pending.get_by_role("button", name="Apply my edit"))
    expect(page.get_by_text("Your edit made during the run is applied. Approve the plan to run it.")).to_be_visible()
    expect(pending).to_have_count(0)
    graph(page, "pending pending")
    expect(page.get_by_role("button", name="Approve")).to_be_enabled()


def test_reviewing_an_agents_plan_over_unsaved_edits_asks_first(page: Page, studio) -> None:
    from studio.client import ReviewClient
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    edited = plan_json.input_value().replace('"Berlin"', '"Hamburg"')
    enter(plan_json, edited)
    client = ReviewClient(studio.url, token=(studio.data_dir / "api-token").read_text().strip())
    sent = client.submit({"goal": "Find facilities in Bonn", "steps": [
        {"id": "fac", "tool": "facilities_list", "params": {"location": "Bonn"}}]}, agent="bonn-bot")

    click(page.get_by_role("link", name="Reviews"))
    click(page.locator(f".st-key-reviews-card-{sent.id}").get_by_role("button", name="Review"))
    question = page.locator("[class*=st-key-plan-replace]")
    expect(question.get_by_text(QUESTION)).to_contain_text("review the plan bonn-bot sent")
    expect(plan_json).to_have_value(edited)
    expect(page.locator(".st-key-review-bar")).to_have_count(0)
    screenshot(page, "unsaved-review-asks.png")
    click(question.get_by_role("button", name="Discard my edits"))
    expect(page.locator(".st-key-review-bar")).to_contain_text("bonn-bot")
    expect(plan_json).to_have_value(re.compile('"Bonn"'))

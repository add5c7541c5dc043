"""End to end: an agent in its own process sends a plan over HTTP and waits; in Chromium the
reviewer sees it arrive on the Reviews page, opens it into the Plan page, edits it and approves
it; the agent's wait returns the plan as edited.

The time from the agent's submit to the review showing on the open Reviews page is written to
``test-artifacts/review-latency.txt`` (measured, not asserted: speed is not a unit-test matter).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import ARTIFACTS, click, enter, open_studio, screenshot

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parents[1]
GOAL = "Get contaminated shipments from Berlin facilities"
PLAN = {"goal": GOAL, "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}},
    {"id": "ship", "tool": "shipments_list", "params": {"has_contaminants": True, "facility_id": "${step[0].data.*.id}"},
     "depends_on": ["fac"]},
]}


def test_an_agent_waits_while_a_reviewer_edits_and_approves_in_the_browser(page: Page, studio, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    token = (studio.data_dir / "api-token").read_text().strip()
    open_studio(page, studio.url)
    click(page.get_by_role("link", name="Reviews"))
    expect(page.get_by_text("No reviews yet.")).to_be_visible()

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(PLAN))
    agent = subprocess.Popen([sys.executable, str(HERE / "review_agent.py"), studio.url, str(plan_file),
                              "--wait", "120", "--agent", "shipping-bot"],
                             env={**os.environ, "PLAN_STUDIO_TOKEN": token}, stdout=subprocess.PIPE, text=True)
    try:
        submitted = json.loads(agent.stdout.readline())
        card = page.locator(f".st-key-reviews-card-{submitted['id']}")
        expect(card).to_contain_text("shipping-bot")  # arrives without the reviewer doing anything
        seen_after = time.time() - submitted["sent_at"]
        expect(card).to_contain_text(GOAL)
        expect(card).to_contain_text("pending")
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "review-latency.txt").write_text(f"submit -> shown on the open Reviews page: {seen_after:.2f} s\n")
        print(f"\nsubmit -> shown on the open Reviews page: {seen_after:.2f} s")
        screenshot(page, "reviews-page.png")

        click(card.get_by_role("button", name="Review"))
        bar = page.locator(".st-key-review-bar")
        expect(bar).to_contain_text("shipping-bot")
        plan_json = page.get_by_role("textbox", name="Plan JSON")
        enter(plan_json, plan_json.input_value().replace('"Berlin"', '"Leipzig"'))
        enter(page.get_by_role("textbox", name="Comment for the agent"), "Leipzig, not Berlin")
        screenshot(page, "review-bar.png")
        click(bar.get_by_role("button", name="Approve review"))
        expect(page.get_by_text("Approved and sent back to shipping-bot")).to_be_visible()

        decided = json.loads(agent.stdout.readline())["review"]
        assert agent.wait(timeout=30) == 0
    finally:
        agent.kill()
        agent.wait()
    assert (decided["status"], decided["comment"]) == ("approved", "Leipzig, not Berlin")
    assert decided["plan"]["steps"][0]["params"] == {"location": "Leipzig"}
    assert decided["decisions"] == [{"step_id": "fac", "decision": "edited"}, {"step_id": "ship", "decision": "approved"}]

    click(page.get_by_role("link", name="Reviews"))
    expect(card).to_contain_text("approved")

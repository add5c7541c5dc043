"""A reviewer's work is never lost or bypassed, in Chromium: an agent in its own process sends a
plan using its own tool (``send_refund``, ``amount_eur`` at most 500) and waits. The reviewer
types 600 (Approve review waits), a comment, reloads (the review, comment, edit and the agent's
tool all come back), edits the step in the inspector from the tool's declared schema, reopens
the review from Reviews (the work is still there, not the plan as sent) and approves: the
agent's wait returns the plan as edited.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import browser_helpers
from browser_helpers import click, enter, reload, reruns, screenshot

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parents[1]
TOOLS = [{
    "name": "send_refund", "description": "Refund a customer.",
    "inputSchema": {"type": "object", "additionalProperties": False, "required": ["customer", "amount_eur"],
                    "properties": {"customer": {"type": "string"},
                                   "amount_eur": {"type": "number", "minimum": 0, "maximum": 500},
                                   "reason": {"type": "string", "enum": ["damaged", "late", "other"]}}},
}]
PLAN = {"goal": "Refund Ada for the late parcel", "steps": [
    {"id": "refund", "tool": "send_refund", "params": {"customer": "ada", "amount_eur": 120}}]}
COMMENT = "Refund capped at the 500 limit"


def _amount(page: Page) -> float:
    return json.loads(page.get_by_role("textbox", name="Plan JSON").input_value())["steps"][0]["params"]["amount_eur"]


def _open_review(page: Page, review_id: str) -> None:
    click(page.get_by_role("link", name="Reviews"))
    click(page.locator(f".st-key-reviews-card-{review_id}").get_by_role("button", name="Review"))


def test_a_review_in_progress_survives_reload_and_reopening_and_waits_for_a_plan_without_problems(
        page: Page, studio, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1440, "height": 1800})
    token = (studio.data_dir / "api-token").read_text().strip()
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    browser_helpers.open_studio(page, studio.url)
    agent = subprocess.Popen([sys.executable, str(HERE / "review_agent.py"), studio.url, str(tmp_path / "plan.json"),
                              "--tools", str(tmp_path / "tools.json"), "--wait", "180", "--agent", "refund-bot"],
                             env={**os.environ, "PLAN_STUDIO_TOKEN": token}, stdout=subprocess.PIPE, text=True)
    try:
        review_id = json.loads(agent.stdout.readline())["id"]
        _open_review(page, review_id)
        bar = page.locator(".st-key-review-bar")
        approve = bar.get_by_role("button", name="Approve review")
        plan_json = page.get_by_role("textbox", name="Plan JSON")
        comment = page.get_by_role("textbox", name="Comment for the agent")

        # Past the agent's own schema: Approve review waits, as Approve does.
        enter(plan_json, plan_json.input_value().replace("120", "600"))
        expect(page.get_by_text("must be at most 500 (got 600)")).to_be_visible()
        expect(approve).to_be_disabled()
        expect(page.get_by_role("button", name="Approve", exact=True)).to_be_disabled()
        enter(comment, COMMENT)

        # A reload brings the review back: bar, comment, edit, and the agent's tool.
        reload(page)
        expect(bar).to_contain_text("refund-bot")
        expect(bar).to_contain_text("agent's own tools (send_refund)")
        expect(comment).to_have_value(COMMENT)
        assert _amount(page) == 600
        expect(page.get_by_text(re.compile("unknown tool", re.I))).to_have_count(0)
        expect(approve).to_be_disabled()
        screenshot(page, "review-work-reloaded.png")

        # The inspector edits the agent's step from its declared schema: a bounded number, an enum.
        graph = page.locator("[data-testid=plan-graph][data-ready=true][data-editable=true]")
        expect(graph).to_have_attribute("data-statuses", "pending")
        at = graph.evaluate("el => el.__editor.positions()['refund']")
        box = graph.locator("canvas").bounding_box()
        with reruns(page):
            page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])
        inspector = page.locator(".st-key-editor-inspector")
        expect(inspector).to_contain_text("Refund a customer: customer ada")  # its tool's own words, in a sentence
        expect(inspector.get_by_role("combobox", name="reason", exact=True)).to_be_visible()
        enter(inspector.get_by_role("spinbutton", name="amount_eur", exact=True), "450")
        assert _amount(page) == 450
        expect(page.get_by_text("No problems found")).to_be_visible()
        expect(approve).to_be_enabled()
        screenshot(page, "review-work-inspector.png")

        # Reopened from Reviews: the reviewer's work, not the plan as the agent sent it.
        _open_review(page, review_id)
        expect(comment).to_have_value(COMMENT)
        assert _amount(page) == 450
        screenshot(page, "review-work-reopened.png")
        click(approve)
        expect(page.get_by_text("Approved and sent back to refund-bot")).to_be_visible()
        decided = json.loads(agent.stdout.readline())["review"]
        assert agent.wait(timeout=30) == 0
    finally:
        agent.kill()
        agent.wait()
    assert (decided["status"], decided["comment"]) == ("approved", COMMENT)
    assert decided["plan"]["steps"][0]["params"] == {"customer": "ada", "amount_eur": 450}

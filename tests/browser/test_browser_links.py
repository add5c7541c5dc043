"""Issue 27, item 6 in real Chromium against a real studio and a real webhook receiver: a run
that pauses before a writing step posts one webhook with a signed link; the link's page shows
the step's tool and arguments before the buttons; Approve runs it; the link then says it was
used; an expired and a forged link say so; a review submitted over the API posts a link too."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import click, enter, graph, open_studio, screenshot
from conftest import start_studio
from core import StepStatus
from core.storage import PlanStore
from studio.workbench._link_signing import ensure_link_secret, read_token, sign_token
from webhook_receiver import receiver

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"
PLAN = {"goal": "Note milk", "steps": [{"id": "s1", "tool": "addItem",
                                       "params": {"list": "groceries", "item": "milk <b>2%</b>"}}]}


@pytest.fixture
def hooked(tmp_path: Path):
    with receiver() as hook:
        for studio in start_studio(tmp_path, PLAN_STUDIO_APPROVE_WRITES="true", PLAN_STUDIO_WEBHOOK_URL=hook.url,
                                   PLAN_STUDIO_WEBHOOK_FORMAT="plain"):
            yield studio, hook


def _run_until_it_waits(page: Page, url: str) -> None:
    open_studio(page, url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    enter(page.get_by_role("textbox", name="Plan JSON"), json.dumps(PLAN, indent=2))
    graph(page, "pending")
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    graph(page, "waiting")


def _wait_finished(store: PlanStore, run_id: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not store.load_run(run_id).finished:
        assert time.monotonic() < deadline, "the approved run did not finish"
        time.sleep(0.1)


def test_a_link_from_the_webhook_shows_the_step_then_approves_it_once(page: Page, hooked, browser) -> None:
    studio, hook = hooked
    page.set_viewport_size({"width": 1280, "height": 800})
    _run_until_it_waits(page, studio.url)
    [post] = hook.wait_for(1)
    assert (post["kind"], post["tool"], post["step_id"]) == ("step_waiting", "addItem", "s1")
    assert post["link"].startswith(f"{studio.url}/decide?link=")

    other = browser.new_page(viewport={"width": 1280, "height": 800})  # the reviewer, from the message
    open_studio(other, post["link"])
    what = other.locator(".st-key-decide-what")
    expect(what).to_contain_text("addItem")
    expect(what).to_contain_text("additive")
    expect(what.locator("code.language-json")).to_contain_text('"item": "milk <b>2%</b>"')  # escaped: shown as written
    approve = other.get_by_role("button", name="Approve")
    assert what.bounding_box()["y"] < approve.bounding_box()["y"], "what runs is shown before the buttons"
    screenshot(other, "link-step.png")
    click(approve)
    expect(other.locator(".st-key-decide-result")).to_contain_text("Approved step 0 (addItem)")

    store = PlanStore(studio.data_dir / "studio.sqlite3")
    _wait_finished(store, post["run_id"])
    step = store.load_run(post["run_id"]).steps["s1"]
    assert step.status == StepStatus.succeeded and step.decision.channel == "link" and step.decision.actor_id == "user:local"

    again = browser.new_page(viewport={"width": 1280, "height": 800})
    open_studio(again, post["link"])
    expect(again.locator(".st-key-decide-refused-used")).to_contain_text("used already")
    expect(again.get_by_role("button", name="Approve")).to_have_count(0)

    token = post["link"].split("?link=", 1)[1]
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    open_studio(again, f"{studio.url}/decide?link={forged}")
    expect(again.locator(".st-key-decide-refused-forged")).to_contain_text("not one this studio signed")

    secret = ensure_link_secret(studio.data_dir)  # the studio's own secret: a link it made a day ago
    link = read_token(secret, token, now=0)
    old, _ = sign_token(secret, "step", link.subject, link.shown, step_id="s1", expires_in=60,
                        now=time.time() - 86400)
    open_studio(again, f"{studio.url}/decide?link={old}")
    expect(again.locator(".st-key-decide-refused-expired")).to_contain_text("expired at")
    screenshot(again, "link-expired.png")
    assert len(hook.posts) == 1


def test_a_review_sent_over_the_api_posts_a_link_that_decides_it(page: Page, hooked) -> None:
    studio, hook = hooked
    token = (studio.data_dir / "api-token").read_text().strip()
    request = urllib.request.Request(f"{studio.url}/api/reviews", method="POST",
                                     data=json.dumps({"plan": PLAN, "agent": "grocer"}).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        review_id = json.loads(answer.read())["id"]
    [post] = hook.wait_for(1)
    assert (post["kind"], post["review_id"]) == ("review_submitted", review_id)
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_studio(page, post["link"])
    expect(page.locator(".st-key-decide-what")).to_contain_text("grocer")
    expect(page.locator(".st-key-decide-plan")).to_contain_text("addItem")
    enter(page.get_by_role("textbox", name="Comment for the agent"), "not milk")
    screenshot(page, "link-review.png")
    click(page.get_by_role("button", name="Reject"))
    expect(page.locator(".st-key-decide-result")).to_contain_text(re.compile("Rejected"))
    store = PlanStore(studio.data_dir / "studio.sqlite3")
    review = store.get_review(review_id)
    assert (review.status, review.comment) == ("rejected", "not milk")

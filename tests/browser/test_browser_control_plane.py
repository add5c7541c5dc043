"""Issue 27's pages in real Chromium against a real studio: Settings' policy editor (a file that
does not read is named by its line and the policy in force stays; a valid one is replayed over a
decision a person made on the Plan page, and only "Save this policy" puts it in force, across a
reload), the pause panel with two approvers (the local user on the page, a second approver's
token over the review API), and a grant "for the rest of this run" listed on Settings and revoked.
Screenshots of the policy section and the pause panel at 1280x800 and 1920x1080."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from browser_helpers import ARTIFACTS, click, drawn_by_an_ended_run, enter, graph, open_studio, reload, screenshot
from conftest import Studio, start_studio
from core import LOCAL_ACTOR
from core.storage import PlanStore

pytestmark = pytest.mark.browser

LOCAL = LOCAL_ACTOR.name  # the embedded studio's one person, who approves on the page
GOAL = "Get contaminated shipments from Berlin facilities"
READS_PASS = '''[[rules]]
name = "reads pass"
effect = "read-only"
outcome = "allow"
'''
NO_LIST_WRITES = '''[[rules]]
name = "no list writes"
tool = "addItem"
outcome = "deny"
reason = "lists are <b>read-only</b> now"

''' + READS_PASS
TWO_FOR_MILK = '''[[rules]]
name = "milk needs two"
tool = "addItem"
outcome = "ask"
approvers = 2
roles = ["approver"]
reason = "shared lists are everyone's"
'''


def _policy_studio(tmp_path: Path, policy: str) -> Iterator[Studio]:
    path = tmp_path / "policy.toml"
    path.write_text(policy, encoding="utf-8")
    yield from start_studio(tmp_path, PLAN_STUDIO_APPROVE_WRITES="true", PLAN_STUDIO_POLICY=str(path))


@pytest.fixture
def reads_pass_studio(tmp_path: Path) -> Iterator[Studio]:
    yield from _policy_studio(tmp_path, READS_PASS)


@pytest.fixture
def two_approver_studio(tmp_path: Path) -> Iterator[Studio]:
    yield from _policy_studio(tmp_path, TWO_FOR_MILK)


def _add(list_name: str, item: str, step_id: str) -> dict[str, Any]:
    return {"id": step_id, "tool": "addItem", "params": {"list": list_name, "item": item}}


def _run_until_it_waits(page: Page, steps: list[dict[str, Any]], statuses: str) -> None:
    """Plan on the Plan page, put ``steps`` in its Plan JSON, approve, Run all: the run pauses."""
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    enter(page.get_by_role("textbox", name="Plan JSON"), json.dumps({"goal": "Lists", "steps": steps}, indent=2))
    graph(page, " ".join("pending" for _ in steps))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    graph(page, statuses)
    # The graph can show the pause from the run's progress before the page's rerun that collects
    # the run has drawn the pause panel: the panel's widgets are used once that rerun ended.
    drawn_by_an_ended_run(page, page.locator(".st-key-plan-pause"))


def _only_run(studio: Studio) -> str:
    with PlanStore(studio.data_dir / "studio.sqlite3") as store:
        [listing] = store.records.recent(10)
        return listing.id


def _both_sizes(part: Locator, name: str) -> None:
    """The whole page, and ``part`` of it alone, at 1280x800 and 1920x1080."""
    page = part.page
    for width, height in ((1280, 800), (1920, 1080)):
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"{name}-{width}.png")
        part.screenshot(path=str(ARTIFACTS / f"{name}-{width}-part.png"))
    page.set_viewport_size({"width": 1280, "height": 800})


def test_a_policy_that_does_not_read_changes_nothing_and_a_replayed_one_is_saved_only_on_save(
        page: Page, reads_pass_studio: Studio) -> None:
    studio = reads_pass_studio
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, studio.url)
    # A decision to replay over: the local user approves a write on the pause panel.
    _run_until_it_waits(page, [_add("groceries", "milk", "s1")], "waiting")
    click(page.locator(".st-key-plan-pause").get_by_role("button", name="Approve and run"))
    graph(page, "succeeded")

    click(page.get_by_role("link", name="Settings"))
    section = page.locator(".st-key-settings-policy")
    rules = section.locator(".st-key-settings-policy-rules")
    expect(rules.locator("tbody tr")).to_have_count(2)  # the file's rule, then the default
    expect(rules.locator("tbody tr").first).to_contain_text("reads pass")
    expect(rules).not_to_contain_text("no list writes")
    editor = section.get_by_role("textbox", name="Policy file")
    expect(editor).to_have_value(READS_PASS)

    # A file that does not read: the error names its line, the policy in force stays.
    broken = READS_PASS + '\n[[rules]]\nname = "half"\noutcome = \n'
    line = broken.splitlines().index("outcome = ") + 1
    enter(editor, broken)
    click(section.get_by_role("button", name="Check and replay"))
    expect(section.get_by_text(re.compile(rf"Not saved: line {line}: not TOML.*The policy in force is unchanged"))
           ).to_be_visible()
    expect(rules.locator("tbody tr")).to_have_count(2)
    expect(rules).not_to_contain_text("half")
    expect(section.locator(".st-key-settings-policy-report")).to_have_count(0)
    expect(section.get_by_role("button", name="Save this policy")).to_have_count(0)

    # A stricter one: replayed over the approval above, shown, and not yet in force.
    enter(editor, NO_LIST_WRITES)
    click(section.get_by_role("button", name="Check and replay"))
    report = section.locator(".st-key-settings-policy-report")
    expect(report).to_contain_text("1 recorded step: 0 allowed, 0 asked, 1 denied; 1 disagreement with "
                                   "people's decisions")
    run_id = _only_run(studio)
    expect(report).to_contain_text(f"run {run_id}, step 0 (addItem): would deny what a person ({LOCAL}) approved "
                                   "(denied by rule no list writes: lists are <b>read-only</b> now)")
    expect(report.locator("b")).to_have_count(0)  # the reason as written (its <b> is text), not drawn
    expect(rules).not_to_contain_text("no list writes")
    assert (studio.data_dir.parent / "policy.toml").read_text(encoding="utf-8") == READS_PASS
    _both_sizes(section, "control-plane-policy-replay")

    click(section.get_by_role("button", name="Save this policy"))
    expect(section.get_by_text("Saved: 2 rules in force from now on.")).to_be_visible()
    expect(rules.locator("tbody tr")).to_have_count(3)
    expect(rules.locator("tbody tr").first).to_contain_text("no list writes")
    expect(section.locator(".st-key-settings-policy-report")).to_have_count(0)
    assert (studio.data_dir.parent / "policy.toml").read_text(encoding="utf-8") == NO_LIST_WRITES

    reload(page)
    section = page.locator(".st-key-settings-policy")
    rules = section.locator(".st-key-settings-policy-rules")
    expect(rules.locator("tbody tr")).to_have_count(3)
    expect(rules.locator("tbody tr").first).to_contain_text("no list writes")
    expect(section.get_by_role("textbox", name="Policy file")).to_have_value(NO_LIST_WRITES)
    _both_sizes(section, "control-plane-policy-saved")


def _api(studio: Studio, method: str, path: str, token: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(studio.url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _approver_token(studio: Studio, name: str) -> str:
    """A token with the approver role, made as an admin makes one: ``plan-studio token create``."""
    command = Path(sys.executable).with_name("plan-studio")
    argv = [str(command)] if command.exists() else [sys.executable, "-m", "studio.cli._main"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
    env.update(PLAN_STUDIO_DATA_DIR=str(studio.data_dir))
    made = subprocess.run([*argv, "token", "create", name, "--role", "approver"], capture_output=True, text=True,
                          timeout=120, check=True, env=env)
    token = made.stdout.strip().splitlines()[0]
    assert re.fullmatch(r"ps_[\w-]{43}", token), made.stdout
    return token


def test_a_step_for_two_approvers_waits_for_the_second_then_runs(page: Page, two_approver_studio: Studio) -> None:
    studio = two_approver_studio
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, studio.url)
    _run_until_it_waits(page, [_add("shared-groceries", "milk", "s1")], "waiting")
    panel = page.locator(".st-key-plan-pause")
    approvals = panel.locator(".st-key-plan-pause-s1-approvals")
    expect(approvals).to_have_text(re.compile(r"Approvals: 0 of 2 · approved by nobody yet · rule milk needs two"))
    expect(panel).to_contain_text("Why it waits: rule milk needs two asks: shared lists are everyone's")
    _both_sizes(panel, "control-plane-pause-0-of-2")

    click(panel.get_by_role("button", name="Approve and run"))
    expect(page.get_by_text(re.compile(re.escape(f"Approved step 0 (addItem) (1 of 2 approvals: {LOCAL}); it waits "
                                                 "for 1 more approver.")))).to_be_visible()
    approvals = page.locator(".st-key-plan-pause-s1-approvals")
    expect(approvals).to_have_text(re.compile(re.escape(f"Approvals: 1 of 2 · approved by {LOCAL} (page)")))
    graph(page, "waiting")
    panel = page.locator(".st-key-plan-pause")
    expect(panel.get_by_role("button", name="Approve and run")).to_be_disabled()  # one person counts once
    expect(panel).to_contain_text("You approved this step; it waits for 1 more approver.")
    expect(panel.get_by_role("button", name="Reject")).to_be_enabled()
    _both_sizes(panel, "control-plane-pause-1-of-2")

    # The second person: an approver's own token, over the review API, naming what it was shown.
    run_id = _only_run(studio)
    token = _approver_token(studio, "second-approver")
    status, waiting = _api(studio, "GET", f"/api/runs/{run_id}/waiting", token)
    assert status == 200, waiting
    [step] = waiting["waiting"]
    assert (step["step_id"], step["approvals_needed"], [a["actor_id"] for a in step["approvals"]]) == (
        "s1", 2, ["user:local"])
    status, decided = _api(studio, "POST", f"/api/runs/{run_id}/steps/s1/decision", token,
                           {"approve": True, "shown_hash": step["shown_hash"]})
    assert status == 200 and decided["decided"] and decided["settled"], decided
    assert [a["actor_id"] for a in decided["approvals"]] == ["user:local", "agent:second-approver"]

    # The page, on its next run, shows the step ran.
    reload(page)
    graph(page, "succeeded")
    expect(page.locator(".st-key-plan-pause")).to_have_count(0)


def test_a_grant_for_the_rest_of_the_run_is_listed_on_settings_and_revoked(page: Page, reads_pass_studio: Studio
                                                                           ) -> None:
    studio = reads_pass_studio
    page.set_viewport_size({"width": 1280, "height": 800})
    open_studio(page, studio.url)
    steps = [_add("groceries", "milk", "s1"), {**_add("groceries", "bread", "s2"), "depends_on": ["s1"]},
             {"id": "s3", "tool": "removeItem", "params": {"list": "groceries", "item": "milk"}, "depends_on": ["s2"]}]
    _run_until_it_waits(page, steps, "waiting pending pending")
    panel = page.locator(".st-key-plan-pause")
    scope = panel.get_by_role("combobox", name="Scope")
    scope.focus()  # opened from the keyboard: a click here left the list shut (focus, no popover)
    scope.press("ArrowDown")
    expect(scope).to_have_attribute("aria-expanded", "true")
    click(page.get_by_role("option", name=re.compile("For the rest of this run")))
    expect(panel.get_by_role("combobox", name="Scope")).to_have_value(re.compile("For the rest of this run"))
    click(panel.get_by_role("button", name="Approve and run"))
    # The second addItem passes by the grant; removeItem is another tool and asks.
    graph(page, "succeeded succeeded waiting")
    run_id = _only_run(studio)

    click(page.get_by_role("link", name="Settings"))
    grants = page.locator(".st-key-settings-grants")
    expect(grants).to_contain_text(f"every step of addItem in run {run_id} — granted by {LOCAL} (page), "
                                   "ends with the run")
    revoke = grants.get_by_role("button", name="Revoke")
    expect(revoke).to_have_count(1)
    click(revoke)
    expect(grants).to_contain_text("No grants in force.")
    expect(grants).not_to_contain_text("every step of addItem")
    with PlanStore(studio.data_dir / "studio.sqlite3") as store:
        [grant] = store.grants.listed(active_only=False)
    assert grant.revoked_at is not None and grant.run_id == run_id

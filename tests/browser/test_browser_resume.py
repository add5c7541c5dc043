"""Issue 17, item 2 (Plan page, real Chromium): kill -9 the studio in the middle of a run started
with Run all; after a restart on the same data folder, the Library lists the run as interrupted,
Open run shows it so on the Plan page with Resume and the steps that run again (the step cut off
mid-call, of a tool that may write, asks: run again or mark failed), and Resume finishes it.
"""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import click, enter, graph, open_studio, screenshot
from conftest import start_studio
from test_browser_runs import _open_gate, gate_plugin

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000


def test_a_studio_killed_mid_run_shows_the_run_interrupted_and_resume_finishes_it(page: Page, tmp_path: Path) -> None:
    plugin, fifo = gate_plugin(tmp_path)
    page.set_default_timeout(TIMEOUT_MS)
    page.set_viewport_size({"width": 1440, "height": 1000})
    first = start_studio(tmp_path, PYTHONPATH=str(plugin))
    studio = next(first)
    steps = [{"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}},
             {"id": "gate", "tool": "wait_for_gate", "params": {"label": "n=${step[0].count}"}},
             {"id": "say", "tool": "say", "params": {"message": "after the gate: ${step[1].label}"}}]
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), "Get facilities in Berlin")
    click(page.get_by_role("button", name="Plan", exact=True))
    enter(page.get_by_role("textbox", name="Plan JSON"), json.dumps({"goal": "Gated", "steps": steps}, indent=1))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    expect(page.get_by_text("Saved as version 1 to run it: a run is stored with the version it ran.")).to_be_visible()
    expect(page.get_by_text("Step 1 · wait_for_gate: running")).to_be_visible()

    os.kill(studio.pid, signal.SIGKILL)  # the studio dies mid-run, the gate step mid-call
    os.waitpid(studio.pid, 0)
    first.close()
    second = start_studio(tmp_path, PYTHONPATH=str(plugin))
    try:
        studio = next(second)
        open_studio(page, studio.url)
        click(page.get_by_role("link", name="Library"))
        card = page.locator("[class*=st-key-library-card]")
        card.get_by_text("Versions and runs").click()  # no rerun
        expect(card.get_by_text(re.compile(r"interrupted \(1 of 3 steps done\)"))).to_be_visible()
        click(card.get_by_role("button", name="Open run"))

        expect(page.get_by_text("This run was interrupted: it stopped while steps ran.")).to_be_visible()
        expect(page.get_by_text(re.compile(r"interrupted, 1 of 3 steps done"))).to_be_visible()
        panel = page.locator(".st-key-plan-resume")
        expect(panel.get_by_text("step 1 (wait_for_gate)", exact=True)).to_be_visible()
        expect(panel.get_by_text("step 2 (say)")).to_be_visible()
        expect(panel.get_by_role("button", name="Resume")).to_be_disabled()
        graph(page, "succeeded interrupted pending")
        screenshot(page, "resume-interrupted.png")

        click(panel.get_by_text("Run it again"))
        click(panel.get_by_role("button", name="Resume"))
        expect(page.get_by_text("Step 1 · wait_for_gate: running")).to_be_visible()
        _open_gate(fifo)
        expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 3 succeeded"))).to_be_visible()
        expect(page.get_by_test_id("stChatMessageContent").get_by_text("after the gate: n=4")).to_be_visible()
        graph(page, "succeeded succeeded succeeded")
        screenshot(page, "resume-finished.png")
    finally:
        _open_gate(fifo, missing_ok=True)
        second.close()

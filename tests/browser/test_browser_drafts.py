"""Work survives in Chromium: a reload brings back the goal, the plan, an unsaved (even broken)
edit, the approval and the run; the URL of a saved plan opened in another browser brings the
plan and its run back; the Library opens a saved run."""

from __future__ import annotations

import json
import re
from typing import Callable, Iterator
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
from browser_helpers import click, enter, graph, open_studio, reload, screenshot
from playwright.sync_api import Browser, BrowserContext, Page, expect

from test_browser_runs import _open_gate, gated_studio  # noqa: F401  (a fixture, used by name)

pytestmark = pytest.mark.browser

GOAL = "Get contaminated shipments from Berlin facilities"


@pytest.fixture
def new_tab(browser: Browser, studio) -> Iterator[Callable[[str], Page]]:
    """Opens a URL of the studio in a browser context of its own (another browser, with no
    cookies or storage of the first); the contexts are closed after the test."""
    contexts: list[BrowserContext] = []

    def open_tab(url: str) -> Page:
        contexts.append(browser.new_context(viewport={"width": 1440, "height": 1000}))
        page = contexts[-1].new_page()
        open_studio(page, url)
        return page

    yield open_tab
    for context in contexts:
        context.close()


def _params(page: Page) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlparse(page.url).query).items()}


def test_reload_brings_everything_back_and_the_saved_plans_url_opens_it_elsewhere(studio, new_tab) -> None:
    page = new_tab(studio.url)
    expect(page).to_have_url(re.compile(r"[?&]draft=[0-9a-f]{16}"))
    draft = _params(page)["draft"]
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    edited = plan_json.input_value().replace('"Berlin"', '"Munich"')
    enter(plan_json, edited)  # unsaved
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run next step"))
    graph(page, "succeeded pending")
    expect(page.get_by_text(re.compile(r"^Run \w+ · paused · 1 succeeded, 1 pending"))).to_be_visible()
    broken = edited + "\n}"
    enter(plan_json, broken)
    expect(page.get_by_text(re.compile(r"Not applied: not valid JSON"))).to_be_visible()

    reload(page)
    assert _params(page)["draft"] == draft
    expect(page.get_by_role("textbox", name="Goal")).to_have_value(GOAL)
    expect(plan_json).to_have_value(broken)
    expect(page.get_by_text(re.compile(r"Not applied: not valid JSON"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Run \w+ · paused · 1 succeeded, 1 pending"))).to_be_visible()
    graph(page, "succeeded pending")
    screenshot(page, "drafts-reloaded.png")
    # Fixed back to the approved plan: still approved (the run shown says so by the buttons, and
    # Run all is open), and the run carries on.
    enter(plan_json, edited)
    expect(page.get_by_text(re.compile(r"Not applied"))).to_have_count(0)
    expect(page.get_by_role("button", name="Run all")).to_be_enabled()
    click(page.get_by_role("button", name="Run all"))
    graph(page, "succeeded succeeded")
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 2 succeeded"))).to_be_visible()

    click(page.get_by_role("button", name="Save", exact=True))
    expect(page.get_by_text("No changes since version 1.")).to_be_visible()  # running stored it
    expect(page).to_have_url(re.compile(r"[?&]run=\w+"))
    url = _params(page)
    assert url["draft"] == draft and url["version"] == "1"

    # The same URL in another browser: the plan comes back, in a draft of its own.
    other = new_tab(page.url)
    expect(other.get_by_role("textbox", name="Plan JSON")).to_have_value(edited)
    graph(other, "succeeded succeeded")
    assert _params(other)["draft"] != draft
    # Without the draft (gone after 30 days, say): the saved plan and its run.
    base = page.url.split("?")[0]
    fresh = new_tab(f"{base}?{urlencode({k: v for k, v in url.items() if k != 'draft'})}")
    expect(fresh.get_by_role("textbox", name="Plan JSON")).to_have_value(re.compile('"Munich"'))
    expect(fresh.get_by_text(re.compile(rf"^Run {url['run']} · succeeded · 2 succeeded · saved with the plan"))).to_be_visible()
    graph(fresh, "succeeded succeeded")
    expect(fresh.get_by_text(re.compile(r"Saved as version 1"))).to_be_visible()
    screenshot(fresh, "drafts-fresh-browser.png")


def test_the_library_opens_a_saved_run_and_a_plans_latest_run(studio, new_tab) -> None:
    page = new_tab(studio.url)
    enter(page.get_by_role("textbox", name="Goal"), GOAL)
    click(page.get_by_role("button", name="Plan", exact=True))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run next step"))
    graph(page, "succeeded pending")
    # The graph turns green from the run's progress; the run is over once its line is shown.
    expect(page.get_by_text(re.compile(r"^Run \w+ · paused · 1 succeeded, 1 pending"))).to_be_visible()
    click(page.get_by_role("button", name="Save", exact=True))
    expect(page.get_by_text("No changes since version 1.")).to_be_visible()  # running stored it
    first_run = _params(page)["run"]
    click(page.get_by_role("button", name="Run all"))
    graph(page, "succeeded succeeded")
    expect(page.get_by_text(re.compile(rf"^Run {first_run} · succeeded · 2 succeeded"))).to_be_visible()
    # Run all after the paused run carried it on: one run, now finished. Start a second one.
    click(page.get_by_role("button", name="Run next step"))
    click(page.get_by_role("button", name="Start a new run"))
    graph(page, "succeeded pending")
    expect(page.get_by_text(re.compile(r"^Run \w+ · paused · 1 succeeded, 1 pending"))).to_be_visible()
    expect(page).not_to_have_url(re.compile(rf"run={first_run}"))
    second_run = _params(page)["run"]

    click(page.get_by_role("link", name="Library"))
    card = page.locator("[class*=st-key-library-card]").filter(has_text=GOAL)
    card.get_by_text("Versions and runs").click()
    expect(card.get_by_text(re.compile(rf"Run {second_run} · version 1 · .* · paused \(1 of 2 steps done\)"))).to_be_visible()
    expect(card.get_by_text(re.compile(rf"Run {first_run} · version 1 · .* · succeeded"))).to_be_visible()
    screenshot(page, "drafts-library-runs.png")
    runs = card.get_by_role("button", name="Open run")
    expect(runs).to_have_count(2)
    click(runs.nth(1))  # newest first: the finished one
    expect(page.get_by_text(re.compile(rf"Opened run {first_run} \(succeeded\) of version 1"))).to_be_visible()
    graph(page, "succeeded succeeded")
    expect(page).to_have_url(re.compile(rf"run={first_run}"))

    click(page.get_by_role("link", name="Library"))
    card = page.locator("[class*=st-key-library-card]").filter(has_text=GOAL)
    click(card.get_by_role("button", name="Open", exact=True))
    expect(page.get_by_text(re.compile(r"Opened version 1 of this plan\. Its latest run is shown below "
                                       r"\(paused, 1 of 2 steps done\)"))).to_be_visible()
    graph(page, "succeeded pending")
    screenshot(page, "drafts-opened-run.png")


def test_a_reload_during_a_run_shows_it_live_again_and_it_is_saved(page: Page, gated_studio) -> None:  # noqa: F811
    studio, fifo = gated_studio
    page.set_viewport_size({"width": 1440, "height": 1000})
    open_studio(page, studio.url)
    enter(page.get_by_role("textbox", name="Goal"), "Get facilities in Berlin")
    click(page.get_by_role("button", name="Plan", exact=True))
    steps = [{"tool": "facilities_list", "params": {"location": "Berlin"}},
             {"tool": "wait_for_gate", "params": {"label": "gate"}},
             {"tool": "say", "params": {"message": "after ${step[1].label}"}}]
    enter(page.get_by_role("textbox", name="Plan JSON"), json.dumps({"goal": "Gated", "steps": steps}, indent=1))
    click(page.get_by_role("button", name="Approve"))
    click(page.get_by_role("button", name="Run all"))
    expect(page.get_by_text("Step 1 · wait_for_gate: running")).to_be_visible()
    click(page.get_by_role("button", name="Save"))
    expect(page.get_by_text("The run in progress is stored as it goes, with the version it runs.")).to_be_visible()

    reload(page)
    expect(page.get_by_text("Running the plan: 1 of 3 steps done")).to_be_visible()
    graph(page, "succeeded running pending")
    screenshot(page, "drafts-reload-mid-run.png")
    _open_gate(fifo)
    expect(page.get_by_text(re.compile(r"^Run \w+ · succeeded · 3 succeeded · saved with the plan$"))).to_be_visible()
    graph(page, "succeeded succeeded succeeded")

"""Your own tools in the studio, in real Chromium: an MCP server's tool is listed on Tools with its
description and input schema as the server gave them, and a broken tool file is named there."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser_helpers import click, open_studio, screenshot
from conftest import start_studio

pytestmark = pytest.mark.browser

TEST_SERVER = Path(__file__).resolve().parents[1] / "mcp_test_server.py"


@pytest.fixture
def mcp_studio(tmp_path: Path):
    broken = tmp_path / "broken_tools.py"
    broken.write_text("def untyped(x):\n    \"\"\"Doc.\"\"\"\n", encoding="utf-8")
    yield from start_studio(tmp_path, PLAN_STUDIO_MCP=f"{sys.executable} {TEST_SERVER} stdio",
                            PLAN_STUDIO_TOOLS=str(broken), PLAN_STUDIO_MCP_TIMEOUT="30",
                            PLAN_STUDIO_DEMO="true")  # the built-ins beside them


# Starting an MCP server (a Python process here) can take long on a busy machine, and no frame
# comes while it starts: the first run is waited for on the page, with room, before the usual
# run-by-run waits apply.
STARTING_MS = 120_000


def test_the_tools_page_lists_an_mcp_tool_and_names_a_broken_file(page: Page, mcp_studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{mcp_studio.url}/tools")
    expect(page.locator(".st-key-tools-card-add")).to_be_visible(timeout=STARTING_MS)
    open_studio(page, f"{mcp_studio.url}/tools")  # a new session: the connection is shared
    card = page.locator(".st-key-tools-card-add")
    expect(card).to_contain_text("Add two whole numbers; the total is structured content.")
    expect(card).to_contain_text("group test-kit")
    expect(card).to_contain_text(f"From MCP server {sys.executable} {TEST_SERVER} stdio")
    card.get_by_text("Input schema (JSON)").click()  # an expander opens without a rerun
    expect(card).to_contain_text("addArguments")  # the server's own schema title, kept
    expect(page.get_by_text("broken_tools.py:1: function untyped: parameter 'x' has no type hint")).to_be_visible()
    expect(page.locator(".st-key-tools-card-facilities_list")).to_be_visible()  # built-ins too
    screenshot(page, "tools-mcp.png")


def test_an_mcp_server_added_on_settings_brings_its_tools(page: Page, studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    open_studio(page, f"{studio.url}/settings")
    # In a form the value is committed by the submit button, not by Enter.
    page.get_by_label("Add an MCP server").fill(f"{sys.executable} {TEST_SERVER} stdio")
    page.get_by_role("button", name="Add server").click()
    expect(page.get_by_text("Added for this session: MCP server")).to_be_visible(timeout=STARTING_MS)
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning")
    expect(page.get_by_role("code").filter(has_text=str(TEST_SERVER))).to_be_visible()
    screenshot(page, "settings-mcp.png")
    click(page.get_by_role("link", name="Tools"))  # in this session: the server is this session's
    expect(page.locator(".st-key-tools-card-greet")).to_contain_text("Say hello to someone, as plain text only.")



EVERYTHING = Path(__file__).resolve().parents[1] / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


@pytest.fixture
def everything_studio(tmp_path: Path):
    assert EVERYTHING.exists(), "run `npm ci --prefix tests/mcp`"
    yield from start_studio(tmp_path, PLAN_STUDIO_MCP=f"node {EVERYTHING} stdio", PLAN_STUDIO_MCP_TIMEOUT="30")


def test_server_everything_loads_and_tools_says_which_tool_it_skipped(page: Page, everything_studio) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{everything_studio.url}/tools")
    expect(page.locator(".st-key-tools-card-echo")).to_be_visible(timeout=STARTING_MS)
    open_studio(page, f"{everything_studio.url}/tools")
    expect(page.get_by_text(re.compile(r"Partly loaded: MCP server node .* tool 'simulate-research-query' "
                                       r"skipped: it only runs as an MCP task"))).to_be_visible()
    expect(page.get_by_text("Not loaded")).to_have_count(0)
    screenshot(page, "tools-mcp-everything.png")

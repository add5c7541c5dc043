"""A long run in real Chromium, with clicks while it runs: nothing is cut off or lost.

The plan has 100 steps of the demo tools and one more, ``wait_for_gate``, that waits until the
test opens a named pipe. The tool comes from a tool group installed for this test only (an
entry point on ``PYTHONPATH``, as a third-party group would be), so the run is certainly
still in progress while the test clicks, however fast the machine is.
"""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path
from typing import Iterator

import pytest
from browser_helpers import click, enter, graph, open_studio, screenshot
from playwright.sync_api import Page, expect

from conftest import Studio, start_studio

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
STEPS = 100  # long enough to be caught mid-run; core tests cover longer plans
GATE_AT = 50  # the gated step's position; the step after it uses its result

_GATE_GROUP = '''
from pathlib import Path

from typing_extensions import TypedDict

GATE = Path({fifo!r})


class Opened(TypedDict):
    label: str


def register(registry, settings):
    @registry.register(group="test")
    def wait_for_gate(label: str = "") -> Opened:
        """Wait until the browser test opens the gate (a named pipe).

        Args:
            label: Carried into the result.
        """
        GATE.read_text()
        return Opened(label=label)
'''


@pytest.fixture
def gated_studio(tmp_path: Path) -> Iterator[tuple[Studio, Path]]:
    """The studio with the ``wait_for_gate`` tool, and the pipe that opens the gate."""
    plugin, fifo = gate_plugin(tmp_path)
    studio = start_studio(tmp_path, PYTHONPATH=str(plugin))
    try:
        yield next(studio), fifo
    finally:
        _open_gate(fifo, missing_ok=True)  # never leave the studio's worker waiting
        studio.close()


def gate_plugin(tmp_path: Path) -> tuple[Path, Path]:
    """A tool group with ``wait_for_gate``, installed for one studio (its folder goes on
    ``PYTHONPATH``), and the named pipe that opens its gate."""
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    plugin = tmp_path / "plugin"
    info = plugin / "gate_tools-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gate-tools\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[plan_studio.tools]\ngate = gate_tools:register\n")
    (plugin / "gate_tools.py").write_text(_GATE_GROUP.format(fifo=str(fifo)))
    return plugin, fifo


def _open_gate(fifo: Path, *, missing_ok: bool = False) -> None:
    """Let ``wait_for_gate`` finish; fails if no step is waiting at the gate."""
    try:
        descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO and missing_ok:
            return
        raise AssertionError("no step is waiting at the gate") from exc
    try:
        os.write(descriptor, b"open\n")
    finally:
        os.close(descriptor)


def _long_plan() -> str:
    steps: list[dict] = []
    for n in range(STEPS + 1):
        if n == GATE_AT:
            steps.append({"tool": "wait_for_gate", "params": {"label": f"gate at {n}"}})
        elif n == GATE_AT + 1:
            steps.append({"tool": "say", "params": {"message": f"after ${{step[{GATE_AT}].label}}"}})
        elif n % 2:
            steps.append({"tool": "say", "params": {"message": f"step {n}"}})
        else:
            steps.append({"tool": "facilities_list", "params": {"location": "Berlin" if n % 4 else "Munich"}})
    # A chain: steps run as soon as the steps they need are done, so without it every step but
    # the one reading the gate would finish at once, and the run would not stop half done.
    for n, step in enumerate(steps):
        step["id"] = f"s{n}"
        step["depends_on"] = [f"s{n - 1}"] if n else []
    return json.dumps({"goal": "A long run", "steps": steps}, indent=1)


def test_save_during_a_long_run_keeps_the_run_and_saves_it(page: Page, gated_studio) -> None:
    studio, fifo = gated_studio
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    open_studio(page, studio.url)

    # A plan of 101 steps, typed into the JSON panel.
    enter(page.get_by_role("textbox", name="Goal"), "Get facilities in Berlin")
    click(page.get_by_role("button", name="Plan", exact=True))
    enter(page.get_by_role("textbox", name="Plan JSON"), _long_plan())
    graph(page, " ".join(["pending"] * (STEPS + 1)))
    click(page.get_by_role("button", name="Approve"))

    # Run all: the run stops at the gate, half done, and stays in progress.
    click(page.get_by_role("button", name="Run all"))
    expect(page.get_by_text(f"Step {GATE_AT} · wait_for_gate: running")).to_be_visible()
    expect(page.get_by_text(f"Running the plan: {GATE_AT} of {STEPS + 1} steps done")).to_be_visible()

    # Save while it runs: running stored the plan (a run is stored with its version), the run goes on.
    click(page.get_by_role("button", name="Save"))
    expect(page.get_by_text("No changes since version 1.")).to_be_visible()
    expect(page.get_by_text("The run in progress is stored as it goes, with the version it runs.")).to_be_visible()
    expect(page.get_by_text(f"Step {GATE_AT} · wait_for_gate: running")).to_be_visible()

    # Another Run all while it runs waits, saying why (the workbench refuses it too).
    expect(page.get_by_role("button", name="Run all")).to_be_disabled()
    expect(page.get_by_role("button", name="Run next step")).to_be_disabled()
    expect(page.get_by_text("A run is going on: watch it above; Stop or Cancel it there.")).to_be_visible()
    graph(page, " ".join(["succeeded"] * GATE_AT + ["running"] + ["pending"] * (STEPS - GATE_AT)))
    screenshot(page, "run-in-progress.png")
    page.set_viewport_size({"width": 1440, "height": 1000})

    # Open the gate: the run finishes on its own, every step succeeded, and is stored.
    _open_gate(fifo)
    finished = page.get_by_text(re.compile(rf"^Run \w+ · succeeded · {STEPS + 1} succeeded · saved with the plan$"))
    expect(finished).to_be_visible()
    # A long run draws its first results; the rest on request. The step after the gate got
    # the gate's output.
    click(page.get_by_text(f"Show all {STEPS + 1} step results"))
    expect(page.get_by_text(f"after gate at {GATE_AT}", exact=True)).to_be_visible()
    statuses = graph(page, " ".join(["succeeded"] * (STEPS + 1)))
    assert "running" not in statuses.get_attribute("data-statuses")
    screenshot(page, "run-saved-during-run.png")
    page.set_viewport_size({"width": 1440, "height": 1000})

    # The Library lists the plan with the one run, succeeded.
    click(page.get_by_role("link", name="Library"))
    card = page.locator("[class*=st-key-library-card]").filter(has_text="A long run")
    expect(card.get_by_text(re.compile(rf"{STEPS + 1} steps · 1 version · 1 run"))).to_be_visible()
    card.get_by_text("Versions and runs").click()  # an expander opens in the page: no rerun
    expect(card.get_by_text(re.compile(rf"· succeeded · {STEPS + 1} succeeded$"))).to_be_visible()

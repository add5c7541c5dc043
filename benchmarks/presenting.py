"""Click to drawn in a real browser: what presenting the studio costs (issue 29, item 7).

    .venv/bin/python benchmarks/presenting.py [--repeat 5] [--plans 1000] [--reviews 1000]

Seeds a data folder (``--plans`` saved plans, ``--reviews`` pending reviews), starts
``plan-studio`` on it offline, and drives Chromium through Playwright as a presenter would, each
journey in a browser context of its own. A figure runs from the click (or the address typed)
until the page's script run it caused has ended and is drawn (the tests' ``browser_helpers``
watch Streamlit's own messages for that), and what it waited for is on screen:

- first page of a started studio (the address it printed, to the Goal box drawn);
- goal -> graph (Plan pressed, to the graph drawn);
- Run all of that plan (to every node succeeded);
- a 300-step plan pasted into the Plan JSON (to its graph drawn), and Save of it;
- the Library with the saved plans (opened, then searched) and Reviews with the pending ones.

Prints each figure's median and slowest wall time. Figures, not assertions: compare them across
commits on the same machine, under the same load (run ``git stash`` / another checkout beside).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(_ROOT), str(_ROOT / "tests")]

from playwright.sync_api import Locator, Page, sync_playwright  # noqa: E402

from browser_helpers import click, enter, open_studio, reruns  # noqa: E402
from core import Settings, load_plan  # noqa: E402
from core.storage import PlanStore  # noqa: E402

GOAL = "Get contaminated shipments from Berlin facilities"
TODAY = "2025-10-12"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
_ADDRESS = re.compile(r"open (http://\S+token=\S+)")


def _chain(steps: int) -> str:
    """A plan of ``steps`` steps, each reading the one before: what a paste of a big plan is."""
    plan = {"goal": f"A chain of {steps}", "steps": [
        {"id": "s0", "tool": "facilities_list", "params": {"location": "Berlin"}},
        *({"id": f"s{n}", "tool": "say", "params": {"message": f"step {n} after ${{steps.s{n - 1}.message}}"
                                                     if n > 1 else "after the facilities"}}
          for n in range(1, steps))]}
    return json.dumps(plan, indent=1)


def _seed(data_dir: Path, plans: int, reviews: int) -> None:
    store = PlanStore(Settings(data_dir=data_dir).store_path)  # where the studio will look
    try:
        plan = load_plan(json.dumps({"goal": "g", "steps": [
            {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}}]}))
        for n in range(plans):
            store.save_plan(plan.model_copy(update={"goal": f"saved plan {n:04d} about facilities"}),
                            message=f"version of plan {n}")
        for n in range(reviews):
            store.submit_review(plan.model_copy(update={"goal": f"review {n:04d}"}), agent=f"bot-{n % 4}",
                                fmt="native", original_text="{}")
    finally:
        store.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The studio on ``folder``'s data, and the address (with its token) it printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
    env.update(PLAN_STUDIO_DATA_DIR=str(folder / "data"), PLAN_STUDIO_TODAY=TODAY,
               PLAN_STUDIO_APPROVE_WRITES="false")
    log = folder / "studio.log"
    with log.open("wb") as out:
        process = subprocess.Popen([str(Path(sys.executable).with_name("plan-studio")), "--port", str(_free_port())],
                                   cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while not (found := _ADDRESS.search(log.read_text(errors="replace"))):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the studio did not start:\n{log.read_text(errors='replace')}")
        time.sleep(0.05)
    return process, found.group(1)


def _server_seconds(pid: int) -> float:
    """CPU time the studio's process has used (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _timed(figures: dict[str, list[tuple[float, float]]], name: str, action: Callable[[], object], pid: int) -> None:
    """``action``'s wall time and the studio's CPU time over it, in ms."""
    began, cpu = time.perf_counter(), _server_seconds(pid)
    action()
    figures.setdefault(name, []).append(((time.perf_counter() - began) * 1000, (_server_seconds(pid) - cpu) * 1000))


def _paste(field: Locator, text: str) -> None:
    """Replace the field's text with ``text`` as a person pastes it (Ctrl+A, Ctrl+V), then apply
    it (Ctrl+Enter) and wait for the rerun. Playwright's ``fill`` types a many-line text into a
    text area line by line: 20 s or more for 300 steps on a plain page, where a paste takes
    under one."""
    page = field.page
    page.evaluate("text => navigator.clipboard.writeText(text)", text)
    field.focus()
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.press("ControlOrMeta+V")
    field.page.wait_for_function("([e, n]) => e.value.length === n", arg=[field.element_handle(), len(text)])
    with reruns(page):
        page.keyboard.press("ControlOrMeta+Enter")


def _journey(page: Page, address: str, figures: dict[str, list[tuple[float, float]]], big: str, pid: int, first: bool) -> None:
    def _timed_here(name: str, action: Callable[[], object]) -> None:
        _timed(figures, name, action, pid)

    drawn = page.locator("[data-testid=plan-graph][data-ready=true]")
    # The studio's first page ever is its own figure: the later ones find a warm server.
    _timed_here("first page (just started)" if first else "first page", lambda: open_studio(page, address))
    page.get_by_role("textbox", name="Goal").fill(GOAL)
    _timed_here("goal -> graph", lambda: (click(page.get_by_role("button", name="Plan", exact=True)),
                                              drawn.wait_for()))
    click(page.get_by_role("button", name="Approve"))
    everything_ran = page.locator("[data-testid=plan-graph][data-ready=true]"
                                  ":not([data-statuses*=pending]):not([data-statuses*=running])")
    _timed_here("Run all (2 steps)", lambda: (click(page.get_by_role("button", name="Run all")),
                                                  everything_ran.wait_for()))
    plan_json = page.get_by_role("textbox", name="Plan JSON")
    steps_300 = page.locator("[data-testid=plan-graph][data-ready=true][data-statuses^='pending pending']")
    _timed_here("300-step paste -> graph", lambda: (_paste(plan_json, big), steps_300.wait_for()))
    _timed_here("Save (300 steps)", lambda: (click(page.get_by_role("button", name="Save")),
                                                 page.get_by_text("Saved as version").first.wait_for()))
    library = page.get_by_role("link", name="Library")
    _timed_here("Library (open)", lambda: (click(library), page.get_by_role("textbox", name="Search").wait_for()))
    _timed_here("Library (search)", lambda: (enter(page.get_by_role("textbox", name="Search"), "plan 0999"),
                                                 page.get_by_text("saved plan 0999", exact=False).first.wait_for()))
    reviews = page.get_by_role("link", name=re.compile(r"^Reviews"))
    _timed_here("Reviews (open)", lambda: (click(reviews), page.locator("[class*=st-key-reviews-card-]").first.wait_for()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="journeys, each in a fresh browser context")
    parser.add_argument("--plans", type=int, default=1000)
    parser.add_argument("--reviews", type=int, default=1000)
    args = parser.parse_args()
    big = _chain(300)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        _seed(folder / "data", args.plans, args.reviews)
        process, address = _start(folder)
        figures: dict[str, list[tuple[float, float]]] = {}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                for journey in range(args.repeat):
                    context = browser.new_context(viewport={"width": 1280, "height": 800},
                                                  permissions=["clipboard-read", "clipboard-write"])
                    page = context.new_page()
                    page.set_default_timeout(120_000)
                    _journey(page, address, figures, big, process.pid, journey == 0)
                    context.close()
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=20)
    print(f"{args.plans:,} saved plans, {args.reviews:,} pending reviews, {args.repeat} journeys: wall ms "
          "(median, slowest) and the studio's CPU ms over it (median)")
    for figure, pairs in figures.items():
        walls = [wall for wall, _cpu in pairs]
        print(f"{figure:<28} median {statistics.median(walls):7.0f}   max {max(walls):7.0f}"
              f"   studio CPU {statistics.median(cpu for _wall, cpu in pairs):6.0f}")


if __name__ == "__main__":
    main()

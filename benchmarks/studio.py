"""Prints how fast the studio feels in a real browser: start, first page, plan drawn, run.

    .venv/bin/python benchmarks/studio.py [--repeat N]

Starts ``plan-studio`` offline on a free port with its own data folder and drives Debian's
Chromium with Playwright. Figures, not assertions: compare them across commits on the same
machine.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
GOAL = "Get failed inspections at landfills in Munich last month"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_healthy(url: str, process: subprocess.Popen) -> None:
    while True:
        if process.poll() is not None:
            raise SystemExit("the studio exited during start-up")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1):
                return
        except OSError:
            time.sleep(0.05)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="page journeys per figure")
    args = parser.parse_args()
    command = Path(sys.executable).with_name("plan-studio")
    with tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
        env.update(PLAN_STUDIO_DATA_DIR=folder, PLAN_STUDIO_TODAY="2025-10-12")
        start = time.perf_counter()
        process = subprocess.Popen([str(command), "--port", str(port)], env=env, cwd=folder,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_healthy(url, process)
            print(f"{'studio start to healthy':<34} {_ms(start):9.0f} ms")
            figures: dict[str, list[float]] = {"first page (Goal box shown)": [],
                                               "Plan to graph drawn": [], "Approve + Run all to done": []}
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                for _ in range(args.repeat):
                    page = browser.new_page(viewport={"width": 1440, "height": 1000})
                    start = time.perf_counter()
                    page.goto(url)
                    page.get_by_role("textbox", name="Goal").wait_for()
                    figures["first page (Goal box shown)"].append(_ms(start))
                    page.get_by_role("textbox", name="Goal").fill(GOAL)
                    start = time.perf_counter()
                    page.get_by_role("button", name="Plan", exact=True).click()
                    page.locator("[data-testid=plan-graph][data-ready=true]").wait_for()
                    figures["Plan to graph drawn"].append(_ms(start))
                    start = time.perf_counter()
                    page.get_by_role("button", name="Approve").click()
                    page.get_by_role("button", name="Run all").click()
                    page.get_by_text("Answer", exact=True).wait_for()
                    figures["Approve + Run all to done"].append(_ms(start))
                    page.close()
                browser.close()
            for name, values in figures.items():
                print(f"{name:<34} median {statistics.median(values):7.0f} ms   "
                      f"min {min(values):7.0f} ms   n={len(values)}")
        finally:
            process.terminate()
            process.wait(timeout=10)


if __name__ == "__main__":
    main()

"""Prints what the Plan JSON code editor costs on a big plan: the server's share (finding the
lines of problems, switching the form of references) and the browser's (drawing the lines in
view after a keystroke, with and without a bracket at the caret).

    .venv/bin/python benchmarks/json_editor.py [--steps 300] [--repeat 20] [--no-browser]

The browser part starts ``plan-studio`` offline on a free port and drives Debian's Chromium.
Figures, not assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import timed  # noqa: E402

from core import load_plan, text_with_ids, text_with_positions  # noqa: E402
from studio.ui._json_places import field_path, json_places  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
_START_LINE = re.compile(r"Plan Studio: open (http://127\.0\.0\.1:\d+/\?token=[\w-]+)")


def plan_text(steps: int) -> str:
    """A chain of facilities → shipments pairs, each reading the step before by id."""
    out = []
    for i in range(steps):
        step = ({"tool": "facilities_list", "params": {"location": "Berlin"}} if i % 2 == 0 else
                {"tool": "shipments_list", "params": {"facility_id": f"${{steps.s{i - 1}.data.*.id}}"}})
        out.append({"id": f"s{i}", **step, "depends_on": [f"s{i - 1}"] if i else []})
    return json.dumps({"goal": f"{steps} steps", "steps": out}, indent=2)


def server_side(text: str, steps: int, repeat: int) -> None:
    plan = load_plan(text, "native")
    ids = [s.id for s in plan.steps]
    print(f"-- server, {steps} steps, {len(text):,} characters, {text.count(chr(10)) + 1:,} lines")
    timed("places of the text (one scan)", lambda: json_places(text), repeat)
    places = json_places(text)
    timed(f"{steps} problems found on their line", lambda: [places.find(field_path(n, "params.location"))
                                                            for n in range(steps)], repeat)
    timed("references by position + check", lambda: load_plan(text_with_positions(text, ids), "native") == plan, repeat)
    timed("references by id, nothing to do", lambda: text_with_ids(text, ids), repeat)


def _start(folder: str) -> tuple[subprocess.Popen, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
    env.update(PLAN_STUDIO_DATA_DIR=folder, PLAN_STUDIO_TODAY="2025-10-12")
    log = Path(folder) / "studio.log"
    with log.open("wb") as out:
        process = subprocess.Popen([str(Path(sys.executable).with_name("plan-studio")), "--port", str(port)],
                                   env=env, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = _START_LINE.search(log.read_text(errors="replace"))
        if found:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1):
                    return process, found.group(1)
            except OSError:
                pass
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.terminate()
    raise SystemExit(f"the studio did not start:\n{log.read_text(errors='replace')}")


# Times ``draw()`` of the editor (what a keystroke, a scroll or a caret move costs), with the
# caret after ``at`` and the lines around it in view.
_DRAW = """([at, repeat]) => {
  const ta = document.querySelector('.st-key-plan-json textarea');
  const view = ta.__psCode;
  const offset = ta.value.indexOf(at) + at.length;
  ta.focus();
  ta.setSelectionRange(offset, offset);
  ta.scrollTop = Math.max(0, (ta.value.slice(0, offset).split('\\n').length - 5) * 20);
  view.text = null;  // as after a keystroke: the text is read afresh
  const samples = [];
  for (let i = 0; i < repeat; i++) {
    view.text = null; view.pairs = null;
    const start = performance.now();
    view.draw();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return [samples[samples.length >> 1], samples[samples.length - 1]];
}"""


_PASTE = """(el, text) => {
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set.call(el, text);
  el.dispatchEvent(new Event("input", { bubbles: true }));
}"""


def browser_side(text: str, steps: int, repeat: int) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        process, url = _start(folder)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(url)
                page.get_by_role("button", name="Start an empty plan").click()
                field = page.get_by_role("textbox", name="Plan JSON")
                # fill() types a 300-step text into Streamlit's text area for over a minute here
                # (with or without the editor): set it as a paste would, in one input event.
                field.evaluate(_PASTE, text)
                field.press("Control+Enter")
                page.locator("[data-testid=plan-graph][data-ready=true]").wait_for(timeout=120_000)
                page.wait_for_function("() => document.querySelector('.st-key-plan-json textarea')?.__psCode")
                print(f"-- browser (Chromium), {steps} steps in the editor")
                middle = f'"id": "s{steps // 2}"'
                for label, at in (("draw, caret in text", middle),
                                  ("draw, caret on a bracket (matched)", middle + ',\n      "tool": "facilities_list",\n      "params": {')):
                    median, worst = page.evaluate(_DRAW, [at, repeat])
                    print(f"{label:<34} median {median:8.3f} ms   max {worst:8.3f} ms   n={repeat}")
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    text = plan_text(args.steps)
    server_side(text, args.steps, args.repeat)
    if not args.no_browser:
        browser_side(text, args.steps, args.repeat)


if __name__ == "__main__":
    main()

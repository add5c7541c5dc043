"""Prints how long each edit of the plan editor takes on a 50-step plan: the server's round trip
(the edit's callback and the page's rerun that draws the graph, inspector and JSON again).

    .venv/bin/python benchmarks/editor.py [--repeat N] [--steps 50]

The server side runs the Plan page in Streamlit's AppTest (no browser, no network): each figure
is one edit plus its rerun, the median of N. The target is 300 ms per edit. Figures, not
assertions: compare them across commits on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from studio import Keys  # noqa: E402

APP = ROOT / "studio" / "app.py"


def plan_text(steps: int) -> str:
    """A chain of facilities → shipments pairs, each step after the one before."""
    out = []
    for i in range(steps):
        step = ({"tool": "facilities_list", "params": {"location": "Berlin"}} if i % 2 == 0 else
                {"tool": "shipments_list", "params": {"facility_id": f"${{step[{i - 1}].data.*.id}}"}})
        out.append({"id": f"s{i}", **step, "depends_on": [f"s{i - 1}"] if i else []})
    return json.dumps({"goal": f"{steps} steps", "steps": out}, indent=1)


def field(app: AppTest, step_id: str, name: str) -> str:
    return f"{Keys.EDITOR_FIELD_PREFIX}{step_id}.{name}.{app.session_state[Keys.EDITOR_REVISION]}"


def timed(app: AppTest, edit: Callable[[AppTest], object]) -> float:
    start = time.perf_counter()
    edit(app)
    elapsed = (time.perf_counter() - start) * 1000
    assert not app.exception, [e.value for e in app.exception]
    return elapsed


def server_side(steps: int, repeat: int) -> dict[str, list[float]]:
    os.environ["PLAN_STUDIO_DATA_DIR"] = tempfile.mkdtemp(prefix="editor-bench-")
    os.environ["PLAN_STUDIO_TODAY"] = "2025-10-12"
    app = AppTest.from_file(str(APP), default_timeout=120).run()
    app.button(key="editor.empty").click().run()
    app.text_area(key=Keys.JSON).input(plan_text(steps)).run()
    assert len(app.session_state[Keys.PLAN].steps) == steps and not app.error, [e.value for e in app.error]
    middle = f"s{steps // 2}"
    edits: dict[str, Callable[[AppTest], object]] = {
        "select a step": lambda a: (a.session_state.__setitem__(Keys.EDITOR_SELECTED, middle), a.run()),
        "set a param (form)": lambda a: a.text_input(key=field(a, middle, "location") if int(middle[1:]) % 2 == 0
                                                  else field(a, middle, "carrier")).input(
            f"X{time.perf_counter_ns() % 10_000}").run(),
        "duplicate": lambda a: a.button(key="editor.duplicate").click().run(),
        "undo": lambda a: a.button(key="editor.undo").click().run(),
        "redo": lambda a: a.button(key="editor.redo").click().run(),
        "add step": lambda a: (a.button(key="editor.add").click().run(),
                               a.selectbox(key=Keys.EDITOR_TOOL).set_value("say"),
                               a.button(key="editor.picker.add").click().run()),
        "delete step (no dependents)": lambda a: a.button(key="editor.delete_step").click().run(),
    }
    times: dict[str, list[float]] = {name: [] for name in edits}
    for _ in range(repeat):
        for name, edit in edits.items():
            if name == "delete step (no dependents)":
                # the step "add step" just made, selected: nothing depends on it
                assert app.session_state[Keys.PLAN].step(app.session_state[Keys.EDITOR_SELECTED]).tool == "say"
            if name == "duplicate":
                app.session_state[Keys.EDITOR_SELECTED] = middle
            times[name].append(timed(app, edit))
    return times


def report(title: str, times: dict[str, list[float]]) -> None:
    print(title)
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<30} {median:7.1f}   (max {max(values):.1f}){'  OVER TARGET' if median > 300 else ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    report(f"Server round trip per edit on a {args.steps}-step plan (median of {args.repeat}, ms; target 300):",
           server_side(args.steps, args.repeat))


if __name__ == "__main__":
    main()

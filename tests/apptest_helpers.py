"""Driving the studio through Streamlit's AppTest: where the app is, and the steps tests repeat.

The ``app`` fixture (the Plan page, offline, today pinned, its own data folder) is in
``conftest.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core import Plan
from studio import Keys

APP = Path(__file__).resolve().parents[1] / "studio" / "app.py"
# Relative to the entry script, as AppTest wants.
PLAN = "../pages/plan.py"
LIBRARY = "../pages/library.py"
GOAL = "Get contaminated shipments from Berlin facilities"


def no_failures(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def make_plan(at: AppTest, goal: str = GOAL) -> Plan:
    at.text_input(key=Keys.GOAL).input(goal)
    at.button(key="plan.make").click().run()
    no_failures(at)
    return at.session_state[Keys.BENCH].plan


def edit_json(at: AppTest, text: str) -> None:
    at.text_area(key=Keys.JSON).input(text).run()
    no_failures(at)


def texts(at: AppTest) -> str:
    """Everything the page says, as one string, markdown escapes removed."""
    parts = [e.value for kind in ("markdown", "caption", "error", "warning", "success", "info")
             for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts).replace("\\", "")


def plan_text(steps: list[dict], goal: str = "edited") -> str:
    return json.dumps({"goal": goal, "steps": steps}, indent=2)


def import_text(at: AppTest, fmt: str, text: str) -> None:
    at.selectbox(key=Keys.IMPORT_FORMAT).set_value(fmt)
    at.text_area(key=Keys.IMPORT_TEXT).input(text)
    at.button(key="plan.import").click().run()
    no_failures(at)


def run_plan(at: AppTest, kind: str = "all") -> None:
    """Press "Run all" (``kind="all"``) or "Run next step" (``"next"``), wait for the background
    worker carrying out the run, and let the page collect it, as its progress view would."""
    at.button(key=f"plan.run_{kind}").click().run()
    no_failures(at)
    worker = at.session_state[Keys.BENCH].worker
    if worker is not None:
        assert worker.join(60), "the run did not finish"
        at.run()
        no_failures(at)

"""Counts how many times a JSON-panel edit of an approved plan dumps whole plans to JSON: what
approval and "saved?" cost per edit (they compare plans' content identities, core.plan._identity).

    .venv/bin/python benchmarks/plan_dumps.py

Figures, not assertions (tests/ui/test_studio_identity.py holds the rule: once per plan object).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAN_STUDIO_PLANNER", "PLAN_STUDIO_DB"):
    os.environ.pop(name, None)
os.environ.update(PLAN_STUDIO_DATA_DIR=str(Path(tempfile.mkdtemp()) / "data"), PLAN_STUDIO_TODAY="2025-10-12")

from streamlit.testing.v1 import AppTest  # noqa: E402

from apptest_helpers import edit_json, make_plan  # noqa: E402
from conftest import APP_SCRIPT  # noqa: E402
from core import Plan  # noqa: E402
from studio import Keys  # noqa: E402


def main() -> None:
    app = AppTest.from_file(str(APP_SCRIPT), default_timeout=60).run()
    make_plan(app)
    app.button(key="plan.approve").click().run()
    counted: Counter[int] = Counter()
    real = Plan.model_dump_json

    def counting(self: Plan, *args: Any, **kwargs: Any) -> str:
        counted[id(self)] += 1
        return real(self, *args, **kwargs)

    Plan.model_dump_json = counting  # type: ignore[method-assign]
    edit_json(app, app.session_state[Keys.JSON].replace('"Berlin"', '"Hamburg"'))
    print(f"one JSON-panel edit: {sum(counted.values())} whole-plan JSON dumps over {len(counted)} plan objects")


if __name__ == "__main__":
    main()

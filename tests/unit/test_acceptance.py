"""Every goal of the acceptance file through the embedded planner, compared in seed form."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from core import Settings, Validator
from core.formats import plan_to_seed
from core.planners import EmbeddedPlanner
from tools import build_registry

CASES_FILE = Path(__file__).resolve().parents[2] / "docs" / "acceptance" / "seed_examples.json"
ACCEPTANCE = json.loads(CASES_FILE.read_text(encoding="utf-8"))
TODAY = dt.date.fromisoformat(ACCEPTANCE["today"])


def comparable(seed: dict[str, Any]) -> list[dict[str, Any]]:
    """Seed steps as compared: ``limit: 100`` is the default, so it counts as absent."""
    return [{
        "tool": s["tool"],
        "params": {k: v for k, v in s["params"].items() if not (k == "limit" and v == 100)},
        "depends_on": sorted(s.get("depends_on", [])),
        "parallel": bool(s.get("parallel", False)),
    } for s in seed["steps"]]


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(data_dir=tmp_path_factory.mktemp("acceptance"), today=TODAY)
    return build_registry(settings, groups=["waste"])


def test_the_file_holds_the_seventeen_cases() -> None:
    assert len(ACCEPTANCE["cases"]) == 17


@pytest.mark.parametrize("case", ACCEPTANCE["cases"], ids=[c["goal"] for c in ACCEPTANCE["cases"]])
def test_embedded_planner_matches_the_acceptance_plan(case: dict[str, Any], registry) -> None:
    plan = EmbeddedPlanner(registry).plan(case["goal"], today=TODAY)
    assert comparable(plan_to_seed(plan)) == comparable(case["plan"])
    assert plan.goal == case["goal"]
    assert plan.metadata.planner == "embedded"
    assert plan.metadata.today == TODAY
    assert [s.id for s in plan.steps] == [f"s{n + 1}" for n in range(len(plan.steps))]
    assert Validator(registry).errors(plan) == []

"""Goals the embedded planner cannot fully read say so: the words the plan does not use.

The rule (``core/planners/embedded/_unread.py``): a word counts as used when a rule of the
parser read it and a step of the plan takes what it read; padding and function words never
count. Expected words were chosen by that rule, not read off the planner's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import Settings, ToolRegistry, dump_plan, load_plan
from core.planners import EmbeddedPlanner, PlanContext, unread_notice
from core.storage import PlanStore
from tools import build_registry

from planner_cases import T
from test_embedded_planner import EXTRA_GOALS
from test_unseen_goals import GOALS as UNSEEN_GOALS

ACCEPTANCE = json.loads((Path(__file__).resolve().parents[2] / "docs" / "acceptance" / "seed_examples.json")
                        .read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def planner(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedPlanner:
    registry: ToolRegistry = build_registry(Settings(data_dir=tmp_path_factory.mktemp("unread"), today=T),
                                            groups=["waste"])
    return EmbeddedPlanner(registry)


def unread(planner: EmbeddedPlanner, goal: str) -> list[str] | None:
    return getattr(planner.plan(goal, today=T).metadata, "unread_words", None)


@pytest.mark.parametrize("goal, words", [
    ("What's the weather in Berlin?", ["weather"]),
    ("What's the weather like in Berlin today?", ["weather", "today"]),  # facilities have no dates
    ("Give me a summary of shipments going to Berlin", ["summary"]),
    ("Get all recycling plants sorted by capacity", ["sorted"]),
    ("List shipments by weight over 500 kg", ["weight over 500 kg"]),
    ("facilities from last week", ["last week"]),
    ("top 5 shipments, first 10", ["first 10"]),  # one step takes one limit
    ("List inspections done by inspector Mueller", ["inspector Mueller"]),
    ("shipments to Berlin with a delay, please", ["delay"]),
    # (issue 18: "then email the report to Anna" asks for a change, and is refused instead)
    ("Get rejected shipments and their contaminants, then summarize the report for Anna",
     ["summarize the report for Anna"]),
    ("Which carriers have the highest contamination rates?", ["highest", "rates"]),
])
def test_words_the_plan_does_not_use_are_named(planner: EmbeddedPlanner, goal: str, words: list[str]) -> None:
    assert unread(planner, goal) == words


def test_the_notice_quotes_each_phrase(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("List inspections done by inspector Mueller, sorted", today=T)
    assert unread_notice(plan) == "Not used from the goal: \u201cinspector Mueller\u201d, \u201csorted\u201d"


ALL_READ = [goal for goal, _ in UNSEEN_GOALS + EXTRA_GOALS] + [
    c["goal"] for c in ACCEPTANCE["cases"] if "highest" not in c["goal"]] + [
    "Please show me the shipments that are currently pending in Hamburg",
    "Could you list any failed inspections at landfills for me?",
    "I would like to see which facilities in Munich are near capacity",
    "Get shipments, facilities, and inspections from last month",  # facilities do without the dates
]


@pytest.mark.parametrize("goal", ALL_READ)
def test_a_goal_whose_every_word_is_used_has_no_notice(planner: EmbeddedPlanner, goal: str) -> None:
    plan = planner.plan(goal, today=T)
    assert unread_notice(plan) is None
    assert "unread_words" not in plan.metadata.model_dump()


def test_the_unread_words_survive_export_save_and_load(planner: EmbeddedPlanner, tmp_path: Path) -> None:
    plan = planner.plan("What's the weather in Berlin?", today=T)
    for fmt in ("native", "seed"):
        again = load_plan(dump_plan(plan, fmt), fmt)
        assert unread_notice(again) == "Not used from the goal: \u201cweather\u201d"
    store = PlanStore(tmp_path / "plans.sqlite3")
    saved = store.save_plan(plan)
    assert store.load_plan(saved.plan_id).metadata.model_dump()["unread_words"] == ["weather"]


def test_a_re_plan_and_a_follow_up_read_every_word_so_they_carry_no_notice(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("What's the weather in Berlin?", today=T)
    assert unread_notice(planner.replan(plan, "use Munich instead", today=T)) is None
    follow = planner.plan("and for Hamburg?", today=T, context=PlanContext(plan.goal, plan))
    assert follow.steps[0].params == {"location": "Hamburg"}
    assert unread_notice(follow) is None

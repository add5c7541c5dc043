"""A store parses a stored plan's JSON once and shares the plan (a value) with every later reader
of the same text; saving hands on the plan it was given instead of reading back what it wrote
(docs/decisions/0003-the-plan-is-a-value.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import Executor, Plan, PlanError, Step, StorageError, ToolRegistry
from core.storage import PlanStore
from core.storage._values import ReadPlans

import core.storage._values as values


def _plan(goal: str = "say it") -> Plan:
    return Plan(goal=goal, steps=[Step(id="a", tool="say", params={"message": "hi"})])


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = values.parse_plan

    def counting(text: str, where: str, path):
        seen.append(where)
        return real(text, where, path)

    monkeypatch.setattr(values, "parse_plan", counting)
    return seen


def test_saving_returns_the_plan_given_and_reads_nothing_back(tmp_path: Path, parses: list[str]) -> None:
    store = PlanStore(tmp_path / "s.sqlite3")
    plan = _plan()
    saved = store.save_plan(plan)
    assert saved.plan is plan and parses == []


def test_loads_of_one_stored_text_parse_it_once_and_share_the_plan(tmp_path: Path, parses: list[str]) -> None:
    store = PlanStore(tmp_path / "s.sqlite3")
    saved = store.save_plan(_plan())
    registry = ToolRegistry()

    @registry.register
    def say(message: str) -> dict:
        """Say it.

        Args:
            message: What to say.
        """
        return {"said": message}

    run = Executor(registry).execute(saved.plan)
    store.save_run(run, plan_id=saved.plan_id, version=saved.version)
    first = store.load_plan(saved.plan_id)
    assert store.load_plan(saved.plan_id, 1) is first
    assert store.load_run(run.id).plan is first and store.load_run(run.id).plan is first
    assert len(parses) == 1 and first == saved.plan
    second = store.save_plan(_plan("another goal"), plan_id=saved.plan_id)
    assert store.load_plan(saved.plan_id, second.version).goal == "another goal" and len(parses) == 2


def test_the_shared_plans_are_bounded_and_unreadable_text_is_never_kept() -> None:
    read = ReadPlans(size=2, longest=10_000)
    texts = [_plan(f"goal {n}").model_dump_json() for n in range(3)]
    plans = [read(t, "plan", "here") for t in texts]
    assert read(texts[2], "plan", "here") is plans[2] and read(texts[1], "plan", "here") is plans[1]
    assert read(texts[0], "plan", "here") is not plans[0]  # the oldest went when a third came
    with pytest.raises(StorageError, match="plan in here is unreadable"):
        read('{"goal": 1}', "plan", "here")
    long = _plan("x" * 20_000).model_dump_json()
    assert read(long, "plan", "here") is not read(long, "plan", "here")  # too long to keep


def test_a_plan_past_a_bound_is_still_refused_before_anything_is_written(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / "s.sqlite3")
    # model_copy makes plans without validating them: the store checks the bounds itself.
    bad = _plan().model_copy(update={"steps": [Step(id="a", tool="say", params={"message": "\ud800"})]})
    with pytest.raises(PlanError, match="step 0"):
        store.save_plan(bad)
    assert store.list_plans() == []

"""Every service the studio and the CLI share, built from settings as they build them.

``Services.store`` once raised NameError (its class was imported for type checking only) and
nothing called it; each service is exercised here on a real SQLite file.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from core import Executor, Plan, PlannerUnavailable, Settings, Step, ToolRegistry, Validator
from core.planners import Planner
from core.storage import PlanStore
from studio.workbench._services import Services, build_services

TODAY = dt.date(2025, 10, 12)


@pytest.fixture
def services(tmp_path: Path) -> Services:
    return build_services(Settings(data_dir=tmp_path / "data", today=TODAY))


def test_the_store_opens_on_first_use_and_keeps_plans_in_the_settings_file(services: Services) -> None:
    store = services.store
    assert isinstance(store, PlanStore)
    assert services.store is store  # opened once
    saved = store.save_plan(Plan(goal="g", steps=[Step(tool="facilities_list", params={})]))
    assert services.settings.store_path.exists()
    reopened = PlanStore(services.settings.store_path)
    assert reopened.load_plan(saved.plan_id, saved.version).goal == "g"


def test_a_shared_store_is_used_as_it_is(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / "shared.sqlite3")
    services = build_services(Settings(data_dir=tmp_path / "data", today=TODAY), store=store)
    assert services.store is store


def test_registry_validator_and_executor_work_on_the_installed_tools(services: Services) -> None:
    assert isinstance(services.registry, ToolRegistry) and "facilities_list" in services.registry
    plan = Plan(goal="g", steps=[Step(tool="facilities_list", params={"location": "Berlin"})])
    assert isinstance(services.validator, Validator) and services.validator.errors(plan) == []
    assert isinstance(services.executor, Executor)
    run = services.executor.execute(plan)
    assert run.status == "succeeded"


def test_the_embedded_planner_is_built_and_named(services: Services) -> None:
    assert isinstance(services.planner, Planner)
    assert services.planner_name == "embedded"
    plan = services.planner.plan("Get facilities in Berlin", today=TODAY)
    assert [s.tool for s in plan.steps] == ["facilities_list"]


def test_the_llm_planner_without_a_model_says_so_when_it_plans(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    services = build_services(Settings(data_dir=tmp_path / "data", planner="llm"))
    assert services.planner_name == "llm"
    with pytest.raises(PlannerUnavailable, match="No model configured"):
        services.planner.plan("Get facilities in Berlin", today=TODAY)
    # Everything else still works without a planner.
    assert services.validator.errors(Plan(goal="g", steps=[Step(tool="facilities_list")])) == []
    assert services.store.list_plans() == []

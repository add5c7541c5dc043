"""Plugins from installed packages (core/hooks.py): one adds a planner, used through the
workbench and the command line; one logs every step of a run, from the Python API and a
durable run from the Plan page's path. Each is a real distribution in a temp folder
(``plugin_helpers.install``), found by importlib.metadata like any installed package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from core import Executor, Settings, ToolDefinitionError, dump_plan, hooks
from core.formats import plan_from_seed
from plugin_helpers import PARROT_PLANNER, STEP_LOGGER, install, installed  # noqa: F401 (a fixture)
from studio import workbench as wb
from studio.workbench._services import build_services
from tools import build_registry, load_tools
from workbench_helpers import GOAL, TODAY, demo_services

ROOT = Path(__file__).resolve().parents[2]


def parrot_site(tmp_path: Path) -> Path:
    return install(tmp_path / "site", "parrot-planner", {"plan_studio": {"parrot": "parrot_planner"}},
                   {"parrot_planner.py": PARROT_PLANNER})


def logger_site(tmp_path: Path) -> Path:
    return install(tmp_path / "site", "step-logger", {"plan_studio": {"step_logger": "step_logger"}},
                   {"step_logger.py": STEP_LOGGER})


def test_an_installed_planner_plans_a_goal_through_the_workbench(tmp_path, installed):
    installed(parrot_site(tmp_path))
    services = build_services(Settings(data_dir=tmp_path / "data", today=TODAY, planner="parrot"))
    bench = wb.Workbench()
    assert wb.plan_goal(bench, services, "groceries").ok
    assert [(s.tool, s.params) for s in bench.plan.steps] == [("createList", {"list": "groceries"})]
    assert services.planner_name == "parrot"


def test_a_planner_name_nobody_registered_is_refused_naming_the_known_ones(tmp_path, installed):
    installed(parrot_site(tmp_path))
    with pytest.raises(ValidationError, match="no planner is named 'parot'; the planners are: embedded, llm, parrot"):
        Settings(data_dir=tmp_path, planner="parot")


def _cli(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, "-c", "from studio.cli._main import main; raise SystemExit(main())",
                           *argv], capture_output=True, text=True, env=env, timeout=120)


def test_an_installed_planner_plans_a_goal_from_the_command_line(tmp_path):
    site = parrot_site(tmp_path)
    done = _cli(site, "plan", "groceries", "--planner", "parrot", "--data-dir", str(tmp_path / "data"))
    assert done.returncode == 0, done.stderr
    assert [s["tool"] for s in json.loads(done.stdout)["steps"]] == ["createList"]
    refused = _cli(site, "plan", "groceries", "--planner", "parot", "--data-dir", str(tmp_path / "data"))
    assert refused.returncode == 2
    assert "invalid choice: 'parot' (choose from 'embedded', 'llm', 'parrot')" in refused.stderr


def _log(path: Path) -> list[str]:
    return path.read_text().splitlines()


def _steps_logged(lines: list[str], run_id: str, step_ids: list[str]) -> None:
    """Every step of the run started, then ended (succeeded), and the run finished last."""
    for step_id in step_ids:
        start = lines.index(f"start {run_id} {step_id} attempt 1")
        assert lines.index(f"end {run_id} {step_id} succeeded") > start
    assert lines[-1] == f"run {run_id} finished"


def test_an_installed_observer_logs_every_step_of_a_run_from_the_python_api(tmp_path, installed, monkeypatch):
    monkeypatch.setenv("STEP_LOG", str(tmp_path / "steps.log"))
    installed(logger_site(tmp_path))
    registry = build_registry(Settings(data_dir=tmp_path, today=TODAY))
    plan = plan_from_seed([{"tool": "createList", "params": {"list": "a"}},
                           {"tool": "addItem", "params": {"list": "a", "item": "milk"}, "depends_on": [0]},
                           {"tool": "showList", "params": {"list": "a"}, "depends_on": [1]}], goal="shopping")
    run = Executor(registry).execute(plan)
    lines = _log(tmp_path / "steps.log")
    _steps_logged(lines, run.id, [s.id for s in plan.steps])
    assert len(lines) == 7  # 3 starts, 3 ends, the run's end


def test_an_installed_observer_sees_a_plan_made_approved_and_run_durably_from_the_plan_page(
        tmp_path, installed, monkeypatch):
    monkeypatch.setenv("STEP_LOG", str(tmp_path / "steps.log"))
    installed(logger_site(tmp_path))
    services = demo_services(tmp_path)
    bench = wb.Workbench()
    assert wb.plan_goal(bench, services, GOAL).ok
    assert wb.approve(bench, services.validator).ok
    assert wb.request_run(bench, services, "all").ok
    assert bench.worker is not None and bench.worker.join(timeout=120)
    run_id = bench.worker.progress().run_id
    assert wb.collect_finished_run(bench, lambda: services.store).ok
    assert services.store.load_run(run_id).steps  # a durable run: it is in the store
    lines = _log(tmp_path / "steps.log")
    assert lines[:2] == [f"plan by embedded: {len(bench.plan.steps)} steps", f"approved {GOAL} review None"]
    _steps_logged(lines, run_id, [s.id for s in bench.plan.steps])


def test_an_installed_tool_group_cannot_take_a_built_in_ones_name(tmp_path, installed):
    site = install(tmp_path / "site", "impostor-tools", {"plan_studio.tools": {"waste": "impostor_tools:register"}},
                   {"impostor_tools.py": "def register(registry, settings):\n    raise AssertionError('never loaded')\n"})
    installed(site)
    with pytest.raises(ToolDefinitionError, match="tool group 'waste' from 'impostor_tools:register' refused"):
        build_registry(Settings(data_dir=tmp_path))
    registry, problems = load_tools(Settings(data_dir=tmp_path))
    assert problems == ["tool group 'waste' from 'impostor_tools:register' refused: 'tools.waste:register' "
                        "already has that name (entry point group plan_studio.tools)"]
    assert registry.get("facilities_list").group == "waste"  # the built-in, not replaced


def test_an_installed_plugin_that_does_not_load_is_one_problem_line(tmp_path, installed):
    site = install(tmp_path / "site", "broken-plugin", {"plan_studio": {"broken": "broken_plugin_xyz"}}, {})
    installed(site)
    assert "plugin 'broken' from 'broken_plugin_xyz' cannot be loaded: No module named 'broken_plugin_xyz'" \
        in hooks.load_problems()
    registry, problems = load_tools(Settings(data_dir=tmp_path))
    assert "facilities_list" in registry and any("broken_plugin_xyz" in p for p in problems)


def test_an_installed_observer_hears_of_a_review_approved(tmp_path, installed, monkeypatch):
    monkeypatch.setenv("STEP_LOG", str(tmp_path / "steps.log"))
    installed(logger_site(tmp_path))
    services = demo_services(tmp_path)
    plan = plan_from_seed([{"tool": "showList", "params": {"list": "a"}}], goal="a review")
    review = wb.submit_review(services, {"plan": dump_plan(plan, "native"), "format": "native", "agent": "bot"})
    bench = wb.Workbench()
    assert wb.open_review(bench, services.store, review.id).ok
    assert wb.decide_review(bench, services.store, review.id, approve=True, validator=lambda: services.validator).ok
    assert _log(tmp_path / "steps.log") == [f"approved a review review {review.id}"]

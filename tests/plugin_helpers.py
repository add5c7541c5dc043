"""Plugins installed for a test: a real distribution in a folder (its modules, and a
``*.dist-info`` with METADATA and entry_points.txt, as pip leaves one), which importlib.metadata
finds once the folder is on ``sys.path`` (this process) or ``PYTHONPATH`` (a child process)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

from core import hooks

__all__ = ["install", "installed", "PARROT_PLANNER", "STEP_LOGGER"]


def install(site: Path, dist: str, entry_points: dict[str, dict[str, str]], modules: dict[str, str]) -> Path:
    """``dist`` installed in ``site``: ``modules`` (file name to source) and its dist-info."""
    info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items()) + "\n"
        for group, points in entry_points.items()))
    for name, source in modules.items():
        (site / name).write_text(source)
    return site


@pytest.fixture
def installed() -> Iterator[Callable[[Path], None]]:
    """``installed(site)``: ``site`` on this process's path and its plugins registered; they are
    unregistered, and their modules forgotten, after the test."""
    before = {name for name, _plugin in hooks.plugin_manager().list_name_plugin()}
    modules = set(sys.modules)
    sites: list[str] = []

    def add(site: Path) -> None:
        sites.append(str(site))
        sys.path.insert(0, str(site))
        importlib.invalidate_caches()
        hooks.load_entry_points()

    yield add
    for name, _plugin in hooks.plugin_manager().list_name_plugin():
        if name not in before:
            hooks.unregister(name)
    for site in sites:
        sys.path.remove(site)
    for name in set(sys.modules) - modules:
        if getattr(sys.modules[name], "__file__", None) and sys.modules[name].__file__.startswith(tuple(sites)):
            del sys.modules[name]
    importlib.invalidate_caches()
    hooks.load_entry_points()  # the uninstalled plugins' problems go with them


# A planner plugin: plans any goal as one step that shows a list named after the goal.
PARROT_PLANNER = '''
from core import hookimpl
from core.formats import plan_from_seed
from core.planners import PlannerSpec


class Parrot:
    name = "parrot"

    def plan(self, goal, *, today, context=None):
        return plan_from_seed([{"tool": "createList", "params": {"list": goal[:40]}}], goal=goal)

    def replan(self, plan, feedback, *, today):
        return plan


@hookimpl
def planners():
    return [PlannerSpec("parrot", "Parrot (a test plugin)", lambda settings, registry, client: Parrot())]
'''

# An observer plugin: writes every step's start and end, and each run's end, to the file
# STEP_LOG names (a file, so a child process or a worker's thread writes it the same way).
STEP_LOGGER = '''
import os

from core import hookimpl


def _write(line):
    with open(os.environ["STEP_LOG"], "a", encoding="utf-8") as log:
        log.write(line + "\\n")


@hookimpl
def step_about_to_run(run, step_id, attempt):
    _write(f"start {run.id} {step_id} attempt {attempt.number}")


@hookimpl
def step_done(run, step_id):
    _write(f"end {run.id} {step_id} {run.steps[step_id].status.value}")


@hookimpl
def run_done(run, reason):
    _write(f"run {run.id} {reason}")


@hookimpl
def plan_created(plan, planner):
    _write(f"plan by {planner}: {len(plan.steps)} steps")


@hookimpl
def plan_approved(plan, review_id):
    _write(f"approved {plan.goal} review {review_id}")
'''

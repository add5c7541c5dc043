"""core/hooks.py: the built-ins go through the same hooks as plugins; a plugin's format, plan
check, tool words and planner are used like the built-in ones; observers are told, and one that
raises is logged once, naming it, while the run goes on."""

from __future__ import annotations

import logging

import pytest

from core import (Executor, PlanFormat, PlannerError, Problem, Settings, ToolWords, Validator, hookimpl, hooks,
                  load_plan)
from core.formats import FORMATS, plan_from_seed
from core.planners import make_planner
from tools import build_registry

SETTINGS = Settings(data_dir="/nonexistent-plan-studio-test", today="2025-10-12")


@pytest.fixture
def plugin():
    """``plugin(obj)``: registered for this test only."""
    names: list[str] = []

    def add(obj: object) -> object:
        names.append(hooks.register(obj, f"test-plugin-{len(names)}"))
        return obj

    yield add
    for name in names:
        hooks.unregister(name)


def _plan():
    return plan_from_seed([{"tool": "createList", "params": {"list": "a"}},
                           {"tool": "showList", "params": {"list": "a"}, "depends_on": [0]}], goal="lists")


def test_the_built_ins_are_plugins_like_any_other():
    names = {name for name, _ in hooks.plugin_manager().list_name_plugin()}
    assert {"core.formats._plugin", "core.planners._plugin", "builtin_tools"} <= names
    assert list(FORMATS)[:2] == ["native", "seed"] and list(hooks.planners())[:2] == ["embedded", "llm"]
    assert {"waste", "lists", "writer", "conversation"} <= {name for name, _target, _p in hooks.tool_groups()}


def test_a_plugins_format_reads_and_its_checks_run(plugin):
    def no_shouting(plan):
        return [Problem("no shouting", "goal")] if plan.goal.isupper() else []

    class Shout:
        @hookimpl
        def plan_formats(self):
            return [PlanFormat("shout", "Shouted goal", ".shout",
                               load=lambda text, registry: plan_from_seed([{"tool": "say", "params": {"message": text}}],
                                                                          goal=text.strip()))]

        @hookimpl
        def plan_checks(self):
            return [no_shouting]

    assert "shout" not in FORMATS
    plugin(Shout())
    plan = load_plan("HELLO", "shout")
    assert FORMATS["shout"].label == "Shouted goal" and plan.goal == "HELLO"
    registry = build_registry(SETTINGS, groups=["conversation"])
    assert [p.message for p in Validator(registry).validate(plan)] == ["no shouting"]


def test_a_plugins_tool_words_reach_a_registry_holding_the_group(plugin):
    class Words:
        @hookimpl
        def tool_words(self):
            return {"lists": ToolWords(places=("Springfield",)), "nobody": ToolWords(places=("Nowhere",))}

    plugin(Words())
    words = dict(build_registry(SETTINGS, groups=["lists"]).words())
    assert words == {"lists": ToolWords(places=("Springfield",))}


def test_a_planner_nobody_registered_is_a_clear_error():
    with pytest.raises(PlannerError, match=r"no planner is named 'nope'; the planners are: embedded, llm$"):
        make_planner(SETTINGS.model_copy(update={"planner": "nope"}), build_registry(SETTINGS, groups=[]))


def test_observers_hear_of_plans_and_steps_and_one_that_raises_is_logged_once(plugin, caplog):
    heard: list[tuple] = []

    class Listener:
        @hookimpl
        def plan_created(self, plan, goal, planner):
            heard.append(("plan", planner, goal))

        @hookimpl
        def step_about_to_run(self, step_id, arguments):
            heard.append(("start", step_id, arguments))

        @hookimpl
        def step_done(self, run, step_id):
            heard.append(("done", step_id, run.steps[step_id].status.value))

        @hookimpl
        def run_done(self, reason):
            heard.append(("run", reason))

    class Broken:
        @hookimpl
        def step_done(self):
            raise RuntimeError("observer bug")

    plugin(Listener())
    broken = plugin(Broken())
    registry = build_registry(SETTINGS, groups=["lists", "waste"])
    make_planner(SETTINGS, registry).plan("Get contaminated shipments from Berlin facilities",
                                          today=SETTINGS.effective_today())
    assert heard == [("plan", "embedded", "Get contaminated shipments from Berlin facilities")]
    heard.clear()
    plan = _plan()
    with caplog.at_level(logging.ERROR, logger="core.hooks"):
        for _ in range(2):
            assert Executor(registry).execute(plan).status == "succeeded"
    a, b = (s.id for s in plan.steps)
    assert heard[:5] == [("start", a, {"list": "a"}), ("done", a, "succeeded"), ("start", b, {"list": "a"}),
                         ("done", b, "succeeded"), ("run", "finished")]
    assert [r.getMessage() for r in caplog.records] == [
        f"plugin {hooks.plugin_manager().get_name(broken)!r} failed in its step_done hook (logged once; "
        "it is skipped and the studio goes on)"]

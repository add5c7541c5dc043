"""docs/plugins.md: each example is a whole plugin module of at most 10 lines; registered as a
plugin, it does what the page says."""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest

from core import Executor, Settings, dump_plan, hooks
from core.formats import plan_from_seed
from core.planners import make_planner
from tools import build_registry

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text(encoding="utf-8")
EXAMPLES = dict(zip(("tool group", "format", "planner", "observer"),
                    re.findall(r"^```python\n(.*?)^```", PAGE, re.M | re.S), strict=True))
ONE_STEP = [{"tool": "say", "params": {"message": "hi"}}]


@pytest.fixture
def plugin():
    """``plugin(kind)``: the example of that kind, executed as a module and registered."""
    names: list[str] = []

    def load(kind: str) -> types.ModuleType:
        module = types.ModuleType(f"docs_example_{len(names)}")
        exec(compile(EXAMPLES[kind], f"docs/plugins.md ({kind})", "exec"), module.__dict__)
        names.append(hooks.register(module, module.__name__))
        return module

    yield load
    for name in names:
        hooks.unregister(name)


@pytest.mark.parametrize("kind", list(EXAMPLES))
def test_each_example_is_at_most_ten_lines(kind):
    assert len(EXAMPLES[kind].splitlines()) <= 10


def test_the_tool_group(plugin, tmp_path):
    plugin("tool group")
    registry = build_registry(Settings(data_dir=tmp_path), groups=["greetings"])
    assert registry.names() == ["greet"] and registry.get("greet").description == "Say hello to someone."


def test_the_format(plugin):
    plugin("format")
    text = dump_plan(plan_from_seed(ONE_STEP, goal="x"), "compact")
    assert "\n" not in text and text.startswith('{"goal":"x","steps":[{"id":"s1","tool":"say"')


def test_the_planner(plugin, tmp_path):
    plugin("planner")
    settings = Settings(data_dir=tmp_path, planner="parrot")
    plan = make_planner(settings, build_registry(settings, groups=["conversation"])).plan(
        "hello there", today=settings.effective_today())
    assert [(s.tool, s.params) for s in plan.steps] == [("say", {"message": "hello there"})]


def test_the_observer(plugin, tmp_path, capsys):
    plugin("observer")
    Executor(build_registry(Settings(data_dir=tmp_path), groups=["conversation"])).execute(plan_from_seed(ONE_STEP))
    assert capsys.readouterr().out.splitlines() == ["start s1 {'message': 'hi'}", "end s1 succeeded"]

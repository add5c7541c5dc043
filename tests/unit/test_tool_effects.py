"""A plain function says what it does (``@tool(...)``, an ``Effects:`` docstring line), and a
run from Python pauses before a step whose tool may write unless the caller opts out."""

from __future__ import annotations

import pytest

from core import Executor, Plan, Step, ToolDefinitionError, ToolRegistry, tool


def _registered(func):
    registry = ToolRegistry()
    registry.register(func)
    return registry.get(func.__name__)


def test_the_decorator_says_read_only_and_the_description_stays_clean() -> None:
    @tool(read_only=True)
    def weather_lookup(city: str) -> dict:
        """The weather in a city."""
        return {"city": city}

    found = _registered(weather_lookup)
    assert found.effects.label == "read-only" and not found.effects.may_write
    assert found.definition.as_json()["annotations"] == {"readOnlyHint": True, "destructiveHint": False,
                                                         "idempotentHint": True}


@pytest.mark.parametrize(("line", "label"), [
    ("Effects: read-only", "read-only"),
    ("Effects: destructive", "writes, destructive"),
    ("Effects: additive, idempotent", "writes, additive, idempotent"),
    ("effects: writes", "writes, destructive"),  # MCP's default for a tool that writes
])
def test_a_docstring_line_says_the_effects_and_is_not_in_the_description(line: str, label: str) -> None:
    def change(name: str) -> bool:
        return True
    change.__doc__ = f"Change a thing.\n\n    {line}\n\n    Args:\n        name: Which thing.\n    "
    found = _registered(change)
    assert found.effects.label == label
    assert found.description == "Change a thing." and found.parameters["properties"]["name"]["description"] == "Which thing."


@pytest.mark.parametrize("said", ["Effects: read-only, destructive", "Effects: read-only, writes",
                                  "Effects: quick", "Effects: destructive, additive"])
def test_contradictory_or_unknown_words_are_refused_naming_the_tool(said: str) -> None:
    def odd() -> int:
        return 1
    odd.__doc__ = f"Odd.\n\n{said}\n"
    with pytest.raises(ToolDefinitionError, match="tool 'odd'"):
        _registered(odd)


def test_a_decorator_contradicting_itself_or_the_docstring_is_refused() -> None:
    @tool(read_only=True, destructive=True)
    def wipe() -> int:
        """Wipe."""
        return 1

    with pytest.raises(ToolDefinitionError, match="tool 'wipe': @tool.* both read-only and destructive"):
        _registered(wipe)

    @tool(read_only=True)
    def remove() -> int:
        """Remove.

        Effects: destructive
        """
        return 1

    with pytest.raises(ToolDefinitionError, match="tool 'remove'.*keep one"):
        _registered(remove)


def test_saying_nothing_stays_unknown_and_register_effects_win() -> None:
    def plain(x: int) -> int:
        """Plain."""
        return x

    assert _registered(plain).effects.label == "unknown (may write)"

    @tool(destructive=True)
    def marked(x: int) -> int:
        """Marked."""
        return x

    registry = ToolRegistry()
    registry.register(marked, effects="read-only")
    assert registry.get("marked").effects.label == "read-only"


def _writer_and_reader() -> tuple[ToolRegistry, Plan]:
    registry = ToolRegistry()

    @registry.register
    def note(text: str) -> str:
        """Write a note."""
        return text

    @tool(read_only=True)
    def count(text: str) -> int:
        """Count words."""
        return len(text.split())

    registry.register(count)
    plan = Plan(goal="g", steps=[Step(id="c", tool="count", params={"text": "a b c"}),
                                 Step(id="n", tool="note", params={"text": "x"})])
    return registry, plan


def test_python_runs_pause_before_writes_by_default_and_opt_out_explicitly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLAN_STUDIO_APPROVE_WRITES", raising=False)  # conftest turns the pause off for most tests
    registry, plan = _writer_and_reader()
    run = Executor(registry).execute(plan)
    assert run.steps["c"].result == 3 and run.steps["n"].status == "waiting" and run.steps["n"].result is None
    run = Executor(registry, approve_writes=False).execute(plan)
    assert run.steps["n"].status == "succeeded" and run.steps["n"].result == "x"
    monkeypatch.setenv("PLAN_STUDIO_APPROVE_WRITES", "false")  # the setting every interface reads
    assert Executor(registry).execute(plan).steps["n"].status == "succeeded"

"""The tool registry: typed functions and their docstrings become tools planners can read."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal

import pytest
from typing_extensions import TypedDict

from core import (Settings, Tool, ToolArgumentsError, ToolDefinitionError, ToolExecutionError,
                  ToolRegistry)
from core.tooling._registry import parse_docstring
from tools import BUILTIN_GROUPS, build_registry, load_group

Unit = Literal["kg", "t"]


class Reading(TypedDict):
    day: dt.date
    value: float


class Readings(TypedDict):
    data: list[Reading]
    count: int


def weigh(site: str, unit: Unit = "kg", days: int = 1, since: dt.date | None = None) -> Readings:
    """Weigh what arrived at a site.

    Longer explanation that planners also read.

    Args:
        site: Name of the site to weigh at;
            a second line that continues the description.
        unit: Unit of the result.
        days: How many days to weigh.
        since: First day to include.

    Returns:
        {"data": [reading], "count": N}.
    """
    start = since or dt.date(2025, 10, 12)
    rows: list[Reading] = [{"day": start + dt.timedelta(days=n), "value": 1.5 * (n + 1)} for n in range(days)]
    return {"data": rows, "count": len(rows)}


def explode(reason: str) -> str:
    """Always fails.

    Args:
        reason: What to say when failing.
    """
    raise RuntimeError(f"boom: {reason}")


def no_hint(site) -> str:  # type: ignore[no-untyped-def]
    """Has a docstring but no type hint on ``site``."""
    return site


def undocumented(site: str) -> str:
    return site


def stray_arg(site: str) -> str:
    """Documents a parameter that does not exist.

    Args:
        site: The site.
        colour: Not a parameter.
    """
    return site


def star_args(*sites: str) -> str:
    """Takes any number of sites."""
    return ",".join(sites)


@pytest.fixture
def weigh_tool() -> Tool:
    registry = ToolRegistry()
    registry.register(weigh, group="scales")
    return registry.get("weigh")


# --------------------------------------------------------------------------- schema

def test_schema_comes_from_signature_and_docstring(weigh_tool: Tool) -> None:
    assert weigh_tool.name == "weigh"
    assert weigh_tool.group == "scales"
    assert weigh_tool.description == "Weigh what arrived at a site.\n\nLonger explanation that planners also read."
    assert weigh_tool.returns_description == '{"data": [reading], "count": N}.'
    params = weigh_tool.parameters
    assert params["type"] == "object"
    assert params["additionalProperties"] is False
    assert weigh_tool.param_names == ["site", "unit", "days", "since"]
    assert weigh_tool.required == ["site"]
    props = params["properties"]
    assert props["site"] == {"type": "string", "description":
                             "Name of the site to weigh at; a second line that continues the description."}
    assert props["unit"]["enum"] == ["kg", "t"]
    assert props["unit"]["default"] == "kg"
    assert props["unit"]["description"] == "Unit of the result."
    assert props["days"]["type"] == "integer" and props["days"]["default"] == 1
    since_types = {o.get("type") for o in props["since"]["anyOf"]}
    assert since_types == {"string", "null"}
    assert {"format": "date", "type": "string"} in props["since"]["anyOf"]
    assert "title" not in props["site"]  # pydantic's titles are dropped


def test_returns_schema(weigh_tool: Tool) -> None:
    returns = weigh_tool.returns
    assert set(returns["properties"]) == {"data", "count"}
    row = returns["properties"]["data"]["items"]
    row = returns["$defs"][row["$ref"].rsplit("/", 1)[-1]] if "$ref" in row else row
    assert set(row["properties"]) == {"day", "value"}


def test_parse_docstring() -> None:
    description, args, returns = parse_docstring(weigh.__doc__)
    assert description.startswith("Weigh what arrived at a site.")
    assert list(args) == ["site", "unit", "days", "since"]
    assert args["since"] == "First day to include."
    assert returns == '{"data": [reading], "count": N}.'
    assert parse_docstring(None) == ("", {}, "")


def test_parse_docstring_leaves_a_code_example_in_the_summary_alone() -> None:
    # A fenced example that shows a docstring is the description's, not this tool's Args.
    doc = '''Call another tool, like this:

    ```python
    def other(city: str) -> dict:
        """Look a city up.

        Args:
            city: nothing to do with this tool.
        """
    ```

    Args:
        target: the tool to call.
            It must be registered.

    Returns:
        {"called": name}: what was called.
    '''
    description, args, returns = parse_docstring(doc)
    assert description.startswith('Call another tool, like this:\n\n```python\ndef other(city: str)')
    assert "    city: nothing to do with this tool." in description and description.endswith("```")
    assert args == {"target": "the tool to call. It must be registered."}
    assert returns == '{"called": name}: what was called.'


def test_parse_docstring_reads_sections_written_tight_or_singular() -> None:
    doc = """Sum some numbers.
    Args:
        numbers: the numbers,
            at least one.
        *rest (int): more of them.
    Return:
        dict: the sum.
    """
    assert parse_docstring(doc) == ("Sum some numbers.", {"numbers": "the numbers, at least one.",
                                                          "rest": "more of them."}, "dict: the sum.")


def test_description_option_overrides_the_docstring() -> None:
    registry = ToolRegistry()
    registry.register(undocumented, name="echo_site", description="Echo the site name.")
    tool = registry.get("echo_site")
    assert tool.description == "Echo the site name."
    assert "echo_site" in registry and "undocumented" not in registry


def test_decorator_form() -> None:
    registry = ToolRegistry()

    @registry.register(group="math")
    def double(x: int) -> int:
        """Double a number.

        Args:
            x: The number.
        """
        return 2 * x

    assert double(2) == 4  # the function itself stays usable
    assert registry.get("double").call({"x": 21}) == 42
    assert registry.get("double").group == "math"
    assert len(registry) == 1 and [t.name for t in registry] == ["double"]


# --------------------------------------------------------------------------- definition errors

@pytest.mark.parametrize("func, message", [
    (no_hint, "parameter 'site' has no type hint"),
    (undocumented, "needs a docstring"),
    (stray_arg, r"unknown parameters: \['colour'\]"),
    (star_args, r"\*args/\*\*kwargs"),
])
def test_definition_errors(func: object, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        ToolRegistry().register(func)  # type: ignore[arg-type]


def test_duplicate_names_are_refused() -> None:
    registry = ToolRegistry()
    registry.register(weigh)
    with pytest.raises(ToolDefinitionError, match="already registered"):
        registry.register(weigh)


# --------------------------------------------------------------------------- calls

def test_call_validates_converts_and_returns_json(weigh_tool: Tool) -> None:
    result = weigh_tool.call({"site": "Lahe", "days": 2, "since": "2025-10-01"})
    assert result == {"data": [{"day": "2025-10-01", "value": 1.5}, {"day": "2025-10-02", "value": 3.0}],
                      "count": 2}


@pytest.mark.parametrize("args, field, message", [
    ({}, "site", "required parameter is missing"),
    ({"site": "Lahe", "unit": "lb"}, "unit", "'lb' is not one of the allowed values"),
    ({"site": "Lahe", "days": "many"}, "days", "must be a whole number, not the text 'many'"),
    # Strict: a value that only looks right is not converted.
    ({"site": "Lahe", "days": "2"}, "days", "must be a whole number, not the text '2'"),
    ({"site": "Lahe", "days": 2.0}, "days", "must be a whole number (got 2.0)"),
    ({"site": "Lahe", "site_id": 1}, "site_id", "is not a parameter of this tool"),
    ({"site": "Lahe", "since": "yesterday"}, "since", "date"),
    ({"site": "Lahe", "colour": "red"}, "colour", "is not a parameter of this tool"),
])
def test_bad_arguments_name_tool_and_field(weigh_tool: Tool, args: dict, field: str, message: str) -> None:
    with pytest.raises(ToolArgumentsError) as err:
        weigh_tool.call(args)
    text = str(err.value)
    assert text.startswith("weigh: ")
    assert f"{field}: " in text and message in text


def test_check_arguments_lists_problems_and_skips_references(weigh_tool: Tool) -> None:
    problems = weigh_tool.check_arguments({"unit": "lb", "days": "${step[0].count}"})
    fields = sorted(f for f, _ in problems)
    assert fields == ["days", "site", "unit"]
    assert weigh_tool.check_arguments({"site": "Lahe", "days": "${step[0].count}"}, skip={"days"}) == []
    assert weigh_tool.check_arguments({"site": "Lahe"}) == []


def test_a_failing_tool_becomes_an_execution_error() -> None:
    registry = ToolRegistry()
    registry.register(explode)
    with pytest.raises(ToolExecutionError, match="explode failed: boom: disk full") as err:
        registry.get("explode").call({"reason": "disk full"})
    assert isinstance(err.value.__cause__, RuntimeError)


def test_suggest() -> None:
    registry = ToolRegistry()
    registry.register(weigh)
    registry.register(explode)
    assert registry.suggest("wiegh") == "weigh"
    assert registry.suggest("facilities") is None


# --------------------------------------------------------------------------- the built-in groups

@pytest.fixture
def builtin(tmp_path: Path) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path, today=dt.date(2025, 10, 12)),
                          groups=["waste", "lists", "conversation"])


def test_built_in_groups_load_through_the_same_registry(builtin: ToolRegistry) -> None:
    groups = {tool.name: tool.group for tool in builtin}
    assert groups == {
        "facilities_list": "waste", "shipments_list": "waste", "contaminants_list": "waste",
        "inspections_list": "waste", "createList": "lists", "addItem": "lists",
        "removeItem": "lists", "showList": "lists", "deleteList": "lists", "say": "conversation"}
    assert {"waste", "lists", "conversation"} <= set(BUILTIN_GROUPS)


@pytest.mark.parametrize("name", ["facilities_list", "shipments_list", "contaminants_list", "inspections_list"])
def test_waste_returns_schema_has_row_ids(builtin: ToolRegistry, name: str) -> None:
    returns = builtin.get(name).returns
    items = returns["properties"]["data"]["items"]
    if "$ref" in items:
        items = returns["$defs"][items["$ref"].rsplit("/", 1)[-1]]
    assert items["properties"]["id"] == {"type": "string"}
    assert returns["properties"]["count"] == {"type": "integer"}


def test_a_group_that_cannot_be_loaded_is_named() -> None:
    with pytest.raises(ToolDefinitionError, match="tools.no_such_group:register"):
        load_group("tools.no_such_group:register")
    with pytest.raises(ToolDefinitionError, match="tools.lists:no_such_function"):
        load_group("tools.lists:no_such_function")

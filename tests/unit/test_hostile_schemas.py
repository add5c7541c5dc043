"""Schemas from outside (an agent's declared tools, an MCP server's tools) are checked in bounded
time and depth: a backtracking pattern, a pattern RE2 cannot run, a schema nested 100 levels.

Each check runs in a fresh Python process awaited with a generous liveness bound, so a
regression fails the test instead of hanging it: the patterns below take hours with Python's
``re``, which holds the GIL all along (a thread could not even be timed out). See
``tests/child_calls.py`` for why a new interpreter rather than a fork or a fork server."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable, Iterator

import pytest

from core import Plan, PlanStudioError, ToolRegistry, Validator, parse_tool_definitions, with_declared_tools
from core.validation._schema_fit import may_fit
from tools._mcp import _make_tool

from child_calls import ChildProcess

# The fixed code answers in a second or two on an idle machine, the broken one in hours; on a
# machine shared by a loaded suite a child may get a tenth of a core, so the bound is generous.
LIVENESS_SECONDS = 120.0
STARTING_SECONDS = 240.0
HOSTILE = "^(a+)+$"  # RE2 runs it in linear time
HOSTILE_LOOKAHEAD = "^(?=(a|aa)+$)"  # RE2 refuses lookaround: the fallback's timeout bounds it
VALUE = "a" * 40 + "!"


_children: list[ChildProcess] = []  # the module's one child, closed by the fixture below


@pytest.fixture(scope="module", autouse=True)
def _child_process() -> Iterator[None]:
    yield
    for child in _children:
        child.close()
    _children.clear()


def _child() -> ChildProcess:
    """One child for the whole module (a new one after a check timed out): starting it imports
    the project (seconds on a loaded machine), which each check would otherwise pay again."""
    if _children and not _children[0].alive:
        _children.pop().close()
    if not _children:
        child = ChildProcess()
        # The bound is for the checks, not for starting the child and importing the project in
        # it, which on a loaded machine alone can take longer (bounded by the test's own timeout).
        child.call(text_schema, "", timeout=STARTING_SECONDS)
        _children.append(child)
    return _children[0]


def within_bound(work: Callable[..., Any], *args: Any) -> Any:
    """``work(*args)``'s value (``work`` a function of this module, ``args`` plain data),
    computed in a child process, which must answer within the bound."""
    return _child().call(work, *args, timeout=LIVENESS_SECONDS)


def refusal(work: Callable[..., Any], *args: Any) -> tuple[str, str | None, str]:
    """The error ``work(*args)`` raised: its type, field and message."""
    try:
        work(*args)
    except PlanStudioError as exc:
        return type(exc).__name__, getattr(exc, "field", None), str(exc)
    return "nothing raised", None, ""


def validated(registry_schema: dict[str, Any], plan: Plan) -> list[Any]:
    return Validator(declared(registry_schema)).validate(plan)


def mcp_tool(schema: dict[str, Any]) -> Any:
    connection = SimpleNamespace(spec=SimpleNamespace(label="srv"), call=lambda *a: None)
    return _make_tool(_listed(schema), "srv", connection)


def mcp_tool_checks(schema: dict[str, Any], arguments: dict[str, Any]) -> Any:
    return mcp_tool(schema).check_arguments(arguments)


def declared(schema: dict[str, Any]) -> ToolRegistry:
    return with_declared_tools(ToolRegistry(), parse_tool_definitions([{"name": "echo", "inputSchema": schema}]))


def problems_for(schema: dict[str, Any], params: dict[str, Any]) -> list[Any]:
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "s", "tool": "echo", "params": params}]})
    return within_bound(validated, schema, plan)


def text_schema(pattern: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"text": {"type": "string", "pattern": pattern}}}


def test_a_backtracking_pattern_is_checked_in_linear_time_and_names_the_field() -> None:
    problems = problems_for(text_schema(HOSTILE), {"text": VALUE})
    assert [(p.step_index, p.field) for p in problems] == [(0, "params.text")]
    assert "does not match" in problems[0].message and HOSTILE in problems[0].message
    assert problems_for(text_schema(HOSTILE), {"text": "aaaa"}) == []


def test_a_pattern_re2_cannot_run_is_checked_with_a_timeout_or_matched_when_quick() -> None:
    problems = problems_for(text_schema(HOSTILE_LOOKAHEAD), {"text": VALUE})
    assert [(p.step_index, p.field) for p in problems] == [(0, "params.text")]
    assert "not checked" in problems[0].message and HOSTILE_LOOKAHEAD in problems[0].message
    # Lookaround and backreferences still work where they answer quickly.
    password = text_schema(r"^(?=.*\d)(?=.*[A-Z]).{8,}$")
    assert problems_for(password, {"text": "Secret123"}) == []
    assert [p.field for p in problems_for(password, {"text": "secret123"})] == ["params.text"]
    assert problems_for(text_schema(r"^(\w)\1$"), {"text": "zz"}) == []


def test_many_slow_patterns_share_one_budget_per_plan() -> None:
    plan = Plan.model_validate({"goal": "g", "steps": [
        {"id": f"s{n}", "tool": "echo", "params": {"text": VALUE}} for n in range(200)]})
    problems = within_bound(validated, text_schema(HOSTILE_LOOKAHEAD), plan)
    # Once the budget is spent, a step is not checked at all: its whole arguments are named.
    assert len(problems) == 200 and all(p.field in ("params.text", "params.(arguments)") for p in problems)
    assert [p.step_index for p in problems] == list(range(200))
    assert all("not checked" in p.message for p in problems)


def test_pattern_properties_and_their_closing_are_bounded() -> None:
    schema = {"type": "object", "patternProperties": {HOSTILE: {"type": "integer"}}, "additionalProperties": False}
    problems = problems_for(schema, {VALUE: 1})
    assert problems and all(p.step_index == 0 for p in problems)
    assert problems_for(schema, {"aaa": 1}) == []


def test_unevaluated_properties_beside_pattern_properties_is_not_checked_rather_than_hang() -> None:
    # jsonschema matches those patterns with Python's re, inside its own code.
    schema = {"type": "object", "patternProperties": {HOSTILE: {}}, "unevaluatedProperties": False}
    problems = problems_for(schema, {VALUE: 1})
    assert [p.step_index for p in problems] == [0] and "not checked" in problems[0].message
    unevaluated = {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": False}
    assert [p.field for p in problems_for(unevaluated, {"a": 1, "b": 2})] == ["params.(arguments)"]


def test_a_literal_beside_references_is_fitted_in_bounded_time() -> None:
    param = {"type": "array", "items": {"type": "string", "pattern": HOSTILE}}
    assert within_bound(may_fit, {"const": VALUE}, param["items"]) is False
    assert within_bound(may_fit, {"const": "aaa"}, param["items"]) is True


def test_an_exponential_schema_is_cut_off_by_the_budget() -> None:
    # Each level's anyOf tries the next level twice: 2**40 paths without a budget.
    defs = {f"l{n}": {"anyOf": [{"$ref": f"#/$defs/l{n + 1}"}, {"$ref": f"#/$defs/l{n + 1}"}]} for n in range(40)}
    defs["l40"] = {"type": "integer"}
    schema = {"type": "object", "$defs": defs, "properties": {"n": {"$ref": "#/$defs/l0"}}}
    problems = problems_for(schema, {"n": "text"})
    assert [(p.step_index, p.field) for p in problems] == [(0, "params.n")]
    assert "not checked" in problems[0].message


def test_unique_items_over_many_objects_is_linear() -> None:
    schema = {"type": "object", "properties": {"rows": {"type": "array", "uniqueItems": True}}}
    rows = [{"n": n} for n in range(20_000)]  # pairwise, as jsonschema compares them: minutes
    assert problems_for(schema, {"rows": rows}) == []
    problems = problems_for(schema, {"rows": [*rows, {"n": 5.0}]})
    assert [p.field for p in problems] == ["params.rows"] and "non-unique" in problems[0].message
    assert problems_for(schema, {"rows": [1, True, "1", [1], {"a": 1}, {"a": True}]}) == []


def nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def test_a_schema_nested_100_levels_is_refused_naming_the_field() -> None:
    kind, field, message = within_bound(refusal, parse_tool_definitions,
                                        [{"name": "ok", "inputSchema": nested(3)}, {"name": "deep", "inputSchema": nested(100)}])
    assert (kind, field) == ("ReviewRequestError", "tools[1].inputSchema")
    assert "nested" in message and "levels" in message


def _listed(schema: dict[str, Any]) -> Any:
    return SimpleNamespace(name="deep", description="", input_schema=schema, output_schema=None,
                           execution=None)


def test_an_mcp_tool_schema_goes_through_the_same_checks() -> None:
    problems = within_bound(mcp_tool_checks, text_schema(HOSTILE_LOOKAHEAD), {"text": VALUE})
    assert [f for f, _ in problems] == ["text"] and "not checked" in problems[0][1]
    assert [f for f, _ in within_bound(mcp_tool_checks, text_schema(HOSTILE), {"text": VALUE})] == ["text"]
    kind, _, message = within_bound(refusal, mcp_tool, nested(100))
    assert kind == "McpServerError" and "nested" in message

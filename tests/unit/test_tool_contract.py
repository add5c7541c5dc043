"""One tool contract: every kind of tool (a Python function, an MCP server's tool, a tool an agent
declares) is one ``Tool`` holding one ``ToolDefinition`` (name, description, schemas, effects,
source), checked by one argument check, and readable through a registry view whose descriptions
are overridden for a session without touching the source."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from mcp.types import ToolAnnotations
from pydantic import Field

from core import (ADDITIVE, DESTRUCTIVE, IDEMPOTENT, READ_ONLY, UNKNOWN, NonBlank, Plan, ReviewRequestError,
                  Settings, Tool, ToolDefinition, ToolDefinitionError, ToolOverride, ToolRegistry, Validator,
                  parse_tool_definitions, with_declared_tools)
from core.planners import render_manual
from tools import build_registry
from tools._mcp import _make_tool

from child_calls import ChildProcess


def _pick(n: Annotated[int, Field(ge=1, le=5)], label: NonBlank, when: str | None = None) -> int:
    """Pick some.

    Args:
        n: How many.
        label: What to call them.
        when: Not used.
    """
    return n


def python_registry(**options: Any) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(_pick, name="pick", **options)
    return registry


def listed(name: str, schema: dict[str, Any], annotations: Any = None) -> SimpleNamespace:
    """An MCP server's tool as the SDK lists it (the fields ``_make_tool`` reads)."""
    return SimpleNamespace(name=name, description="From a server.", input_schema=schema, output_schema=None,
                           annotations=annotations)


def mcp_tool(name: str, schema: dict[str, Any], annotations: Any = None) -> Tool:
    connection = SimpleNamespace(spec=SimpleNamespace(label="node server.js"), call=None)
    return _make_tool(listed(name, schema, annotations), "server", connection)


def test_every_kind_of_tool_is_one_tool_class_with_one_definition(tmp_path) -> None:
    python = python_registry(effects=READ_ONLY).get("pick")
    [declared_def] = parse_tool_definitions([{"name": "pick", "inputSchema": python.parameters}])
    declared = with_declared_tools(ToolRegistry(), [declared_def]).get("pick")
    server = mcp_tool("pick", python.parameters)
    for tool, kind in ((python, "python"), (declared, "agent"), (server, "mcp")):
        assert type(tool) is Tool and isinstance(tool.definition, ToolDefinition)
        assert tool.kind == kind and tool.definition.input_schema == python.parameters
    assert server.source == "MCP server node server.js"
    assert declared.source == "the agent that sent the plan"


def test_one_argument_check_says_the_same_for_every_kind_of_tool() -> None:
    python = python_registry().get("pick")
    [declared_def] = parse_tool_definitions([{"name": "pick", "inputSchema": python.parameters}])
    declared = with_declared_tools(ToolRegistry(), [declared_def]).get("pick")
    server = mcp_tool("pick", python.parameters)
    args = {"n": 0, "label": "  ", "when": 5, "colour": "red"}
    expected = [("n", "must be at least 1 (got 0)"), ("label", "must not be blank (got '  ')"),
                ("when", "must be text (got 5)"), ("colour", "is not a parameter of this tool")]
    for tool in (python, declared, server):
        assert tool.check_arguments(args) == expected, tool.kind
    for tool in (python, declared, server):
        assert tool.check_arguments({"n": "2", "label": "x"}) == [("n", "must be a whole number, not the text '2'")]
        assert tool.check_arguments({"label": "x"}) == [("n", "required parameter is missing")]


def test_python_tools_say_their_effects_where_they_are_registered(tmp_path) -> None:
    registry = build_registry(Settings(data_dir=tmp_path))
    effects = {tool.name: tool.effects for tool in registry}
    for name in ("facilities_list", "shipments_list", "contaminants_list", "inspections_list", "showList",
                 "ShortPoem", "Translate", "say"):
        assert effects[name] == READ_ONLY, name
    assert (effects["createList"], effects["addItem"]) == (IDEMPOTENT, ADDITIVE)
    assert effects["removeItem"] == effects["deleteList"] == DESTRUCTIVE
    assert not READ_ONLY.may_write and DESTRUCTIVE.may_write

    unsaid = python_registry().get("pick")
    assert unsaid.effects == UNKNOWN and unsaid.effects.may_write  # not said: later code assumes it writes
    assert python_registry(effects="destructive").get("pick").effects == DESTRUCTIVE
    with pytest.raises(ToolDefinitionError, match="tool 'pick': effects must be"):
        python_registry(effects="harmless")


@pytest.mark.parametrize(("annotations", "expected"), [
    (None, UNKNOWN),
    (ToolAnnotations(title="Echo"), UNKNOWN),  # annotations without a hint say nothing about effects
    (ToolAnnotations(readOnlyHint=True), READ_ONLY),
    (ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True), IDEMPOTENT),
    (ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False), DESTRUCTIVE),
])
def test_an_mcp_tools_effects_come_from_its_annotations(annotations, expected) -> None:
    tool = mcp_tool("t", {"type": "object"}, annotations)
    assert tool.effects == expected
    assert tool.effects.may_write is (expected.read_only is not True)


def test_an_agent_declares_effects_with_mcp_annotations() -> None:
    said, unsaid = parse_tool_definitions([
        {"name": "wipe", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": False, "destructiveHint": True}},
        {"name": "look", "inputSchema": {"type": "object"}}])
    assert said.effects.read_only is False and said.effects.destructive is True and said.effects.may_write
    assert unsaid.effects == UNKNOWN
    # Sent back to the agent (and stored with the review) as it declared them.
    assert said.as_json()["annotations"] == {"readOnlyHint": False, "destructiveHint": True}
    assert "annotations" not in unsaid.as_json()
    with pytest.raises(ReviewRequestError) as refused:
        parse_tool_definitions([{"name": "x", "inputSchema": {"type": "object"}, "annotations": "read-only"}])
    assert refused.value.field == "tools[0].annotations"


def _imported() -> bool:
    return True


def _check_catastrophic() -> list[tuple[str, str]]:
    schema = {"type": "object", "properties": {"text": {"type": "string", "pattern": "^(?=(a|aa)+$)"}}}
    [definition] = parse_tool_definitions([{"name": "echo", "inputSchema": schema}])
    tool = with_declared_tools(ToolRegistry(), [definition]).get("echo")
    started = time.perf_counter()
    problems = tool.check_arguments({"text": "a" * 40 + "!"})
    return problems + [("seconds", f"{time.perf_counter() - started:.3f}")]


def test_a_catastrophic_pattern_from_an_agents_tool_is_checked_in_bounded_time() -> None:
    # Python's re would take hours on this and hold the GIL: run it in a fresh process with a
    # liveness bound (tests/child_calls.py says why not a fork or a fork server).
    with ChildProcess() as child:
        child.call(_imported, timeout=240)  # the bound is for the check, not for starting the child and importing
        problems = child.call(_check_catastrophic, timeout=60)
    *found, (_, seconds) = problems
    assert [field for field, _ in found] == ["text"]
    assert "not checked" in found[0][1] and "^(?=(a|aa)+$)" in found[0][1]
    assert float(seconds) < 5  # a generous liveness bound; the matcher stops after 0.1 s


def test_a_registry_view_overrides_descriptions_without_touching_the_source(tmp_path) -> None:
    registry = build_registry(Settings(data_dir=tmp_path))
    before = render_manual(registry)
    view = registry.with_overrides({
        "addItem": ToolOverride(description="Append exactly one grocery item.",
                                params={"item": "One item, singular, e.g. milk."}),
        "no_such_tool": ToolOverride(description="ignored: a session may have removed its server"),
    })
    manual = render_manual(view)
    assert "### addItem\nAppend exactly one grocery item.\n" in manual
    assert "  - item: string; not blank; required. One item, singular, e.g. milk." in manual
    assert render_manual(registry) == before  # the source is as it was
    assert registry.get("addItem").description.startswith("Add an item to the end of a named list")
    assert view.get("addItem").definition.overridden == {"description", "params.item"}
    assert view.names() == registry.names() and view.words() == registry.words()
    # The view's tools run as before (same runner), and check with the same schema.
    assert view.get("addItem").call({"list": "groceries", "item": "milk"})["items"] == ["milk"]
    assert view.get("addItem").check_arguments({"list": "x"}) == [("item", "required parameter is missing")]
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "a", "tool": "addItem", "params": {"list": "x"}}]})
    assert [p.field for p in Validator(view).validate(plan)] == ["params.item"]
    with pytest.raises(ToolDefinitionError, match="no parameter 'colour'"):
        registry.with_overrides({"addItem": ToolOverride(params={"colour": "red"})})


def test_the_manual_tells_the_planner_each_tools_effects(tmp_path) -> None:
    registry = build_registry(Settings(data_dir=tmp_path))
    manual = render_manual(registry)
    assert "### showList\n" in manual and "Effects: read-only\n" in manual.split("### showList\n")[1]
    assert "Effects: writes, destructive\n" in manual.split("### deleteList\n")[1]
    registry.register(_pick, name="pick")
    assert "Effects: unknown (may write)" in render_manual(registry).split("### pick\n")[1]


def test_a_schema_whose_references_loop_is_still_said_in_words() -> None:
    # jsonschema resolves #/foo/x; the words follow $defs by name, where x refers to itself.
    schema = {"type": "object", "properties": {"p": {"anyOf": [{"$ref": "#/foo/x"}, {"type": "integer"}]}},
              "foo": {"x": {"type": "string"}}, "$defs": {"x": {"anyOf": [{"$ref": "#/$defs/x"}]}}}
    [definition] = parse_tool_definitions([{"name": "t", "inputSchema": schema}])
    tool = with_declared_tools(ToolRegistry(), [definition]).get("t")
    [(field, message)] = tool.check_arguments({"p": [1]})
    assert field == "p" and message.startswith("must be ") and message.endswith("(got [1])")

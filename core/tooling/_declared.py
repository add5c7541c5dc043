"""Tools an agent declares when it sends a plan for review: known by their schemas only.

An agent that asks for review runs its own tools; the studio only needs their definitions, as
MCP lists them (``name``, ``description``, ``inputSchema``, ``outputSchema``, ``annotations``
for its effects), to validate the plan and draw it. A declared tool is a ``Tool`` like any
other: its arguments go through the one check (``core.tooling._argument_check``); it cannot be run.

    definitions = parse_tool_definitions(body["tools"])          # ReviewRequestError naming the field
    registry = with_declared_tools(studio_registry, definitions)  # the agent's tools win a clash
    problems = Validator(registry).validate(plan)
"""

from __future__ import annotations

from typing import Any, Sequence

from .._errors import ReviewRequestError, ToolExecutionError
from ._registry import Tool, ToolRegistry
from ._definition import ToolDefinition, effects_from_annotations
from ..schema._untrusted import schema_problem

__all__ = ["DECLARED_GROUP", "ToolDefinition", "declared_tool", "parse_tool_definitions", "with_declared_tools"]

DECLARED_GROUP = "agent"
MAX_DECLARED_TOOLS = 500


def _schema(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ReviewRequestError(field, f"must be a JSON schema object, not {type(value).__name__}")
    problem = schema_problem(value)
    if problem is not None:
        where, message = problem
        raise ReviewRequestError(field + where, message)
    return value


def parse_tool_definitions(data: Any, field: str = "tools") -> list[ToolDefinition]:
    """The definitions in ``data`` (a list of MCP tool objects); ``ReviewRequestError`` names
    the first field that is wrong, e.g. ``tools[2].inputSchema``."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise ReviewRequestError(field, f"must be a list of tool definitions, not {type(data).__name__}")
    if len(data) > MAX_DECLARED_TOOLS:
        raise ReviewRequestError(field, f"has {len(data)} tools; at most {MAX_DECLARED_TOOLS} are taken")
    out: list[ToolDefinition] = []
    seen: set[str] = set()
    for index, item in enumerate(data):
        where = f"{field}[{index}]"
        if not isinstance(item, dict):
            raise ReviewRequestError(where, f"must be an object with name and inputSchema, not {type(item).__name__}")
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ReviewRequestError(f"{where}.name", "must be a non-empty string")
        if name in seen:
            raise ReviewRequestError(f"{where}.name", f"{name!r} is declared twice")
        seen.add(name)
        description = item.get("description") or ""
        if not isinstance(description, str):
            raise ReviewRequestError(f"{where}.description", "must be a string")
        input_schema = _schema(item.get("inputSchema", {"type": "object"}), f"{where}.inputSchema")
        output = item.get("outputSchema")
        output_schema = None if output is None else _schema(output, f"{where}.outputSchema")
        annotations = item.get("annotations")
        if annotations is not None and not isinstance(annotations, dict):
            raise ReviewRequestError(f"{where}.annotations", "must be an object of MCP tool hints "
                                     "(readOnlyHint, destructiveHint, idempotentHint)")
        out.append(ToolDefinition(name, description, input_schema, output_schema,
                                  effects=effects_from_annotations(annotations), kind="agent",
                                  source="the agent that sent the plan"))
    return out


def _not_runnable(name: str, args: dict[str, Any]) -> Any:
    raise ToolExecutionError("this tool was declared by the agent that sent the plan; "
                             "only the agent can run it")


def declared_tool(definition: ToolDefinition) -> Tool:
    """A tool known by its definition alone: its arguments are checked against its input
    schema like any tool's; calling it fails, as the agent runs it, not the studio."""
    return Tool(definition, _not_runnable, group=DECLARED_GROUP)


def with_declared_tools(base: ToolRegistry, definitions: Sequence[ToolDefinition]) -> ToolRegistry:
    """A registry with ``base``'s tools and the declared ones; a declared tool replaces a
    studio tool of the same name, since the agent runs its own."""
    declared = {d.name: declared_tool(d) for d in definitions}
    registry = ToolRegistry()
    for tool in [*(t for t in base if t.name not in declared), *declared.values()]:
        registry.add(tool)
    registry.add_words_of(base)
    return registry

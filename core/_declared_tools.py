"""Tools an agent declares when it sends a plan for review: known by their schemas only.

An agent that asks for review runs its own tools; the studio only needs their definitions, as
MCP lists them (``name``, ``description``, ``inputSchema``, ``outputSchema``), to validate the
plan and draw it. A declared tool checks arguments against its JSON schema and cannot be run.

    definitions = parse_tool_definitions(body["tools"])          # ReviewRequestError naming the field
    registry = with_declared_tools(studio_registry, definitions)  # the agent's tools win a clash
    problems = Validator(registry).validate(plan)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ._errors import ReviewRequestError, ToolExecutionError
from ._registry import Tool, ToolRegistry
from ._untrusted_schema import bounded_validator, check_against, schema_problem

__all__ = ["DECLARED_GROUP", "DeclaredTool", "ToolDefinition", "parse_tool_definitions", "with_declared_tools"]

DECLARED_GROUP = "agent"
MAX_DECLARED_TOOLS = 500


@dataclass(frozen=True)
class ToolDefinition:
    """One tool as the agent declared it (MCP's ``Tool`` fields)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "description": self.description, "inputSchema": self.input_schema}
        if self.output_schema is not None:
            data["outputSchema"] = self.output_schema
        return data


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
        out.append(ToolDefinition(name, description, input_schema, output_schema))
    return out


def _not_runnable(**_kwargs: Any) -> Any:
    raise ToolExecutionError("this tool was declared by the agent that sent the plan; "
                             "only the agent can run it")


def _field(path: Sequence[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class DeclaredTool(Tool):
    """A tool known by its definition alone: arguments are checked against its input schema;
    calling it fails, as the agent runs it, not the studio."""

    @classmethod
    def from_definition(cls, definition: ToolDefinition) -> "DeclaredTool":
        return cls(name=definition.name, func=_not_runnable, description=definition.description,
                   parameters=definition.input_schema, returns=definition.output_schema or {},
                   group=DECLARED_GROUP)

    def check_arguments(self, args: dict[str, Any], skip: set[str] = frozenset()) -> list[tuple[str, str]]:
        properties = self.parameters.get("properties") or {}
        # Names a patternProperties admits are the schema's to judge, in the check below.
        closed = self.parameters.get("additionalProperties") is False and "patternProperties" not in self.parameters
        problems: list[tuple[str, str]] = []
        if closed:
            problems += [(name, self._unknown(name)) for name in args if name not in properties]
        errors, cut_short = check_against(bounded_validator(self.parameters), args)
        for error in sorted(errors, key=lambda e: list(map(str, e.path))):
            if closed and error.validator == "additionalProperties" and not error.path:
                continue  # reported above, one line per unknown name
            path = list(error.path)
            if path and path[0] in skip:
                continue  # a reference's value is checked where it is resolved
            if error.validator == "required" and isinstance(error.instance, dict):
                # Named by the missing field, as the studio's own tools report it.
                problems += [(_field([*path, name]), "required parameter is missing") for name in error.validator_value
                             if name not in error.instance]
            else:
                problems.append((_field(path) or "(arguments)", error.message))
        if cut_short is not None and not (cut_short.path and cut_short.path[0] in skip):
            problems.append((_field(cut_short.path) or "(arguments)", cut_short.message))
        return problems

    def call(self, args: dict[str, Any]) -> Any:
        return _not_runnable()


def with_declared_tools(base: ToolRegistry, definitions: Sequence[ToolDefinition]) -> ToolRegistry:
    """A registry with ``base``'s tools and the declared ones; a declared tool replaces a
    studio tool of the same name, since the agent runs its own."""
    declared = {d.name: DeclaredTool.from_definition(d) for d in definitions}
    registry = ToolRegistry()
    for tool in [*(t for t in base if t.name not in declared), *declared.values()]:
        registry.add(tool)
    registry.add_words_of(base)
    return registry

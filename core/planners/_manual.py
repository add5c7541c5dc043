"""The functions manual: every tool as a model reads it (Semantic Kernel's term).

One text, built only from the registry (each tool's docstring summary, its parameter
schema and its return schema), so what the LLM planner is told and what the Tools page
shows cannot drift apart. The same registry always gives the same text.
"""

from __future__ import annotations

import json
from typing import Any

from ..tooling._registry import Tool, ToolRegistry, describe_bounds, schema_alternatives

__all__ = ["render_manual"]

_MAX_DEPTH = 3


def render_manual(registry: ToolRegistry) -> str:
    """The manual for every tool in ``registry``, in registration order."""
    tools = list(registry)
    head = (f"Functions manual: {len(tools)} tool{'s' if len(tools) != 1 else ''}. "
            "A step calls one tool by its exact name with a JSON object of parameters. "
            "Only the parameters listed are accepted; optional ones may be left out.")
    return "\n\n".join([head, *(_render_tool(t) for t in tools)]) + "\n"


def _render_tool(tool: Tool) -> str:
    # Effects as the tool's source said them ("unknown (may write)" when it said nothing): a
    # planner can prefer a read-only tool, and knows which steps change something.
    lines = [f"### {tool.name}", tool.description.strip(), f"Group: {tool.group}", f"Effects: {tool.effects.label}"]
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    defs = tool.parameters.get("$defs", {})
    if properties:
        lines.append("Parameters:")
        required = set(tool.required)
        for name, schema in properties.items():
            lines.append(f"  - {name}: {_describe_param(schema, defs, name in required)}")
    else:
        lines.append("Parameters: none")
    lines.extend(_render_returns(tool))
    return "\n".join(lines)


def _describe_param(schema: dict[str, Any], defs: dict[str, Any], required: bool) -> str:
    facts = [_type_text(schema, defs), *describe_bounds(schema, defs), "required" if required else "optional"]
    if not required and schema.get("default") is not None:
        facts.append(f"default {json.dumps(schema['default'])}")
    text = "; ".join(facts) + "."
    description = (schema.get("description") or "").strip()
    return f"{text} {description}" if description else text


def _render_returns(tool: Tool) -> list[str]:
    lines = []
    if tool.returns_description:
        lines.append(f"Returns: {tool.returns_description}")
    schema = tool.returns
    if not schema:
        if not tool.returns_description:
            lines.append("Returns: not described")
        return lines
    defs = schema.get("$defs", {})
    options = schema_alternatives(schema, defs)
    objects = [o for o in options if o.get("properties")]
    if len(objects) == 1 and len(options) == 1:
        lines.append("Return fields:")
        for name, sub in objects[0]["properties"].items():
            lines.append(f"  - {name}: {_type_text(sub, defs, depth=1)}")
    else:
        lines.append(f"Return value: {_type_text(schema, defs)}")
    return lines


def _type_text(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> str:
    options = [o for o in schema_alternatives(schema, defs) if o.get("type") != "null"]
    parts: list[str] = []
    for option in options or [{}]:
        text = _one_type(option, defs, depth)
        if text not in parts:
            parts.append(text)
    return " or ".join(parts)


def _one_type(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items") or {}
        return f"list of {_plural(_type_text(items, defs, depth))}" if items else "list"
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        if not props or depth >= _MAX_DEPTH:
            return "object"
        fields = ", ".join(f"{k}: {_type_text(v, defs, depth + 1)}" for k, v in props.items())
        return f"object {{{fields}}}"
    if kind == "string":
        fmt = schema.get("format")
        return {"date": "date (YYYY-MM-DD)", "date-time": "date-time (ISO 8601)"}.get(fmt, "string")
    if isinstance(kind, list):
        return " or ".join(k for k in kind if k != "null") or "null"
    return kind or "any value"


def _plural(text: str) -> str:
    """"string or integer" -> "strings or integers"; enums and the rest stay as they are."""
    words = ("string", "integer", "number", "boolean", "object", "list", "date", "date-time")
    out = []
    for part in text.split(" or "):
        head, _, rest = part.partition(" ")
        out.append(f"{head}s {rest}".rstrip() if head in words else part)
    return " or ".join(out)

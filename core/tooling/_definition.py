"""What a tool is, whatever runs it: one value shared by Python, MCP and agent-declared tools.

A ``ToolDefinition`` holds what planners, the validator, the manual and the pages read: the
name, the description, the input schema (its ``properties`` carry each parameter's
description), the output schema, the tool's ``Effects`` and where it came from. Each kind of
tool builds one in one place:

- a Python function: ``core.tooling._python_tool.build_python_tool`` (signature + docstring, as
  pydantic-ai reads them; effects given where it is registered,
  ``registry.register(func, effects=READ_ONLY)``);
- an MCP server's tool: ``tools._mcp._make_tool`` (the server's schemas as given; effects from
  its ``annotations``);
- a tool an agent declares with a plan: ``core.tooling._declared.parse_tool_definitions`` (MCP's
  fields, ``annotations`` included when the agent sends them).

Effects follow MCP's tool annotations (``readOnlyHint``, ``destructiveHint``,
``idempotentHint``). What a source did not say stays ``None``; a tool that says nothing at all
has ``UNKNOWN`` effects, which the rest of the code reads as "may write" (``may_write``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping

__all__ = ["Effects", "READ_ONLY", "IDEMPOTENT", "ADDITIVE", "DESTRUCTIVE", "UNKNOWN", "ToolDefinition",
           "ToolKind", "effects_from_annotations"]

ToolKind = Literal["python", "mcp", "agent"]


@dataclass(frozen=True)
class Effects:
    """What calling a tool does to the world, as its source declared it (``None``: not said)."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None

    @property
    def known(self) -> bool:
        return self.read_only is not None

    @property
    def may_write(self) -> bool:
        """Whether a call may change something: true unless the tool says it only reads."""
        return self.read_only is not True

    @property
    def label(self) -> str:
        """One phrase for people and the manual: "read-only", "writes, idempotent", ..."""
        if not self.known:
            return "unknown (may write)"
        if self.read_only:
            return "read-only"
        # MCP's defaults for a tool that writes: destructive unless it says otherwise.
        words = ["writes", "destructive" if self.destructive is not False else "additive"]
        if self.idempotent:
            words.append("idempotent")
        return ", ".join(words)

    def as_annotations(self) -> dict[str, bool]:
        """The MCP ``annotations`` hints that were said."""
        hints = {"readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                 "idempotentHint": self.idempotent}
        return {k: v for k, v in hints.items() if v is not None}


READ_ONLY = Effects(read_only=True, destructive=False, idempotent=True)
IDEMPOTENT = Effects(read_only=False, destructive=False, idempotent=True)  # writes; repeating changes nothing more
ADDITIVE = Effects(read_only=False, destructive=False, idempotent=False)  # writes; each call adds
DESTRUCTIVE = Effects(read_only=False, destructive=True, idempotent=False)  # removes or overwrites
UNKNOWN = Effects()

_BY_LABEL = {"read-only": READ_ONLY, "idempotent": IDEMPOTENT, "additive": ADDITIVE, "destructive": DESTRUCTIVE,
             "unknown": UNKNOWN}


def effects_from_annotations(annotations: Any) -> Effects:
    """Effects from MCP ``annotations`` (the SDK's ``ToolAnnotations`` or its JSON); ``UNKNOWN``
    when there are none or they hold no hint. A hint that is not a boolean is not taken."""
    if annotations is None:
        return UNKNOWN
    if not isinstance(annotations, Mapping):
        annotations = annotations.model_dump(by_alias=True, exclude_none=True)
    said = {key: value if isinstance(value, bool) else None
            for key, value in ((k, annotations.get(k)) for k in ("readOnlyHint", "destructiveHint", "idempotentHint"))}
    if all(v is None for v in said.values()):
        return UNKNOWN
    read_only = bool(said["readOnlyHint"])  # MCP's default when other hints are given: false
    return Effects(read_only=read_only,
                   destructive=False if read_only else said["destructiveHint"],
                   idempotent=True if read_only and said["idempotentHint"] is None else said["idempotentHint"])


def effects_of(value: Effects | str) -> Effects:
    """``value`` as Effects: an ``Effects`` or one of "read-only", "idempotent", "additive",
    "destructive", "unknown" (for ``registry.register(..., effects="read-only")``)."""
    if isinstance(value, Effects):
        return value
    if isinstance(value, str) and value in _BY_LABEL:
        return _BY_LABEL[value]
    raise ValueError(f"effects must be Effects or one of {', '.join(map(repr, _BY_LABEL))}, not {value!r}")


@dataclass(frozen=True)
class ToolDefinition:
    """One tool's contract: what every reader of a tool reads, whatever runs it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    effects: Effects = UNKNOWN
    kind: ToolKind = "python"
    source: str = ""  # where it came from when not built in ("file tools.py", "MCP server x"), for people
    returns_description: str = ""  # a Python tool's "Returns:" text
    overridden: frozenset[str] = field(default=frozenset())  # what a session override replaced

    def as_json(self) -> dict[str, Any]:
        """As MCP lists a tool (``annotations`` only when effects were said)."""
        data: dict[str, Any] = {"name": self.name, "description": self.description, "inputSchema": self.input_schema}
        if self.output_schema is not None:
            data["outputSchema"] = self.output_schema
        if self.effects.known:
            data["annotations"] = self.effects.as_annotations()
        return data

    def with_descriptions(self, description: str | None = None,
                          params: Mapping[str, str] | None = None) -> "ToolDefinition":
        """A copy with the description and the named parameters' descriptions replaced (the
        schema is copied; this definition is left as it is)."""
        changed = set(self.overridden)
        schema = self.input_schema
        if params:
            properties = schema.get("properties") or {}
            unknown = sorted(set(params) - set(properties))
            if unknown:
                raise KeyError(f"tool {self.name!r} has no parameter {unknown[0]!r}")
            schema = copy.deepcopy(schema)
            for name, text in params.items():
                schema["properties"][name]["description"] = text
                changed.add(f"params.{name}")
        if description is not None:
            changed.add("description")
        return replace(self, description=self.description if description is None else description,
                       input_schema=schema, overridden=frozenset(changed))

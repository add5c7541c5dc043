"""Tools are plain typed Python functions.

The registry reads a function's signature and its docstring (a summary, then Google-style
``Args:`` and ``Returns:`` sections) and turns them into what a planner, the validator and
the UI need: a name, a description, a JSON schema of the parameters (each with its
description), and a JSON schema of what the tool returns. Calls are validated against the
parameter schema before the function runs.

A mistake in the function itself (no type hints, an ``Args:`` entry for a parameter that
does not exist) raises ``ToolDefinitionError`` at registration; bad arguments at run time
raise ``ToolArgumentsError``; an exception inside the tool becomes ``ToolExecutionError``.
"""

from __future__ import annotations

import difflib
import inspect
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from ._errors import ToolArgumentsError, ToolDefinitionError, ToolExecutionError

__all__ = ["Tool", "ToolRegistry", "parse_docstring", "describe_error", "schema_alternatives"]

_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Returns|Return|Raises|Examples?|Notes?):\s*$")
_ARG = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str], str]:
    """Split a Google-style docstring into (description, {param: description}, returns)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    returns: list[str] = []
    section = None
    current = None
    arg_indent = None
    for line in lines:
        m = _SECTION.match(line)
        if m:
            section = m.group(1).rstrip("s").lower().replace("argument", "arg").replace("parameter", "arg")
            current, arg_indent = None, None
            continue
        if section is None:
            summary.append(line)
        elif section == "arg":
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            am = _ARG.match(line)
            if am and (arg_indent is None or indent <= arg_indent):
                arg_indent = indent
                current = am.group(1).lstrip("*")
                args[current] = am.group(2).strip()
            elif current:
                args[current] = (args[current] + " " + line.strip()).strip()
        elif section == "return":
            returns.append(line.strip())
    description = "\n".join(summary).strip()
    return description, args, " ".join(r for r in returns if r).strip()


def describe_error(err: dict) -> tuple[str, str]:
    """One pydantic error as (field path, plain message)."""
    loc = err.get("loc", ())
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    kind = err.get("type", "")
    got = err.get("input")
    if kind == "missing":
        return path, "required parameter is missing"
    if kind == "extra_forbidden":
        return path, "is not a parameter of this tool"
    if kind in ("literal_error", "enum"):
        expected = err.get("ctx", {}).get("expected", "")
        return path, f"{got!r} is not one of the allowed values: {expected}"
    return path, f"{err.get('msg', 'invalid value')} (got {got!r})"


def schema_alternatives(schema: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas a value may have: ``$ref``, ``anyOf`` and ``oneOf`` flattened (``defs`` is
    the top schema's ``$defs``). Shared by everything that explains a schema to a reader."""
    if "$ref" in schema:
        return schema_alternatives(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [o for sub in schema[key] for o in schema_alternatives(sub, defs)]
    return [schema]


@dataclass
class Tool:
    """A registered tool: the function plus what planners and the validator read from it."""

    name: str
    func: Callable[..., Any]
    description: str
    parameters: dict[str, Any]
    returns: dict[str, Any]
    returns_description: str = ""
    group: str = "general"
    arguments_model: type[BaseModel] = field(default=BaseModel, repr=False)
    _output: TypeAdapter | None = field(default=None, repr=False)

    @property
    def param_names(self) -> list[str]:
        return list(self.parameters.get("properties", {}))

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required", []))

    def check_arguments(self, args: dict[str, Any], skip: set[str] = frozenset()) -> list[tuple[str, str]]:
        """Problems with ``args`` as (field, message); fields in ``skip`` are taken on trust."""
        try:
            self.arguments_model.model_validate({k: v for k, v in args.items() if k not in skip})
        except ValidationError as exc:
            problems = [describe_error(e) for e in exc.errors()]
            return [(f, m) for f, m in problems if f.split(".")[0].split("[")[0] not in skip]
        return []

    def call(self, args: dict[str, Any]) -> Any:
        """Validate ``args``, run the tool, and return its result as JSON-ready data."""
        try:
            model = self.arguments_model.model_validate(args)
        except ValidationError as exc:
            listed = "; ".join(f"{f}: {m}" for f, m in (describe_error(e) for e in exc.errors()))
            raise ToolArgumentsError(f"{self.name}: {listed}") from exc
        kwargs = {name: getattr(model, name) for name in model.model_fields_set}
        try:
            result = self.func(**kwargs)
        except Exception as exc:  # the tool's own failure becomes the step's error
            message = str(exc) or type(exc).__name__
            raise ToolExecutionError(f"{self.name} failed: {message}") from exc
        if self._output is not None:
            return self._output.dump_python(result, mode="json")
        return TypeAdapter(Any).dump_python(result, mode="json")


class ToolRegistry:
    """Tools by name. Built-in tool groups register through the same calls as plugins."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, func: Callable[..., Any] | None = None, *, name: str | None = None,
                 group: str = "general", description: str | None = None) -> Any:
        """Register ``func`` as a tool; usable as ``@registry.register`` or with options."""
        if func is None:
            return lambda f: self.register(f, name=name, group=group, description=description)
        tool = _build_tool(func, name or func.__name__, group, description)
        if tool.name in self._tools:
            raise ToolDefinitionError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return func

    def get(self, name: str) -> Tool:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def suggest(self, name: str) -> str | None:
        """The registered name closest to ``name``, for a "did you mean" hint."""
        lowered = {n.lower(): n for n in self._tools}
        hit = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.5)
        return lowered[hit[0]] if hit else None


def _build_tool(func: Callable[..., Any], name: str, group: str, description: str | None) -> Tool:
    doc, arg_docs, returns_doc = parse_docstring(func.__doc__)
    try:
        hints = get_type_hints(func)
    except Exception as exc:
        raise ToolDefinitionError(f"tool {name!r}: cannot read its type hints: {exc}") from exc
    signature = inspect.signature(func)
    fields: dict[str, Any] = {}
    for pname, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(f"tool {name!r}: *args/**kwargs cannot be described to a model")
        if pname not in hints:
            raise ToolDefinitionError(f"tool {name!r}: parameter {pname!r} has no type hint")
        default = ... if param.default is param.empty else param.default
        fields[pname] = (hints[pname], Field(default, description=arg_docs.get(pname) or None))
    unknown = set(arg_docs) - set(fields)
    if unknown:
        raise ToolDefinitionError(f"tool {name!r}: docstring describes unknown parameters: {sorted(unknown)}")
    if not (description or doc):
        raise ToolDefinitionError(f"tool {name!r}: needs a docstring describing what it does")
    model = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    parameters = _clean_schema(model.model_json_schema())
    output = TypeAdapter(hints["return"]) if "return" in hints else None
    returns = _clean_schema(output.json_schema(mode="serialization")) if output else {}
    return Tool(name=name, func=func, description=description or doc, parameters=parameters,
                returns=returns, returns_description=returns_doc, group=group,
                arguments_model=model, _output=output)


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's generated titles: they repeat the names and cost model tokens."""
    if isinstance(schema, dict):
        return {k: _clean_schema(v) for k, v in schema.items()
                if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_clean_schema(v) for v in schema]
    return schema

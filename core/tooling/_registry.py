"""Tools by name: the registry, and the one ``Tool`` every kind of tool is.

A ``Tool`` is a ``ToolDefinition`` (``core.tooling._definition``: name, description, schemas,
effects, source; what planners, the validator and the pages read), a runner (what calls it: a
Python function, an MCP server, nobody for an agent's declared tool) and its group. Its
arguments are checked by the one check (``core.tooling._argument_check``) before the runner runs.

    registry.register(func, group="lists", effects=READ_ONLY)   # a Python tool
    view = registry.with_overrides({"addItem": ToolOverride(description="...")})  # for one session
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Mapping, Protocol

from ._argument_check import ArgumentCheck
from .._errors import ToolArgumentsError, ToolDefinitionError
from ._python_tool import build_python_tool, describe_error, parse_docstring
from ._retry import RetryPolicy
from ..schema._words import NON_BLANK, NonBlank, describe_bounds, describe_schema, schema_alternatives
from ._definition import UNKNOWN, Effects, ToolDefinition, effects_of
from ._effects_said import effects_said
from ._overrides import ToolOverride
from ._words import ToolWords

__all__ = ["Tool", "ToolRegistry", "ToolRunner", "parse_docstring", "describe_error", "schema_alternatives",
           "describe_schema", "describe_bounds", "NonBlank", "NON_BLANK"]


class ToolRunner(Protocol):
    """What runs a tool: called with the tool's name and arguments the check has passed."""

    def __call__(self, name: str, args: dict[str, Any]) -> Any: ...


@dataclass
class Tool:
    """A registered tool of any kind: its definition, what runs it, and its group."""

    definition: ToolDefinition
    runner: ToolRunner = field(repr=False)
    group: str = "general"
    # The author's word on how long a call may take and when it is worth another (None: the settings').
    timeout: float | None = None
    retry: RetryPolicy | None = None
    _check: ArgumentCheck | None = field(default=None, repr=False, compare=False)

    # What every reader reads, from the definition.
    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def description(self) -> str:
        return self.definition.description

    @property
    def parameters(self) -> dict[str, Any]:
        return self.definition.input_schema

    @property
    def returns(self) -> dict[str, Any]:
        return self.definition.output_schema or {}

    @property
    def returns_description(self) -> str:
        return self.definition.returns_description

    @property
    def effects(self) -> Effects:
        return self.definition.effects

    @property
    def kind(self) -> str:
        return self.definition.kind

    @property
    def source(self) -> str:
        return self.definition.source

    @source.setter
    def source(self, value: str) -> None:
        self.definition = replace(self.definition, source=value)

    @property
    def param_names(self) -> list[str]:
        return list(self.parameters.get("properties", {}))

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required", []))

    def with_definition(self, definition: ToolDefinition) -> "Tool":
        """The same tool (same runner, same group) read through another definition."""
        return Tool(definition, self.runner, self.group, timeout=self.timeout, retry=self.retry)

    def check_arguments(self, args: dict[str, Any], skip: set[str] = frozenset()) -> list[tuple[str, str]]:
        """Problems with ``args`` as (field, message): the one check, against the input schema."""
        if self._check is None or self._check.definition is not self.definition:
            self._check = ArgumentCheck(self.definition)
        return self._check(args, skip)

    def call(self, args: dict[str, Any]) -> Any:
        """Check ``args``, run the tool, and return its result as JSON-ready data."""
        call_admitted = getattr(self.runner, "call_admitted", None)
        if call_admitted is not None:
            admitted, result = call_admitted(self.name, args)
            if admitted:
                return result
        self.refuse_bad_arguments(args)
        return self.runner(self.name, args)

    def refuse_bad_arguments(self, args: dict[str, Any]) -> None:
        """``ToolArgumentsError`` naming each field ``args`` get wrong. A runner that converts
        arguments itself (a Python tool's pydantic model) is asked first: what it admits passes
        the check too, so the check (some 50 us a step) runs only to say what is wrong."""
        admits = getattr(self.runner, "admits", None)
        if admits is None or not admits(args):
            problems = self.check_arguments(args)
            if problems:
                raise ToolArgumentsError(f"{self.name}: " + "; ".join(f"{f}: {m}" for f, m in problems))

    def suggest_param(self, name: str) -> str | None:
        """The parameter closest to ``name``, for a "did you mean" hint."""
        hit = difflib.get_close_matches(name, self.param_names, n=1, cutoff=0.6)
        return hit[0] if hit else None


class ToolRegistry:
    """Tools by name. Built-in tool groups register through the same calls as plugins."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._words: list[tuple[str, ToolWords]] = []  # (group, words), in the order added

    def register(self, func: Callable[..., Any] | None = None, *, name: str | None = None,
                 group: str = "general", description: str | None = None,
                 effects: Effects | str = UNKNOWN, timeout: float | None = None,
                 retry: RetryPolicy | None = None) -> Any:
        """Register ``func`` as a tool; usable as ``@registry.register`` or with options.
        ``effects`` says what a call does (``READ_ONLY``, ``IDEMPOTENT``, ``ADDITIVE``,
        ``DESTRUCTIVE``, or their names); unsaid, what the function says itself (``@tool(...)``,
        an ``Effects:`` docstring line), else the tool may write. ``timeout`` (seconds) and
        ``retry`` hold its calls unless the user's settings say otherwise."""
        if func is None:
            return lambda f: self.register(f, name=name, group=group, description=description, effects=effects,
                                           timeout=timeout, retry=retry)
        if timeout is not None and not timeout > 0:
            raise ToolDefinitionError(f"tool {name or func.__name__!r}: timeout must be more than 0 seconds")
        try:
            said = effects_of(effects)
        except ValueError as exc:
            raise ToolDefinitionError(f"tool {name or func.__name__!r}: {exc}") from None
        own = effects_said(func, name or func.__name__)  # @tool(...) or "Effects:": checked even when given here
        said = said if said.known else own
        definition, runner = build_python_tool(func, name or func.__name__, description, said)
        tool = Tool(definition, runner, group=group, timeout=timeout, retry=retry)
        if tool.name in self._tools:
            raise ToolDefinitionError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return func

    def add(self, tool: Tool) -> None:
        """Add a tool built elsewhere (another registry, an MCP server); names stay unique."""
        if tool.name in self._tools:
            raise ToolDefinitionError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def groups(self) -> set[str]:
        return {tool.group for tool in self._tools.values()}

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

    def add_words(self, group: str, words: ToolWords) -> None:
        """Teach planners ``group``'s words (see ``_tool_words``); called from a group's ``register``."""
        if not isinstance(words, ToolWords):
            raise ToolDefinitionError(f"tool group {group!r}: add_words takes a ToolWords, not {type(words).__name__}")
        self._words.append((group, words))

    def words(self) -> list[tuple[str, ToolWords]]:
        """Every group's words as (group, words), in the order they were added."""
        return list(self._words)

    def add_words_of(self, other: ToolRegistry) -> None:
        """Add every group's words ``other`` holds (when its tools are copied here)."""
        for group, words in other.words():
            self.add_words(group, words)


    def with_overrides(self, overrides: Mapping[str, ToolOverride]) -> "ToolRegistry":
        """A view of this registry whose tools read as ``overrides`` say (descriptions, param
        descriptions), for one session, a test or a lab; this registry and the tools' sources
        are left as they are. Overrides of tools not here are ignored (a session may have
        removed the server that had them); a param a tool does not have is a ``ToolDefinitionError``."""
        view = ToolRegistry()
        for tool in self:
            override = overrides.get(tool.name)
            if override is not None and not override.is_empty:
                try:
                    tool = tool.with_definition(tool.definition.with_descriptions(override.description, override.params))
                except KeyError as exc:
                    raise ToolDefinitionError(str(exc.args[0])) from None
            view.add(tool)
        view.add_words_of(self)
        return view

"""Tools are plain typed Python functions.

The registry reads a function's signature and its docstring (a summary, then Google-style
``Args:`` and ``Returns:`` sections, read by griffe) and turns them into what a planner, the validator and
the UI need: a name, a description, a JSON schema of the parameters (each with its
description), and a JSON schema of what the tool returns. Calls are validated against the
parameter schema before the function runs, strictly and as JSON: ``"10"`` is not an integer
and ``"yes"`` not a boolean (dates are ISO text; an integer is a fine number), so a tool gets
exactly the values a reviewer approved. Bounds in the type hints (``Annotated[int,
Field(ge=1)]``, ``NonBlank``) go into the schema, so the validator checks them too.

A mistake in the function itself (no type hints, an ``Args:`` entry for a parameter that
does not exist) raises ``ToolDefinitionError`` at registration; bad arguments at run time
raise ``ToolArgumentsError``; an exception inside the tool becomes ``ToolExecutionError``
(``_tool_call``: an ``async def`` tool is awaited), and a result that cannot be JSON
``ToolResultError`` (``_json_result``).
"""

from __future__ import annotations

import difflib
import inspect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Callable, Iterator, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic_core import to_json

from ._errors import ToolArgumentsError, ToolDefinitionError, ToolResultError
from ._json_result import json_result
from ._retry import RetryPolicy
from ._tool_call import call_tool_function
from ._tool_words import ToolWords

if TYPE_CHECKING:
    import griffe

__all__ = ["Tool", "ToolRegistry", "parse_docstring", "describe_error", "schema_alternatives",
           "describe_schema", "describe_bounds", "NonBlank", "NON_BLANK"]

# A string with at least one character that is not white space. ``NonBlank`` is the type
# hint for tool params that refuse blank text; the schema carries the pattern, so the
# validator reports a blank value before the tool runs.
NON_BLANK = r"\S"
NonBlank = Annotated[str, Field(pattern=NON_BLANK)]


def _one_line(text: str) -> str:
    """A section entry's lines as one line: a description, not layout."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


# Tools written before griffe read them may put a section right under the text, or say "Return:";
# griffe wants a blank line above a section and knows only "Returns:".
_TIGHT_SECTION = re.compile(r"(?<=\S)\n(?=[ \t]*(?:Args|Arguments|Parameters|Returns?):[ \t]*$)", re.MULTILINE)
_RETURN = re.compile(r"^([ \t]*)Return:[ \t]*$", re.MULTILINE)


def _sections_apart(doc: str) -> str:
    return _RETURN.sub(r"\1Returns:", _TIGHT_SECTION.sub("\n\n", inspect.cleandoc(doc)))


def _returned(item: griffe.DocstringReturn) -> str:
    label = " ".join(filter(None, [item.name, f"({item.annotation})" if item.annotation else ""]))
    return f"{label}: {item.description}" if label else item.description


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str], str]:
    """Split a Google-style docstring into (description, {param: description}, returns).

    griffe's Google parser finds the sections (a fenced example in the summary stays in it);
    the description is the text before the first one. Returns is free text here: what griffe
    reads as a leading ``name:`` or ``(type):`` is put back in front of the description."""
    import griffe  # here, not at the top: ~80 ms that only registering a tool needs

    sections = griffe.parse_google(griffe.Docstring(_sections_apart(doc or "")), warnings=False,
                                   returns_multiple_items=False)
    summary: list[str] = []
    args: dict[str, str] = {}
    returns: list[str] = []
    in_summary = True
    for section in sections:
        in_summary = in_summary and section.kind is griffe.DocstringSectionKind.text
        if in_summary:
            summary.append(section.value)
        elif section.kind is griffe.DocstringSectionKind.parameters:
            args.update({p.name.lstrip("*"): _one_line(p.description) for p in section.value})
        elif section.kind is griffe.DocstringSectionKind.returns:
            returns.extend(_returned(r) for r in section.value)
    return "\n".join(summary).strip(), args, _one_line("\n".join(returns))


_EXPECTED = {"int": "a whole number", "bool": "true or false", "float": "a number",
             "string": "text", "list": "a list", "dict": "an object"}
_BOUNDS = {"greater_than_equal": ("ge", "at least"), "less_than_equal": ("le", "at most"),
           "greater_than": ("gt", "more than"), "less_than": ("lt", "less than")}


def describe_error(err: dict) -> tuple[str, str]:
    """One pydantic error as (field path, plain message)."""
    loc = err.get("loc", ())
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    kind = err.get("type", "")
    got = err.get("input")
    ctx = err.get("ctx", {})
    if kind == "missing":
        return path, "required parameter is missing"
    if kind == "extra_forbidden":
        return path, "is not a parameter of this tool"
    if kind in ("literal_error", "enum"):
        return path, f"{got!r} is not one of the allowed values: {ctx.get('expected', '')}"
    if kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        return path, f"must be {words} {ctx.get(key)} (got {got!r})"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == NON_BLANK:
        return path, f"must not be blank (got {got!r})"
    base = kind.rsplit("_", 1)[0]
    if kind.endswith(("_type", "_parsing")) and base in _EXPECTED:
        # Strict: "10" is not 10 and "yes" is not true; say so in the reviewer's words.
        if isinstance(got, str) and base != "string":
            return path, f"must be {_EXPECTED[base]}, not the text {got!r}"
        return path, f"must be {_EXPECTED[base]} (got {got!r})"
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


_ARTICLE = {"string": "a string", "integer": "an integer", "number": "a number",
            "boolean": "true or false", "null": "null", "object": "an object", "array": "a list"}
_PLURAL = {"string": "strings", "integer": "integers", "number": "numbers",
           "boolean": "booleans", "null": "nulls", "object": "objects", "array": "lists"}


def describe_schema(schema: dict[str, Any], defs: dict[str, Any], plural: bool = False) -> str:
    """What a schema's values are, in words: "a string or a list of strings". Only types
    (and enums); bounds are described where a schema is shown whole."""
    defs = schema.get("$defs", defs)
    parts: list[str] = []
    options = schema_alternatives(schema, defs)
    # "or null" says nothing a reader needs: a nullable param is optional, and is shown so.
    options = [o for o in options if o.get("type") != "null"] or options
    for option in options:
        if "enum" in option or "const" in option:
            values = option.get("enum", [option.get("const")])
            text = "one of " + ", ".join(repr(v) for v in values)
        else:
            kind = option.get("type") or ("object" if "properties" in option else None)
            kinds = kind if isinstance(kind, list) else [kind]
            words = []
            for k in kinds:
                if k is None:
                    words.append("values" if plural else "any value")
                elif k == "array" and option.get("items"):
                    inner = describe_schema(option["items"], defs, plural=True)
                    words.append(f"{'lists' if plural else 'a list'} of {inner}")
                elif k == "string" and option.get("format") in ("date", "date-time"):
                    words.append(f"{option['format']}{'s' if plural else ''} (ISO text)")
                else:
                    words.append((_PLURAL if plural else _ARTICLE).get(k, str(k)))
            text = " or ".join(words)
        if text not in parts:
            parts.append(text)
    return " or ".join(parts)


_LIMITS = (("minimum", "at least {}"), ("exclusiveMinimum", "more than {}"),
           ("maximum", "at most {}"), ("exclusiveMaximum", "less than {}"),
           ("minLength", "at least {} characters"), ("maxLength", "at most {} characters"),
           ("minItems", "at least {} items"), ("maxItems", "at most {} items"))


def describe_bounds(schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    """A schema's bounds in words ("at least 1", "not blank"), for the manual and the Tools page."""
    out: list[str] = []
    for option in schema_alternatives(schema, defs):
        words = [text.format(option[key]) for key, text in _LIMITS if key in option]
        if "pattern" in option:
            words.append("not blank" if option["pattern"] == NON_BLANK else f"matching {option['pattern']}")
        out += [w for w in words if w not in out]
    return out


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
    # Where the tool came from when it is not built in ("file tools.py", "MCP server x"), for the Tools page.
    source: str = ""
    # The author's word on how long a call may take and when it is worth another (None: the settings').
    timeout: float | None = None
    retry: RetryPolicy | None = None
    arguments_model: type[BaseModel] = field(default=BaseModel, repr=False)
    _output: TypeAdapter | None = field(default=None, repr=False)

    @property
    def param_names(self) -> list[str]:
        return list(self.parameters.get("properties", {}))

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required", []))

    def check_arguments(self, args: dict[str, Any], skip: set[str] = frozenset()) -> list[tuple[str, str]]:
        """Problems with ``args`` as (field, message). The values of fields in ``skip``
        (those holding references) are checked elsewhere; their names still must be
        parameters of this tool."""
        known = set(self.param_names)
        problems = [(name, self._unknown(name)) for name in args if name in skip and name not in known]
        try:
            self.validate_arguments({k: v for k, v in args.items() if k not in skip})
        except ValidationError as exc:
            problems += [(f, m) for f, m in self._describe(exc, args) if f.split(".")[0].split("[")[0] not in skip]
        return problems

    def validate_arguments(self, args: dict[str, Any]) -> BaseModel:
        """The arguments model for ``args``, validated strictly as JSON: ``"10"`` is not an
        integer and ``"yes"`` is not a boolean, so what runs is what the reviewer saw. Dates
        are ISO text, as in any JSON plan; an integer is a fine number."""
        return self.arguments_model.model_validate_json(to_json(args), strict=True)

    def call(self, args: dict[str, Any]) -> Any:
        """Validate ``args``, run the tool, and return its result as JSON-ready data."""
        kwargs = self.keyword_arguments(args)
        return self.json_result(call_tool_function(self.name, self.func, kwargs))

    def keyword_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` validated, as the function's keyword arguments; ``ToolArgumentsError`` if bad."""
        try:
            model = self.validate_arguments(args)
        except ValidationError as exc:
            listed = "; ".join(f"{f}: {m}" for f, m in self._describe(exc, args))
            raise ToolArgumentsError(f"{self.name}: {listed}") from exc
        return {name: getattr(model, name) for name in model.model_fields_set}

    def json_result(self, result: Any) -> Any:
        """What the function returned, as JSON data; ``ToolResultError`` names what is not."""
        try:
            return json_result(result, self._output)
        except ToolResultError as exc:
            raise ToolResultError(f"{self.name} failed: {exc}") from None

    def suggest_param(self, name: str) -> str | None:
        """The parameter closest to ``name``, for a "did you mean" hint."""
        hit = difflib.get_close_matches(name, self.param_names, n=1, cutoff=0.6)
        return hit[0] if hit else None

    def _unknown(self, name: str) -> str:
        hint = self.suggest_param(name)
        return "is not a parameter of this tool" + (f"; did you mean {hint!r}?" if hint else "")

    def _describe(self, exc: ValidationError, args: dict[str, Any]) -> list[tuple[str, str]]:
        """Pydantic's errors as (field, message), one per field of a union: pydantic reports
        each member of ``str | list[str]`` apart, under its own made-up name."""
        props = self.parameters.get("properties", {})
        defs = self.parameters.get("$defs", {})
        out: list[tuple[str, str]] = []
        unions: set[str] = set()
        for err in exc.errors():
            loc = err.get("loc", ())
            name = loc[0] if loc else ""
            if err.get("type") == "extra_forbidden" and len(loc) == 1:
                out.append((str(name), self._unknown(str(name))))
            elif isinstance(name, str) and name in props and len(loc) > 1 \
                    and len(schema_alternatives(props[name], defs)) > 1:
                if name not in unions:
                    unions.add(name)
                    wanted = describe_schema(props[name], defs)
                    out.append((name, f"must be {wanted} (got {args.get(name)!r})"))
            else:
                out.append(describe_error(err))
        return out


class ToolRegistry:
    """Tools by name. Built-in tool groups register through the same calls as plugins."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._words: list[tuple[str, ToolWords]] = []  # (group, words), in the order added

    def register(self, func: Callable[..., Any] | None = None, *, name: str | None = None,
                 group: str = "general", description: str | None = None, timeout: float | None = None,
                 retry: RetryPolicy | None = None) -> Any:
        """Register ``func`` as a tool; usable as ``@registry.register`` or with options.
        ``timeout`` (seconds) and ``retry`` hold its calls unless the user's settings say otherwise."""
        if func is None:
            return lambda f: self.register(f, name=name, group=group, description=description,
                                           timeout=timeout, retry=retry)
        if timeout is not None and not timeout > 0:
            raise ToolDefinitionError(f"tool {name or func.__name__!r}: timeout must be more than 0 seconds")
        tool = _build_tool(func, name or func.__name__, group, description)
        tool.timeout, tool.retry = timeout, retry
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


def _build_tool(func: Callable[..., Any], name: str, group: str, description: str | None) -> Tool:
    doc, arg_docs, returns_doc = parse_docstring(func.__doc__)
    if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
        raise ToolDefinitionError(f"tool {name!r}: is a generator (it yields); a tool returns its result")
    try:
        hints = get_type_hints(func, include_extras=True)
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

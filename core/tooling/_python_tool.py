"""A Python function as a tool: its signature and docstring become the tool's definition.

The registry reads a function's signature and its docstring (a summary, then Google-style
``Args:`` and ``Returns:`` sections, read by griffe) and turns them into a ``ToolDefinition``:
a name, a description, a JSON schema of the parameters (each with its description) and a JSON
schema of what the tool returns, as pydantic-ai does. Bounds in the type hints
(``Annotated[int, Field(ge=1)]``, ``NonBlank``) go into the schema, so the one argument check
(``core.tooling._argument_check``) checks them too. Its effects are given where it is registered.

Once the check has passed, ``PythonRunner`` has pydantic turn the JSON arguments into the
function's types (an ISO date into a ``date``), strictly: ``"10"`` is not an integer and
``"yes"`` not a boolean, so a tool gets exactly the values a reviewer approved. A mistake in the
function itself (no type hints, an ``Args:`` entry for a parameter that does not exist) raises
``ToolDefinitionError`` at registration; an exception inside the tool becomes
``ToolExecutionError`` (``_tool_call``: an ``async def`` tool is awaited), and a result that
cannot be JSON ``ToolResultError`` (``_json_result``).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic_core import to_json

from .._errors import ToolArgumentsError, ToolDefinitionError, ToolResultError
from ._json_result import json_result
from ..schema._words import NON_BLANK
from ._calling import call_tool_function
from ._definition import Effects, ToolDefinition
from ._effects_said import without_effects_line

if TYPE_CHECKING:
    import griffe

__all__ = ["PythonRunner", "build_python_tool", "parse_docstring", "describe_error"]


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


@dataclass(frozen=True)
class PythonRunner:
    """Runs a Python tool: the checked arguments converted by pydantic, the function called,
    its result made JSON."""

    func: Callable[..., Any]
    arguments_model: type[BaseModel] = field(repr=False)
    output: TypeAdapter | None = field(default=None, repr=False)

    def admits(self, args: dict[str, Any]) -> bool:
        """Whether pydantic takes ``args`` as they are (a few us; the schema is made from the
        same model, so the argument check would find nothing in them)."""
        try:
            self.arguments_model.model_validate_json(to_json(args), strict=True)
        except (ValidationError, ValueError):
            return False
        return True

    def __call__(self, name: str, args: dict[str, Any]) -> Any:
        return self.json_result(name, call_tool_function(name, self.func, self.keyword_arguments(name, args)))

    def call_admitted(self, name: str, args: dict[str, Any]) -> tuple[bool, Any]:
        """(True, what ``self(name, args)`` returns) when pydantic takes ``args`` as they are;
        (False, None) without calling the function when it does not. Converts once what
        ``admits`` and then ``keyword_arguments`` each converted: a short step paid it twice."""
        try:
            model = self.arguments_model.model_validate_json(to_json(args), strict=True)
        except (ValidationError, ValueError):
            return False, None
        kwargs = {pname: getattr(model, pname) for pname in model.model_fields_set}
        return True, self.json_result(name, call_tool_function(name, self.func, kwargs))

    def keyword_arguments(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` converted by the function's model, as its keyword arguments."""
        try:
            model = self.arguments_model.model_validate_json(to_json(args), strict=True)
        except ValidationError as exc:  # what the schema cannot say (a validator in a type hint)
            listed = "; ".join(f"{f}: {m}" for f, m in map(describe_error, exc.errors()))
            raise ToolArgumentsError(f"{name}: {listed}") from exc
        return {pname: getattr(model, pname) for pname in model.model_fields_set}

    def json_result(self, name: str, result: Any) -> Any:
        """What the function returned, as JSON data; ``ToolResultError`` names what is not."""
        try:
            return json_result(result, self.output)
        except ToolResultError as exc:
            raise ToolResultError(f"{name} failed: {exc}") from None


def build_python_tool(func: Callable[..., Any], name: str, description: str | None,
                      effects: Effects) -> tuple[ToolDefinition, PythonRunner]:
    doc, arg_docs, returns_doc = parse_docstring(without_effects_line(func.__doc__))
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
    definition = ToolDefinition(name=name, description=description or doc, input_schema=parameters,
                                output_schema=returns or None, effects=effects, kind="python",
                                returns_description=returns_doc)
    return definition, PythonRunner(func, model, output)


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's generated titles: they repeat the names and cost model tokens."""
    if isinstance(schema, dict):
        return {k: _clean_schema(v) for k, v in schema.items()
                if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_clean_schema(v) for v in schema]
    return schema

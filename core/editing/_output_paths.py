"""What a step's output offers to later steps.

``output_paths`` lists the paths a reference picker may offer for a tool, read from the
tool's return schema: ``data`` (the rows), ``data.*.id`` (the ``id`` of every row, a list),
``data[0].name`` (the first row's name, one value). Given a param's schema it keeps only the
paths whose value can fit it (the rule of ``core.validation._schema_fit``): a list into an array param,
one value into a scalar one.

What a reference gives in a run (``preview_reference``) is the run's: ``core.run._previews``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._errors import EditRefused
from ..plan._path_schemas import schema_at_path
from ..plan._references import MAP, Segment, path_text
from ..tooling._registry import ToolRegistry, describe_schema, schema_alternatives
from ..validation._schema_fit import may_fit

__all__ = ["OutputPath", "output_paths"]

# Deep enough for rows of records of records; recursive types stop here.
MAX_PATH_PARTS = 6


@dataclass(frozen=True)
class OutputPath:
    """One path into a tool's output: ``path`` as written after ``${steps.<id>`` (without its
    leading dot; empty for the whole result), its JSON ``schema`` and its ``type`` in words."""

    path: str
    segments: tuple[Segment, ...]
    schema: dict[str, Any]
    type: str
    description: str = ""

    @property
    def many(self) -> bool:
        """Whether the path maps over a list (``*``), so it yields one value per item."""
        return MAP in self.segments


def output_paths(registry: ToolRegistry, tool: str, fits: dict[str, Any] | None = None) -> list[OutputPath]:
    """Every path into ``tool``'s declared output, the whole result first; with ``fits`` (a
    param's JSON schema, ``$defs`` included) only those whose value can fit that param. A tool
    that declares no return type offers only its whole result, of any type."""
    if tool not in registry:
        hint = registry.suggest(tool)
        raise EditRefused(f"unknown tool {tool!r}" + (f"; did you mean {hint!r}?" if hint else ""),
                          fields=["tool"])
    returns = registry.get(tool).returns
    defs = returns.get("$defs", {})
    found: dict[str, tuple[Segment, ...]] = {}
    _walk(returns, (), defs, found, ())
    out = []
    for text, segments in found.items():
        if segments and segments[-1] is MAP:
            continue  # ``data.*`` is ``data`` again
        schema = schema_at_path(returns, segments)
        if fits is not None and not may_fit(schema, fits):
            continue
        description = next((o.get("description", "") for o in schema_alternatives(schema, defs)
                            if o.get("description")), "")
        out.append(OutputPath(text, segments, schema, describe_schema(schema, defs), description))
    return out


def _walk(schema: dict[str, Any], at: tuple[Segment, ...], defs: dict[str, Any],
          found: dict[str, tuple[Segment, ...]], seen: tuple[str, ...]) -> None:
    found.setdefault(path_text(at), at)
    if len(at) >= MAX_PATH_PARTS:
        return
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if seen.count(name) >= 2:
            return  # a recursive type: two levels of it are enough to pick from
        seen = (*seen, name)
    for option in schema_alternatives(schema, defs):
        for name, sub in (option.get("properties") or {}).items():
            _walk(sub, (*at, name), defs, found, seen)
        if option.get("type") == "array" and isinstance(option.get("items"), dict):
            _walk(option["items"], (*at, MAP), defs, found, seen)
            _walk(option["items"], (*at, 0), defs, found, seen)

"""The JSON schema the LLM planner sends with its request: each tool with its own params.

A step is ``anyOf`` over the tools: ``tool`` is that tool's name as a ``const`` and ``params``
is that tool's input schema (no other names: ``additionalProperties: false``), so a server
that decodes under the schema (llama.cpp's grammar, vLLM's guided decoding, OpenAI's
structured output) cannot write a tool's params under another tool, a name the tool does
not have, a value of the wrong type or outside an enum.

Two things are loosened on purpose, because the studio resolves them itself:

- a date param takes any text: an ISO date or the goal's own phrase ("last week"), which
  ``_llm_dates`` works out with the studio's date table (small models get date arithmetic
  wrong, and a ``"date"`` format would forbid the phrase);
- any param may be a reference to an earlier step's output, ``${step[N].<path>}``, where the
  paths offered are those the tools' declared output schemas give and that fit the param
  (``core.editing._output_paths.output_paths``).

And one thing is bounded, given the user's words (``said``): a list of literal ids (a param
named ``..._id(s)``) holds at most as many as the words of ``said`` (at least a few). Ids come
from an earlier step or from the user; a small model wrote 19 made-up ones (14 s of
decoding), which the studio then left out anyway (``_llm_unsaid``).

``$ref``s are inlined (each tool's ``$defs`` are its own, and the schema nests them), to a
bounded depth.
"""

from __future__ import annotations

from typing import Any, Iterable

from ...editing._output_paths import output_paths
from ...tooling._registry import Tool, ToolRegistry
from ._params import ID_PARAM, takes_a_date

__all__ = ["plan_json_schema", "DATE_HINT", "ids_bound"]

DATE_HINT = 'An ISO date (YYYY-MM-DD) or the goal\'s own words for it, e.g. "last week", "yesterday".'
_INLINE_DEPTH = 8
_PATHS_OFFERED = 12  # reference paths in one param's pattern: enough for the tools' outputs
_FEWEST_IDS = 3  # the bound of a list of literal ids, however short the user's words


def plan_json_schema(registry: ToolRegistry, tools: Iterable[str] | None = None,
                     max_steps: int | None = None, said: str | None = None) -> dict[str, Any]:
    """The seed format as a JSON schema, one ``anyOf`` branch per tool (all, or ``tools``);
    with ``max_steps``, a grammar closes the list there (a looping model cannot go on); with
    ``said`` (the user's words), a list of literal ids is as long as its words at most."""
    names = [n for n in (tools if tools is not None else registry.names()) if n in registry]
    most_ids = None if said is None else ids_bound(said)
    branches = [_step_schema(registry, registry.get(name), most_ids) for name in names]
    step: dict[str, Any] = {"anyOf": branches} if branches else {"type": "object"}
    steps: dict[str, Any] = {"type": "array", "items": step}
    if max_steps is not None:
        steps["maxItems"] = max_steps
    return {"type": "object", "properties": {"steps": steps}, "required": ["steps"], "additionalProperties": False}


def ids_bound(said: str) -> int:
    """How many literal ids a list may hold, given the user's words: one a word, a few at least."""
    return max(_FEWEST_IDS, len(said.split()))


def _step_schema(registry: ToolRegistry, tool: Tool, most_ids: int | None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "tool": {"const": tool.name},
            "params": _params_schema(registry, tool, most_ids),
            "depends_on": {"type": "array", "items": {"type": "integer", "minimum": 0},
                           "description": "Numbers of the earlier steps this step needs."},
            "parallel": {"type": "boolean"},
            "note": {"type": "string", "maxLength": 200},
        },
        "required": ["tool", "params", "depends_on", "parallel"],
        "additionalProperties": False,
    }


def _params_schema(registry: ToolRegistry, tool: Tool, most_ids: int | None) -> dict[str, Any]:
    defs = tool.parameters.get("$defs", {})
    properties: dict[str, Any] = {}
    for name, schema in (tool.parameters.get("properties") or {}).items():
        own = _loosen_dates(_inline(schema, defs, 0))
        if most_ids is not None and ID_PARAM.search(name):
            own = _bounded_lists(own, most_ids)
        reference = _reference_schema(registry, {**schema, "$defs": defs})
        properties[name] = {"anyOf": [own, reference]} if reference else own
    return {"type": "object", "properties": properties, "required": list(tool.required),
            "additionalProperties": False}


def _inline(schema: Any, defs: dict[str, Any], depth: int) -> Any:
    """``schema`` with every ``$ref`` into ``defs`` replaced by what it names."""
    if isinstance(schema, list):
        return [_inline(s, defs, depth) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        target = defs.get(str(schema["$ref"]).rsplit("/", 1)[-1])
        if target is None or depth >= _INLINE_DEPTH:
            return {}  # a recursive or dangling type: any value here, the validator checks it
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return _inline({**target, **rest}, defs, depth + 1)
    # A tool's own "pattern" stays with the validator: llama-cpp-python's converter takes only
    # anchored patterns in a small regex subset, and drops the schema of every tool for one it
    # cannot read (an unanchored "\\S" did).
    return {k: _inline(v, defs, depth) for k, v in schema.items()
            if k not in ("$defs", "title", "default", "pattern")}


def _loosen_dates(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_loosen_dates(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("format") == "date":
        # No "${": "${today - 7 days}" is no reference and no date.
        return {**{k: v for k, v in schema.items() if k != "format"}, "pattern": "^[^$]*$",
                "description": DATE_HINT}
    return {k: _loosen_dates(v) for k, v in schema.items()}


def _bounded_lists(schema: Any, most: int) -> Any:
    """``schema`` with each list in it (not nested in another) holding at most ``most`` items."""
    if isinstance(schema, list):
        return [_bounded_lists(s, most) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("type") == "array":
        bound = max(most, schema.get("minItems", 0))  # never below the tool's own least: nothing would fit
        return {**schema, "maxItems": min(bound, schema["maxItems"]) if "maxItems" in schema else bound}
    return {k: _bounded_lists(v, most) if k in ("anyOf", "oneOf") else v for k, v in schema.items()}


def _reference_schema(registry: ToolRegistry, param: dict[str, Any]) -> dict[str, Any] | None:
    """A string that is a reference to a path of some tool's output fitting ``param``."""
    paths: list[str] = []
    dated = takes_a_date(param)
    for name in registry.names():
        for path in output_paths(registry, name, fits=param):
            # A date param takes text, so any text output "fits"; offered those, a model told
            # not to work dates out wrote a reference to some row's field in step 0 instead.
            if path.path not in paths and (not dated or takes_a_date(path.schema)):
                paths.append(path.path)
    if not paths:
        return None
    # Lists of ids first (what joins steps), then single ids, then the rest.
    paths.sort(key=lambda p: ("*" not in p, not p.endswith("id"), len(p)))
    offered = paths[:_PATHS_OFFERED]
    # The whole result ("") makes the group optional: an empty alternative is not portable.
    alternatives = "|".join(_literal(f".{p}") for p in offered if p)
    group = "" if not alternatives else f"({alternatives})?" if "" in offered else f"({alternatives})"
    return {"type": "string", "pattern": rf"^[$]\{{step\[[0-9]+\]{group}\}}$",
            "description": "A reference to an earlier step's output: ${step[N].path}"}


def _literal(text: str) -> str:
    """``text`` as a regex in the subset grammar converters read: ``.`` and ``$`` in a class
    (llama.cpp's converters copy ``\\.`` into the grammar, which refuses the escape, and
    llama-cpp-python's server then drops the whole schema without a word), the other
    special characters escaped, which the converters turn back into literals."""
    return "".join(f"[{c}]" if c in ".$^" else f"\\{c}" if c in "[](){}|*+?\\" else c for c in text)

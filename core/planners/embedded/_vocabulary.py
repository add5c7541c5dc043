"""What the embedded planner knows about the tools, read from the registry.

Entity nouns come from tool names (``facilities_list`` names facilities), filters from the
parameter schemas (enums, booleans, dates, a ``limit``), links between tools from
parameters named after another tool's entity (``facility_id``, ``shipment_ids``), and
example values from "e.g." lists in parameter descriptions. Only tools that read (a
list/get/search/lookup verb in the name) are planned with; a required parameter is filled from
the goal's words (``_required``) or named as missing. What no schema can
say (place names, synonyms of values, cue words for a parameter) each tool group hands the
registry as ``ToolWords`` (``core.tooling._words``); they are merged here, so a registry
without a group plans without its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ...tooling._registry import Tool, ToolRegistry

__all__ = ["ToolInfo", "Vocabulary", "out_of_bounds", "plural", "shown_number", "singular"]

_READ_VERBS = {"list", "get", "search", "find", "fetch", "query", "read", "show", "lookup", "all"}
_NOT_PARAM_NOUNS = {"id", "ids", "from", "to", "has", "is", "level", "list", "limit", "date", "type", "near",
                    "not", "no", "exclude", "excluded", "without"}


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if re.search(r"(ss|sh|ch|x)es$", word):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def plural(word: str) -> str:
    if word.endswith("s"):
        return word
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(sh|ch|x)$", word):
        return word + "es"
    return word + "s"


def _options(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return list(schema.get("anyOf") or schema.get("oneOf") or [schema])


@dataclass
class ToolInfo:
    """One plannable tool as the planner sees it."""

    name: str
    entity: str  # plural, lowercase, e.g. "facilities"
    entity_singular: str
    params: list[str]
    enums: dict[str, list[str]] = field(default_factory=dict)
    # Enum parameters that take a list of their values ("states": ["new", "open"]).
    enum_lists: set[str] = field(default_factory=set)
    bools: list[str] = field(default_factory=list)
    date_from: str | None = None
    date_to: str | None = None
    limit: str | None = None
    city_params: dict[str, str] = field(default_factory=dict)  # "location"/"destination" -> param
    known_values: dict[str, list[str]] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)  # other tool -> param holding its ids
    id_path: str = "data.*.id"
    param_nouns: dict[str, str] = field(default_factory=dict)  # "carrier" -> "carrier"
    required: list[str] = field(default_factory=list)  # filled from the goal's words (``_required``)
    param_types: dict[str, set[str]] = field(default_factory=dict)  # "city" -> {"string"}
    # Inclusive bounds of numeric parameters, from the schema's minimum/maximum (None: unbounded).
    bounds: dict[str, tuple[int | float | None, int | float | None]] = field(default_factory=dict)

    @property
    def forms(self) -> tuple[str, ...]:
        return (self.entity, self.entity_singular)


class Vocabulary:
    """Every plannable tool of a registry, with the words that name them and their filters."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.tools: dict[str, ToolInfo] = {}
        for tool in registry:
            info = _describe(tool)
            if info is not None:
                self.tools[info.name] = info
        for info in self.tools.values():
            for other in self.tools.values():
                if other.name == info.name:
                    continue
                stem = other.entity_singular.replace(" ", "_")
                for pname in (f"{stem}_id", f"{stem}_ids"):
                    if pname in info.params:
                        info.links[other.name] = pname
        words = [w for _group, w in registry.words()]
        self.cities: dict[str, str] = {c.lower(): c for w in words for c in w.places}
        for w in words:
            self.cities.update(w.place_spellings)
        self.value_phrases: dict[str, dict[object, tuple[str, ...]]] = {}
        self.kind_words: dict[str, tuple[str, ...]] = {}
        self.name_cues: dict[str, tuple[str, ...]] = {}
        self.said_param_nouns: dict[str, tuple[str, ...]] = {}
        self.kind_nouns: tuple[str, ...] = _merged(w.kind_nouns for w in words)
        for w in words:
            for param, by_value in w.value_phrases.items():
                for value, said in by_value.items():
                    known = self.value_phrases.setdefault(param, {})
                    known[value] = _merged([known.get(value, ()), said])
            _add_all(self.kind_words, w.kind_words)
            _add_all(self.name_cues, w.name_cues)
            _add_all(self.said_param_nouns, w.param_nouns)
        for info in self.tools.values():
            for param in info.city_params.values():
                for value in info.known_values.get(param, []):
                    self.cities.setdefault(value.lower(), value)

    def by_name(self, name: str) -> ToolInfo:
        return self.tools[name]

    def describe(self) -> str:
        """The entities the planner knows, for error messages."""
        return ", ".join(f"{t.entity} ({t.name})" for t in self.tools.values())

    def enum_values(self) -> dict[tuple[str, str], list[str]]:
        """(param, value) -> tools whose ``param`` enum allows ``value``."""
        out: dict[tuple[str, str], list[str]] = {}
        for info in self.tools.values():
            for param, values in info.enums.items():
                for value in values:
                    out.setdefault((param, value), []).append(info.name)
        return out

    def bool_params(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for info in self.tools.values():
            for param in info.bools:
                out.setdefault(param, []).append(info.name)
        return out

    def known_values(self) -> dict[str, tuple[str, str]]:
        """Lowercased example value -> (param, value), for non-city string parameters."""
        out: dict[str, tuple[str, str]] = {}
        for info in self.tools.values():
            for param, values in info.known_values.items():
                if param in info.city_params.values():
                    continue
                for value in values:
                    out.setdefault(value.lower(), (param, value))
        return out

    def param_nouns(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for info in self.tools.values():
            for noun, param in info.param_nouns.items():
                out.setdefault(noun, param)
        return out


def _merged(parts: Iterable[Iterable[str]]) -> tuple[str, ...]:
    """The words of ``parts`` in order, each once."""
    return tuple(dict.fromkeys(word for part in parts for word in part))


def _add_all(into: dict[str, tuple[str, ...]], more: Mapping[str, tuple[str, ...]]) -> None:
    for key, said in more.items():
        into[key] = _merged([into.get(key, ()), said])


def _describe(tool: Tool) -> ToolInfo | None:
    words = tool.name.lower().split("_")
    nouns = [w for w in words if w not in _READ_VERBS]
    if len(nouns) == len(words) or not nouns:
        return None
    entity = " ".join(nouns[:-1] + [plural(nouns[-1])])
    info = ToolInfo(name=tool.name, entity=entity,
                    entity_singular=" ".join(nouns[:-1] + [singular(nouns[-1])]),
                    params=tool.param_names, id_path=_id_path(tool.returns), required=tool.required)
    for pname, schema in tool.parameters.get("properties", {}).items():
        opts = _options(schema)
        types = {o.get("type") for o in opts}
        info.param_types[pname] = {t for t in types if isinstance(t, str)}
        description = schema.get("description") or ""
        enum = [v for o in opts for v in o.get("enum", []) if isinstance(v, str)]
        listed = [v for o in opts if o.get("type") == "array" and isinstance(o.get("items"), dict)
                  and isinstance(o["items"].get("enum"), list) for v in o["items"]["enum"] if isinstance(v, str)]
        if listed and not enum:
            enum = listed
            info.enum_lists.add(pname)
        if enum:
            info.enums[pname] = list(dict.fromkeys(enum))
        if "boolean" in types:
            info.bools.append(pname)
        if any(o.get("format") == "date" for o in opts):
            if pname.endswith("from") or pname.startswith("start"):
                info.date_from = pname
            elif pname.endswith("to") or pname.startswith("end"):
                info.date_to = pname
        if pname == "limit" and "integer" in types:
            info.limit = pname
        if types & {"integer", "number"}:
            bounds = _bounds(opts, integer="number" not in types)
            if pname == info.limit and bounds[0] is None:
                bounds = (1, bounds[1])  # a count of rows below one would list nothing
            if bounds != (None, None):
                info.bounds[pname] = bounds
        if "string" in types and not enum and re.search(r"\bcity\b", description, re.IGNORECASE):
            kind = ("destination" if "destination" in pname or "going to" in description.lower()
                    else "location")
            info.city_params.setdefault(kind, pname)
        examples = re.search(r"\be\.g\.,?\s*([^.;)]+)", description)
        if examples and "string" in types:
            values = [v.strip() for v in re.split(r",|\bor\b|\band\b", examples.group(1)) if v.strip()]
            info.known_values[pname] = values
        for noun in pname.split("_"):
            if noun not in _NOT_PARAM_NOUNS and len(noun) > 2:
                info.param_nouns.setdefault(noun, pname)
                info.param_nouns.setdefault(plural(noun), pname)
    return info


def _bounds(options: list[dict[str, Any]], *, integer: bool) -> tuple[int | float | None, int | float | None]:
    """The inclusive range a numeric parameter's schema allows (``exclusive*`` made inclusive
    for integers)."""
    low: int | float | None = None
    high: int | float | None = None
    step = 1 if integer else 0
    for option in options:
        if option.get("type") not in ("integer", "number"):
            continue
        lows = [option.get("minimum"), option.get("exclusiveMinimum")]
        highs = [option.get("maximum"), option.get("exclusiveMaximum")]
        if isinstance(lows[1], (int, float)) and not isinstance(lows[1], bool):
            lows[1] += step
        if isinstance(highs[1], (int, float)) and not isinstance(highs[1], bool):
            highs[1] -= step
        found_low = [v for v in lows if isinstance(v, (int, float)) and not isinstance(v, bool)]
        found_high = [v for v in highs if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if found_low:
            low = max(found_low) if low is None else max(low, *found_low)
        if found_high:
            high = min(found_high) if high is None else min(high, *found_high)
    return low, high


def out_of_bounds(info: ToolInfo, params: dict[str, Any], said: str) -> str | None:
    """Why a number in ``params`` is outside what ``info``'s schema allows, or ``None``.

    ``said`` names what asked for it ("the goal", "the feedback").
    """
    for param, value in params.items():
        if param not in info.bounds or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        low, high = info.bounds[param]
        if (low is None or value >= low) and (high is None or value <= high):
            continue
        if low is not None and high is not None:
            allowed = f"between {low} and {high}"
        elif low is not None:
            allowed = f"at least {low}"
        else:
            allowed = f"at most {high}"
        return f"{param} must be {allowed} for {info.name}; {said} asks for {shown_number(value)}"
    return None


def shown_number(value: int | float) -> str:
    """A number for a message, shortened when it has too many digits to read."""
    try:
        text = str(value)
    except ValueError:  # more digits than Python will print
        return "a number with thousands of digits"
    return text if len(text) <= 24 else f"{text[:12]}… ({len(text)} digits)"


def _id_path(returns: dict[str, Any]) -> str:
    """The path to every row's id in a tool's result (``data.*.id`` for the demo tools)."""
    defs = returns.get("$defs", {})

    def resolve(schema: dict[str, Any]) -> dict[str, Any]:
        if "$ref" in schema:
            return resolve(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}))
        return schema

    for name, prop in resolve(returns).get("properties", {}).items():
        prop = resolve(prop)
        if prop.get("type") == "array" and "id" in resolve(prop.get("items", {})).get("properties", {}):
            return f"{name}.*.id"
    return "data.*.id"

"""What reading a goal finds: mentions of entities, filters and parameter nouns, the
segments a goal is cut into, and the parameters a filter becomes on a tool."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._vocabulary import ToolInfo

__all__ = ["CITY", "DATES", "LIMIT", "MASK", "Filter", "Mention", "Segment", "Parsed", "accepts"]


# Pseudo parameter names for filters whose real parameter depends on the tool.
CITY = "@city"
DATES = "@dates"
LIMIT = "@limit"
# Stands in for each character a pass has read, so no later pass reads it again.
MASK = "\x00"


@dataclass(frozen=True)
class Filter:
    param: str
    value: Any
    kind: str = ""  # for cities: "location" or "destination"

    def describe(self) -> str:
        if self.param == DATES:
            start, end = self.value
            return f"dates {start}" if start == end else f"dates {start} to {end}"
        if self.param == CITY:
            return f"{self.kind or 'city'} {self.value}"
        if self.param == LIMIT:
            return f"limit {self.value}"
        return f"{self.param}={self.value}"


@dataclass(frozen=True)
class Mention:
    kind: str  # "entity", "filter" or "param" (a parameter's noun, e.g. "carriers")
    start: int
    end: int
    tool: str | None = None
    filter: Filter | None = None
    param: str | None = None
    # "today's contaminants": a possessive date qualifies the noun after it, not the one before.
    possessive: bool = False
    # "those facilities", "these shipments": names a step listed earlier rather than a new one.
    refers_back: bool = False


@dataclass
class Segment:
    start: int
    end: int
    then: bool = False
    link: bool = False
    add: bool = False
    # "At <kind> in <city>, ...": a part that opens with a preposition qualifies another part.
    prepositional: bool = False
    # The part starts the goal or a new sentence, so it can qualify the part after it.
    opens: bool = False
    mentions: list[Mention] = field(default_factory=list)

    @property
    def entities(self) -> list[Mention]:
        return [m for m in self.mentions if m.kind == "entity"]


@dataclass
class Parsed:
    text: str
    masked: str
    mentions: list[Mention]
    segments: list[Segment]

    @property
    def entities(self) -> list[Mention]:
        return [m for m in self.mentions if m.kind == "entity"]

    @property
    def filters(self) -> list[Mention]:
        return [m for m in self.mentions if m.kind == "filter"]



def accepts(info: ToolInfo, flt: Filter) -> dict[str, Any] | None:
    """The parameters ``flt`` becomes on ``info``'s tool, or ``None`` if the tool has no place for it."""
    if flt.param == DATES:
        if info.date_from and info.date_to:
            return {info.date_from: flt.value[0].isoformat(), info.date_to: flt.value[1].isoformat()}
        return None
    if flt.param == LIMIT:
        return {info.limit: flt.value} if info.limit else None
    if flt.param == CITY:
        param = info.city_params.get(flt.kind or "location")
        return {param: flt.value} if param else None
    if flt.param in info.enums:
        values = list(flt.value) if isinstance(flt.value, tuple) else [flt.value]
        if not values or any(v not in info.enums[flt.param] for v in values):
            return None
        if flt.param in info.enum_lists:
            return {flt.param: values}  # a parameter that takes a list gets one, even of one value
        return {flt.param: values[0]} if len(values) == 1 else None
    if flt.param in info.params:
        return {flt.param: flt.value}
    return None

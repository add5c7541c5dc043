"""Reading a goal: which entities, filters and date phrases it names, and where.

The text is read in passes, longest and most specific phrases first; every match masks its
characters so a later, looser pass cannot read them again ("with contaminants" is a filter
on shipments, so its "contaminants" does not also name the contaminants tool). The
unmasked rest is then cut into segments at "," / "and" / "then", which the plan builder
turns into steps.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .._dates import find_dates
from . import _embedded_phrases as phrases
from ._embedded_vocabulary import ToolInfo, Vocabulary, plural

__all__ = ["CITY", "DATES", "LIMIT", "Filter", "Mention", "Segment", "Parsed", "parse", "accepts",
           "phrase_pattern"]

# Pseudo parameter names for filters whose real parameter depends on the tool.
CITY = "@city"
DATES = "@dates"
LIMIT = "@limit"
_MASK = "\x00"


@dataclass(frozen=True)
class Filter:
    param: str
    value: Any
    kind: str = ""  # for cities: "location" or "destination"

    def describe(self) -> str:
        if self.param == DATES:
            return f"{self.value[0]}..{self.value[1]}"
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


@dataclass
class Segment:
    start: int
    end: int
    then: bool = False
    link: bool = False
    add: bool = False
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


def phrase_pattern(items: Iterable[str]) -> str:
    """A regex alternation of ``items`` as whole phrases, longest first."""
    ordered = sorted(set(items), key=len, reverse=True)
    return r"(?<![\w-])(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in ordered) + r")(?![\w-])"


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
        return {flt.param: flt.value} if flt.value in info.enums[flt.param] else None
    if flt.param in info.params:
        return {flt.param: flt.value}
    return None


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.masked = text
        self.mentions: list[Mention] = []

    def take(self, pattern: str, make: Callable[[re.Match[str]], Mention | list[Mention] | None],
             flags: int = re.IGNORECASE) -> None:
        for m in list(re.finditer(pattern, self.masked, flags)):
            if _MASK in self.masked[m.start():m.end()]:
                continue
            made = make(m)
            if not made:
                continue
            for mention in made if isinstance(made, list) else [made]:
                self.mentions.append(mention)
            self.mask(m.start(), m.end())

    def mask(self, start: int, end: int) -> None:
        self.masked = self.masked[:start] + _MASK * (end - start) + self.masked[end:]


def parse(text: str, vocab: Vocabulary, today: dt.date) -> Parsed:
    reader = _Reader(text)
    for found in find_dates(text, today):
        reader.mentions.append(Mention("filter", *found.span, filter=Filter(DATES, (found.date_from, found.date_to))))
        reader.mask(*found.span)
    _read_values(reader, vocab)
    _read_cues(reader, vocab)
    _read_entities(reader, vocab)
    _read_names(reader, vocab)
    reader.mentions.sort(key=lambda m: (m.start, m.end))
    return Parsed(text, reader.masked, reader.mentions, _segments(reader.masked, reader.mentions))


def _read_values(reader: _Reader, vocab: Vocabulary) -> None:
    """Boolean and enum phrases, and facility kinds ("landfills") that also name their tool."""
    known: dict[str, Filter] = {}
    for param, tools in vocab.bool_params().items():
        words = param.split("_")
        if words[0] in ("has", "is", "have") and len(words) > 1:
            rest = " ".join(words[1:])
            for p in (f"with {rest}", f"has {rest}", f"have {rest}", f"having {rest}"):
                known[p] = Filter(param, True)
            for p in (f"without {rest}", f"with no {rest}"):
                known[p] = Filter(param, False)
        else:
            known[" ".join(words)] = Filter(param, True)
    enum_values = vocab.enum_values()
    params_present = {p for info in vocab.tools.values() for p in info.params}
    for param, by_value in phrases.VALUE_PHRASES.items():
        if param not in params_present:
            continue
        for value, said in by_value.items():
            if isinstance(value, str) and (param, value) not in enum_values:
                continue
            for p in said:
                known[p.lower()] = Filter(param, value)
    if known:
        reader.take(phrase_pattern(known), lambda m: Mention("filter", m.start(), m.end(),
                                                             filter=known[_norm(m.group())]))
    # "high-risk", "risk level high": adjectives that need their parameter's noun.
    for (param, value), _tools in enum_values.items():
        if value not in phrases.QUALIFIED_VALUES:
            continue
        noun = re.escape(param.split("_")[0])
        flt = Filter(param, value)
        reader.take(rf"(?<![\w-]){value}[\s-]+{noun}(?![\w-])"
                    rf"|(?<![\w-]){noun}(?:[\s_-]+level)?(?:\s*[:=]\s*|\s+(?:is\s+|of\s+)?){value}(?![\w-])",
                    lambda m, flt=flt: Mention("filter", m.start(), m.end(), filter=flt))
    # Kinds: "recycling plants", "landfills", "incinerators" name the tool and set its type.
    for info in vocab.tools.values():
        for param in ("type", "kind"):
            for value in info.enums.get(param, []):
                flt = Filter(param, value)
                spoken = value.replace("_", " ")
                with_noun = [f"{spoken} {noun}" for noun in phrases.KIND_NOUNS]
                alone = [plural(spoken), *phrases.KIND_WORDS.get(value, ())]
                reader.take(phrase_pattern(with_noun + alone),
                            lambda m, t=info.name, flt=flt: Mention("entity", m.start(), m.end(), tool=t, filter=flt))


def _read_cues(reader: _Reader, vocab: Vocabulary) -> None:
    """Phrases whose cue word picks the parameter: "going to X", "carried by X", "first N"."""
    cities = "|".join(re.escape(c) for c in sorted(vocab.cities, key=len, reverse=True))
    reader.take(rf"(?i:{phrase_pattern(phrases.DESTINATION_CUES)})\s+(?:(?i:the\s+city\s+(?:of\s+)?))?"
                rf"(?P<city>(?i:{cities})(?![\w-])|[A-Z][\w-]+)",
                lambda m: Mention("filter", m.start(), m.end(),
                                  filter=Filter(CITY, _city(vocab, m["city"]), "destination")), flags=0)
    carrier_params = {p for info in vocab.tools.values() for p in info.params if p == "carrier"}
    if carrier_params:
        known = vocab.known_values()
        names = "|".join(re.escape(k) for k, (p, _) in known.items() if p == "carrier") or "(?!)"
        reader.take(rf"(?i:{phrase_pattern(phrases.CARRIER_CUES)})\s+(?P<name>(?i:{names})(?![\w-])|[A-Z][\w-]+)",
                    lambda m: Mention("filter", m.start(), m.end(), filter=Filter(
                        "carrier", known.get(m["name"].lower(), ("carrier", m["name"]))[1])), flags=0)
    reader.take(rf"{phrase_pattern(phrases.LIMIT_CUES)}(?:\s+the)?\s+(?P<n>\d+)(?!\d)",
                lambda m: Mention("filter", m.start(), m.end(), filter=Filter(LIMIT, int(m["n"]))))
    reader.take(r"(?<![\w-])(?P<n>\d+)\s+(?:results|rows|records|items|entries)\b",
                lambda m: Mention("filter", m.start(), m.end(), filter=Filter(LIMIT, int(m["n"]))))


def _read_entities(reader: _Reader, vocab: Vocabulary) -> None:
    for info in vocab.tools.values():
        reader.take(phrase_pattern(info.forms),
                    lambda m, t=info.name: Mention("entity", m.start(), m.end(), tool=t))


def _read_names(reader: _Reader, vocab: Vocabulary) -> None:
    """Plain enum values, example values (carriers), cities and parameter nouns."""
    plain: dict[str, Filter] = {}
    for (param, value), _tools in vocab.enum_values().items():
        if value in phrases.QUALIFIED_VALUES:
            continue
        for said in (value, value.replace("_", " "), value.replace("_", "-")):
            plain.setdefault(said.lower(), Filter(param, value))
    for lowered, (param, value) in vocab.known_values().items():
        plain.setdefault(lowered, Filter(param, value))
    if plain:
        reader.take(phrase_pattern(plain), lambda m: Mention("filter", m.start(), m.end(),
                                                             filter=plain[_norm(m.group())]))
    reader.take(phrase_pattern(vocab.cities),
                lambda m: Mention("filter", m.start(), m.end(),
                                  filter=Filter(CITY, _city(vocab, m.group()), "location")))
    nouns = vocab.param_nouns()
    if nouns:
        reader.take(phrase_pattern(nouns), lambda m: Mention("param", m.start(), m.end(),
                                                             param=nouns[_norm(m.group())]))


def _segments(masked: str, mentions: list[Mention]) -> list[Segment]:
    words = phrase_pattern(phrases.SEPARATORS[2:])
    separator = re.compile(rf"\s*[,;]\s*(?:{words}\s*)*|\s+(?:{words}\s*)+", re.IGNORECASE)
    then_words = re.compile(phrase_pattern(phrases.THEN_WORDS), re.IGNORECASE)
    add_words = re.compile(phrase_pattern(phrases.ADD_VERBS), re.IGNORECASE)
    link_words = re.compile(phrase_pattern(phrases.LINK_CUES), re.IGNORECASE)
    segments: list[Segment] = []
    pos, then, add = 0, False, False
    for m in [*separator.finditer(masked), None]:
        end = m.start() if m else len(masked)
        body = masked[pos:end]
        if re.search(r"[^\W_]", body.replace(_MASK, "x")):
            segments.append(Segment(pos, end, then=then, link=bool(link_words.search(body)),
                                    add=add or bool(add_words.search(body))))
            then, add = False, False
        if m:
            # "then" / "also" said in the separator belong to the part after it.
            then = then or bool(then_words.search(m.group()))
            add = add or bool(add_words.search(m.group()))
            pos = m.end()
    for mention in mentions:
        home = next((seg for seg in reversed(segments) if seg.start <= mention.start), None)
        if home is None and segments:
            home = segments[0]
        if home is not None:
            home.mentions.append(mention)
    return segments


def _city(vocab: Vocabulary, said: str) -> str:
    return vocab.cities.get(said.lower(), said)


def _norm(said: str) -> str:
    return re.sub(r"\s+", " ", said.lower())

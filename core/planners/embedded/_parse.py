"""Reading a goal: which entities, filters and date phrases it names, and where.

The text is read in passes, longest and most specific phrases first; every match masks its
characters so a later, looser pass cannot read them again ("with contaminants" is a filter
on shipments, so its "contaminants" does not also name the contaminants tool). The
unmasked rest is then cut into segments at punctuation, "and", "then", "with their", ...,
which the plan builder turns into steps. Mentions also note the words right around them: a
possessive date ("today's") and a back reference ("those facilities").
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from dataclasses import replace
from typing import Callable

from .._dates import find_dates
from ..._errors import PlannerError
from . import _phrases as phrases
from ._mentions import MASK, CITY, DATES, LIMIT, Filter, Mention, Parsed, Segment, accepts
from ._patterns import alternation as _alternation
from ._patterns import phrase_pattern
from ._segments import split_segments
from ._vocabulary import Vocabulary, plural

__all__ = ["CITY", "DATES", "LIMIT", "MASK", "Filter", "Mention", "Segment", "Parsed", "parse", "accepts",
           "phrase_pattern"]


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.masked = text
        self.mentions: list[Mention] = []

    def take(self, pattern: str, make: Callable[[re.Match[str]], Mention | list[Mention] | None],
             flags: int = re.IGNORECASE) -> None:
        spans: list[tuple[int, int]] = []
        for m in re.finditer(pattern, self.masked, flags):
            if MASK in self.masked[m.start():m.end()]:
                continue
            made = make(m)
            if not made:
                continue
            for mention in made if isinstance(made, list) else [made]:
                self.mentions.append(mention)
            spans.append(m.span())
        # Matches of one pattern never overlap, so the pass is masked at once: masking each
        # match by rebuilding the text would make a long goal cost its length squared.
        self.mask_all(spans)

    def mask(self, start: int, end: int) -> None:
        self.mask_all([(start, end)])

    def mask_all(self, spans: list[tuple[int, int]]) -> None:
        if not spans:
            return
        parts: list[str] = []
        at = 0
        for start, end in sorted(spans):
            parts.extend((self.masked[at:start], MASK * (end - start)))
            at = end
        parts.append(self.masked[at:])
        self.masked = "".join(parts)


def parse(text: str, vocab: Vocabulary, today: dt.date) -> Parsed:
    reader = _Reader(text)
    dates = find_dates(text, today)
    for found in dates:
        reader.mentions.append(Mention("filter", *found.span, filter=Filter(DATES, (found.date_from, found.date_to))))
    reader.mask_all([found.span for found in dates])
    _read_values(reader, vocab)
    _read_cues(reader, vocab)
    _read_entities(reader, vocab)
    _read_names(reader, vocab)
    _read_counts(reader)
    mentions = sorted((_with_context(text, m) for m in reader.mentions), key=lambda m: (m.start, m.end))
    return Parsed(text, reader.masked, mentions, split_segments(reader.masked, mentions))


_POSSESSIVE = re.compile(r"['\u2019]s?(?!\w)")
# A word or two may stand between: "those <city> <kind>".
_BACK_REFERENCE = re.compile(rf"{phrase_pattern(phrases.BACK_REFERENCES)}\s+(?:[\w'-]+\s+){{0,2}}$", re.IGNORECASE)
# How far before an entity "those <word> <word>" is looked for: three words of any sensible length.
_BACK_REFERENCE_REACH = 120


def _with_context(text: str, mention: Mention) -> Mention:
    """``mention`` with the flags the words right around it set."""
    if mention.kind == "filter" and mention.filter is not None and mention.filter.param == DATES:
        if _POSSESSIVE.match(text, mention.end):
            return replace(mention, possessive=True)
    # Only the few words before the mention can hold the back reference; searching from the
    # start of the text each time would cost a long goal its length squared.
    window = max(0, mention.start - _BACK_REFERENCE_REACH)
    if mention.kind == "entity" and _BACK_REFERENCE.search(text, window, mention.start):
        return replace(mention, refers_back=True)
    return mention


def _read_values(reader: _Reader, vocab: Vocabulary) -> None:
    """Boolean and enum phrases, and facility kinds ("landfills") that also name their tool."""
    known: dict[str, Filter] = {}
    for param, tools in vocab.bool_params().items():
        words = param.split("_")
        if words[0] in ("has", "is", "have") and len(words) > 1:
            rest = " ".join(words[1:])
            for verb in phrases.HAVING_WORDS:
                known[f"{verb} {rest}"] = Filter(param, True)
            for verb in phrases.NOT_HAVING_WORDS:
                known[f"{verb} {rest}"] = Filter(param, False)
        else:
            known[" ".join(words)] = Filter(param, True)
    enum_values = vocab.enum_values()
    params_present = {p for info in vocab.tools.values() for p in info.params}
    for param, by_value in vocab.value_phrases.items():
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
                with_noun = [f"{spoken} {noun}" for noun in vocab.kind_nouns]
                alone = [plural(spoken), *vocab.kind_words.get(value, ())]
                reader.take(phrase_pattern(with_noun + alone),
                            lambda m, t=info.name, flt=flt: Mention("entity", m.start(), m.end(), tool=t, filter=flt))


# Between a cue and its value: "going to <city>", "going to: <city>", 'carried by "EcoHaul"', "top-5".
_AFTER_CUE = r"(?:\s*[:=]\s*|\s+)[\"'\u201c\u2018]?"


def _read_cues(reader: _Reader, vocab: Vocabulary) -> None:
    """Phrases whose cue word picks the parameter: "going to X", "carried by X", "first N"."""
    _read_destinations(reader, vocab)
    params_present = {p for info in vocab.tools.values() for p in info.params}
    for param, cues in vocab.name_cues.items():  # "carried by X": the cues a tool group gave
        if param not in params_present or not cues:
            continue
        known = _known_names(vocab, param)
        names = "|".join(_spaced(v) for v in known.values()) or "(?!)"
        reader.take(rf"(?i:{phrase_pattern(cues)}){_AFTER_CUE}"
                    rf"(?P<name>(?i:{names})(?![\w-])|[A-Z][\w-]+)",
                    lambda m, param=param, known=known: Mention("filter", m.start(), m.end(), filter=Filter(
                        param, known.get(_squash(m["name"]), m["name"]))), flags=0)
    count = rf"(?P<n>\d+(?!\d)|{_alternation(phrases.NUMBER_WORDS)}(?![\w-]))"
    reader.take(rf"(?<![\w-]){_alternation(phrases.LIMIT_CUES)}(?:{_AFTER_CUE}|-)(?:the\s+)?{count}",
                lambda m: Mention("filter", m.start(), m.end(), filter=Filter(LIMIT, _count(m["n"]))))
    reader.take(r"(?<![\w-])(?P<n>\d+)\s+(?:results|rows|records|items|entries)\b",
                lambda m: Mention("filter", m.start(), m.end(), filter=Filter(LIMIT, _count(m["n"]))))


def _read_destinations(reader: _Reader, vocab: Vocabulary) -> None:
    """ "going to X", "destined for X", "shipments to X": the city a shipment is going to.

    A city followed by a facility noun ("going to <city> <kind>") names where those
    facilities are, so it is read as their location and the facilities narrow the shipments.
    """
    cities = "|".join(re.escape(c) for c in sorted(vocab.cities, key=len, reverse=True)) or "(?!)"
    place = re.compile(rf"(?:['\u2019]s)?\s+{phrase_pattern(_place_nouns(vocab))}", re.IGNORECASE)

    def city_filter(m: re.Match[str]) -> Mention:
        kind = "location" if place.match(reader.text, m.end()) else "destination"
        return Mention("filter", m.start(), m.end(), filter=Filter(CITY, _city(vocab, m["city"]), kind))

    reader.take(rf"(?i:{phrase_pattern(phrases.DESTINATION_CUES)}){_AFTER_CUE}(?:(?i:the\s+city\s+(?:of\s+)?))?"
                rf"(?P<city>(?i:{cities})(?![\w-])|[A-Z][\w-]+)", city_filter, flags=0)
    # A bare "to" only in a clause about a tool that has a destination ("shipments to
    # <city>", "<entity> <status> to <city>"); elsewhere "to" is too common ("switch to
    # <city>" re-plans a location).
    nouns = [form for info in vocab.tools.values() if "destination" in info.city_params for form in info.forms]
    if nouns:
        # Where each clause's nouns end and where sentences break, found once for the whole
        # text (searching back from every "to" would cost a long goal its length squared).
        noun_ends = [m.end() for m in re.finditer(phrase_pattern(nouns), reader.masked, re.IGNORECASE)]
        breaks = [m.start() for m in re.finditer(r"[.;!?]", reader.masked)]

        def in_clause_with_noun(at: int) -> bool:
            before = bisect.bisect_left(breaks, at)
            clause_start = breaks[before - 1] + 1 if before else 0
            last_noun = bisect.bisect_right(noun_ends, at) - 1
            return last_noun >= 0 and noun_ends[last_noun] > clause_start

        reader.take(rf"(?<![\w-])to\s+(?:the\s+city\s+of\s+)?(?P<city>{cities})(?![\w-])",
                    lambda m: city_filter(m) if in_clause_with_noun(m.start()) else None)


def _place_nouns(vocab: Vocabulary) -> list[str]:
    """Words that name a located entity: its nouns, its kinds ("landfills") and kind nouns ("plants")."""
    words = list(vocab.kind_nouns)
    for info in vocab.tools.values():
        if "location" not in info.city_params:
            continue
        words.extend(info.forms)
        for param in ("type", "kind"):
            for value in info.enums.get(param, []):
                spoken = value.replace("_", " ")
                words.extend([spoken, plural(spoken), *vocab.kind_words.get(value, ())])
    return words


def _known_names(vocab: Vocabulary, param: str) -> dict[str, str]:
    """Example values of ``param`` by their squashed spelling ("ecohaul" -> "EcoHaul")."""
    return {_squash(value): value for p, value in vocab.known_values().values() if p == param}


def _spaced(name: str) -> str:
    """A pattern for a CamelCase name also written apart: "EcoHaul", "Eco Haul", "eco-haul"."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|\S", name) or [name]
    return r"[\s-]?".join(re.escape(p) for p in parts)


# More digits than any count of rows can have (and than ``int`` reads without complaint).
_MAX_COUNT_DIGITS = 18


def _count(said: str) -> int:
    if not said.isdigit():
        return phrases.NUMBER_WORDS[said.lower()]
    if len(said.lstrip("0")) > _MAX_COUNT_DIGITS:
        raise PlannerError(f"the count {said[:12]}… ({len(said)} digits) is too large to be a number of rows; "
                           "give a number such as 'limit 20'")
    return int(said)


def _squash(said: str) -> str:
    return re.sub(r"[\s-]+", "", said.lower())


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
    if plain:
        reader.take(phrase_pattern(plain), lambda m: Mention("filter", m.start(), m.end(),
                                                             filter=plain[_norm(m.group())]))
    named = {_squash(value): Filter(param, value) for param, value in vocab.known_values().values()}
    if named:
        spellings = "|".join(_spaced(f.value) for f in named.values())
        reader.take(rf"(?<![\w-])(?:{spellings})(?![\w-])",
                    lambda m: Mention("filter", m.start(), m.end(), filter=named[_squash(m.group())]))
    if vocab.cities:  # the places tool groups named (``ToolWords``), if any
        reader.take(phrase_pattern(vocab.cities),
                    lambda m: Mention("filter", m.start(), m.end(),
                                      filter=Filter(CITY, _city(vocab, m.group()), "location")))
    nouns = vocab.param_nouns()
    if nouns:
        reader.take(phrase_pattern(nouns), lambda m: Mention("param", m.start(), m.end(),
                                                             param=nouns[_norm(m.group())]))


_SPACES = re.compile(r"\s*")


def _read_counts(reader: _Reader) -> None:
    """ "5 landfills", "the 10 latest high-risk shipments": a count before an entity is its limit.

    Up to three digits, so a year ("2025 shipments") is not read as a count.
    """
    by_start = {m.start: m for m in reader.mentions}
    counts: list[tuple[int, int]] = []
    for m in list(re.finditer(r"(?<![\w.,:-])(?P<n>\d{1,3})\s+(?:(?:most\s+)?(?:recent|latest|newest)\s+)?",
                              reader.masked)):
        at = m.end()
        # Filters may stand between the count and the noun ("5 high-risk shipments").
        while at in by_start and by_start[at].kind == "filter":
            at = _SPACES.match(reader.masked, by_start[at].end).end()  # type: ignore[union-attr]
        if at in by_start and by_start[at].kind == "entity":
            end = m.start("n") + len(m["n"])
            reader.mentions.append(Mention("filter", m.start("n"), end, filter=Filter(LIMIT, int(m["n"]))))
            counts.append((m.start("n"), end))
    reader.mask_all(counts)



def _city(vocab: Vocabulary, said: str) -> str:
    return vocab.cities.get(said.lower(), said)


def _norm(said: str) -> str:
    return re.sub(r"\s+", " ", said.lower())

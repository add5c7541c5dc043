"""Negations in a goal: what the plan does with "not", "never", "without", "except", ...

Reading drops "not" like any function word, so without this pass "<entity> that are not
<value>" would be planned as "<entity> that are <value>": the opposite of the request. Here
each filter (and entity) the parser found is checked for a negation right before it, with
only a few joining words between ("that are not", "didn't", "other than the", "except"):

- a boolean parameter takes the opposite value ("not <flag>" -> ``flag: false``; a phrase
  that was already negative, "without <x>", turns positive);
- an enum parameter takes the other values when the schema can hold them: the one other
  value of a two-valued enum, the list of the others when the parameter takes a list, or the
  value itself in a parameter for excluded values (``<param>_not``, ``exclude_<param>``, ...);
- anything else (an enum of many values that takes one, a place, a name, dates) cannot be
  said to the tools: the filter is left out and the plan carries a notice that says it was
  NOT applied (``metadata.not_applied``, shown by the studio and the CLI);
- "<entity> with no <value> <other entity>" and "<entity> that did not <value> <other
  entity>" ask for rows that have none of the others, which no list tool can answer: the
  filter and the other entity are left out, with the same notice;
- "not only <value>" is no negation; the plan keeps the value and says it did not negate.

Only the words between the previous mention and this one are looked at, at most a few
dozen characters, so a long goal costs its length once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from . import _phrases as phrases
from ._mentions import MASK, CITY, DATES, LIMIT, Filter, Mention, Parsed, accepts
from ._segments import split_segments
from ._vocabulary import ToolInfo, Vocabulary, plural

__all__ = ["read_negations"]

# How far before a mention its negation is looked for: "that have not yet been marked as".
_REACH = 60
_TOKEN = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?|\S")
_BUT = re.compile(r"(?:\bbut|\band|,)\s*$", re.IGNORECASE)
_EXCLUDING = ("{p}_not", "not_{p}", "exclude_{p}", "{p}_exclude", "excluded_{p}", "{p}_excluded",
              "exclude_{ps}", "excluded_{ps}", "{p}_ne", "{p}_is_not", "without_{p}")


@dataclass
class _Negation:
    start: int  # where the negating words start
    cue: str  # the negating word ("not", "other than")
    limited: bool = False  # "not only": no negation, but worth saying


def read_negations(parsed: Parsed, vocab: Vocabulary) -> tuple[Parsed, list[str]]:
    """``parsed`` with negated mentions turned into what they mean (or left out), and the
    notices for what the plan does not apply."""
    text, masked = parsed.text, parsed.masked
    mentions = list(parsed.mentions)
    notices: list[str] = []
    drop: set[int] = set()
    spans: list[tuple[int, int]] = []
    carried: tuple[int, str] | None = None  # the end of the last negated mention, and its negation
    for at, mention in enumerate(mentions):
        if mention.kind not in ("filter", "entity") or at in drop:
            continue
        if mention.filter is not None and mention.filter.param == LIMIT:
            continue
        negation = _negation_before(masked, mention.start) or _carried_over(masked, carried, mention.start)
        if negation is None:
            continue
        carried = (mention.end, negation.cue)
        said = " ".join(text[negation.start:mention.end].split())
        spans.append((negation.start, mention.start))
        if negation.limited:
            notices.append(f"\u201c{said}\u201d was NOT read as a negation: the plan keeps "
                           f"{_what(mention, vocab)} as said; check it lists what you meant")
            continue
        following = _entity_right_after(masked, mentions, at)
        qualifier = _has_entity_before(parsed, mention)
        if mention.kind == "filter" and following is not None and (negation.cue in phrases.DENYING or qualifier):
            # "<entity> with no failed <other entity>": rows that have none of the others.
            drop.add(at)
            if qualifier:
                drop.add(mentions.index(following))
            notices.append(f"\u201c{said} {_words(text, following)}\u201d was NOT applied: no tool can "
                           "ask for rows that have none of these, so the plan leaves this condition out")
            continue
        if mention.filter is None:
            # "<entity> without <other entity>"; "<entity> but not <other entity>" just leaves it out.
            drop.add(at)
            if qualifier and not _BUT.search(masked, max(0, negation.start - 8), negation.start):
                notices.append(f"\u201c{said}\u201d was NOT applied: no tool can ask for rows that have "
                               "none of these, so the plan leaves this condition out")
            continue
        opposite = _opposite(vocab, mention.filter)
        if opposite is not None:
            mentions[at] = replace(mention, filter=opposite)
            continue
        notices.append(f"\u201c{said}\u201d was NOT applied: no tool here can filter for "
                       f"{_other_than(mention.filter)}, so the plan does not filter on it")
        if mention.kind == "entity" and not qualifier and not _same_tool_entity_elsewhere(parsed, mention):
            mentions[at] = replace(mention, filter=None)  # "everything except <kind>": still that tool
        else:
            drop.add(at)
    if not spans and not drop and mentions == parsed.mentions:
        return parsed, notices
    kept = [m for n, m in enumerate(mentions) if n not in drop]
    masked = _masked(masked, spans)
    return Parsed(text, masked, kept, split_segments(masked, kept)), notices


def _negation_before(masked: str, start: int) -> _Negation | None:
    """The negation that reaches the mention at ``start``, if any: a negating word followed
    only by joining words, with no other mention between."""
    window_start = max(0, start - _REACH)
    window = masked[window_start:start]
    cut = window.rfind(MASK) + 1
    tokens = [(m.start() + window_start, m.group().lower().replace("\u2019", "'"))
              for m in _TOKEN.finditer(window, cut)]
    if cut == 0 and window_start > 0 and tokens and tokens[0][0] == window_start:
        tokens = tokens[1:]  # a word cut in two by the window is no word
    for k in range(len(tokens) - 1, -1, -1):
        at, word = tokens[k]
        before = tokens[k - 1][1] if k else ""
        if (before, word) in phrases.NEGATION_PAIRS:
            return _Negation(tokens[k - 1][0], f"{before} {word}")
        if word in phrases.NOT_NEGATING and before in phrases.NEGATIONS:
            return _Negation(tokens[k - 1][0], before, limited=True)
        if word in phrases.NEGATIONS:
            return _Negation(at, word)
        if word not in phrases.NEGATION_GLUE:
            return None
    return None


def _carried_over(masked: str, carried: tuple[int, str] | None, start: int) -> _Negation | None:
    """ "not <value> or <value>": the negation before a list reaches each of its items."""
    if carried is None or start - carried[0] > _REACH:
        return None
    gap = masked[carried[0]:start]
    if MASK in gap:
        return None
    words = [m.group().lower() for m in _TOKEN.finditer(gap)]
    joins = [w for w in words if w not in phrases.NEGATION_GLUE]
    if joins and all(w in phrases.NEGATION_LISTS for w in joins) and joins[-1] != ",":
        return _Negation(carried[0], carried[1])
    return None


def _entity_right_after(masked: str, mentions: list[Mention], at: int) -> Mention | None:
    """The entity that the filter at ``at`` stands before as an adjective ("failed <entity>")."""
    end = mentions[at].end
    for later in mentions[at + 1:]:
        if later.start < end:
            continue
        if later.kind == "entity" and re.fullmatch(r"[\s-]*", masked[end:later.start]):
            return later
        return None
    return None


def _has_entity_before(parsed: Parsed, mention: Mention) -> bool:
    """Whether an entity comes before ``mention`` in its part of the goal, so it qualifies that entity."""
    for segment in parsed.segments:
        if segment.start <= mention.start < max(segment.end, segment.start + 1):
            return any(m.start < mention.start for m in segment.entities if m is not mention)
    return False


def _same_tool_entity_elsewhere(parsed: Parsed, mention: Mention) -> bool:
    return any(m.tool == mention.tool and m is not mention for m in parsed.entities)


def _opposite(vocab: Vocabulary, flt: Filter) -> Filter | None:
    """The filter meaning "not ``flt``" that every tool taking ``flt`` can hold, or ``None``."""
    found: set[Filter] = set()
    for info in vocab.tools.values():
        if accepts(info, flt) is None:
            continue
        opposite = _opposite_on(info, flt)
        if opposite is None:
            return None
        found.add(opposite)
    return found.pop() if len(found) == 1 else None


def _opposite_on(info: ToolInfo, flt: Filter) -> Filter | None:
    if isinstance(flt.value, bool):
        return Filter(flt.param, not flt.value) if flt.param in info.bools else None
    if flt.param == DATES:
        return None
    param = info.city_params.get(flt.kind or "location") if flt.param == CITY else flt.param
    if param is None:
        return None
    for pattern in _EXCLUDING:
        excluding = pattern.format(p=param, ps=plural(param))
        if excluding in info.params:
            return Filter(excluding, flt.value)
    if param in info.enums and isinstance(flt.value, str):
        others = tuple(v for v in info.enums[param] if v != flt.value)
        if param in info.enum_lists and others:
            return Filter(param, others)
        if len(others) == 1:
            return Filter(param, others[0])
    return None


def _other_than(flt: Filter) -> str:
    if flt.param == DATES:
        start, end = flt.value
        return f"dates outside {start}" + ("" if start == end else f" to {end}")
    if flt.param == CITY:
        return f"a {flt.kind or 'place'} other than {flt.value}"
    return f"{flt.param} other than {flt.value}"


def _what(mention: Mention, vocab: Vocabulary) -> str:
    if mention.filter is not None:
        return mention.filter.describe()
    return vocab.tools[mention.tool].entity if mention.tool in vocab.tools else "it"


def _words(text: str, mention: Mention) -> str:
    return " ".join(text[mention.start:mention.end].split())


def _masked(masked: str, spans: list[tuple[int, int]]) -> str:
    """``masked`` with the negating words masked too: they were read."""
    parts: list[str] = []
    at = 0
    for start, end in sorted(spans):
        start = max(start, at)
        if end <= start:
            continue
        parts.extend((masked[at:start], MASK * (end - start)))
        at = end
    parts.append(masked[at:])
    return "".join(parts)

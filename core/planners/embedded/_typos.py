"""Misspelled entity words: "ordres" is read as the entity noun it is one typo from ("orders").

A goal word is read as a known entity word (a tool's noun, singular or plural, or a kind
word a tool group handed the registry) when it is within one typo of it (a letter missing,
added, changed, or two letters swapped), or two typos for words of ``_TWO_TYPOS`` letters or
more that keep its first four letters and its last one, starts with the same letter, and no
other entity word is as close (kinds, "<type value>s", take one typo only). The plan says
so: "read 'ordres' as 'orders'" (``metadata.read_as``).

Never read as another word: words under ``_SHORTEST`` letters, words with digits, and every
word the planner knows as it is: the English of ``_embedded_phrases`` (function words,
cues, negations, write verbs), month and weekday names, the tools' parameter and row field
names, and every phrase of the vocabulary. So a row field ("notes") or "there" stay as said.

Each goal word is compared with the few entity words of about its length, with a distance
that stops once it exceeds the bound: a goal of ``MAX_GOAL_LENGTH`` characters costs a few
milliseconds.
"""

from __future__ import annotations

import calendar
import re
from typing import Any, Iterator

from ...tooling._registry import ToolRegistry
from . import _phrases as phrases
from ._vocabulary import Vocabulary, plural, singular

__all__ = ["TypoReader"]

_SHORTEST = 4
_TWO_TYPOS = 8
_LONGEST = 30  # longer "words" are no misspelled noun; not compared at all
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?|\S+")


class TypoReader:
    """The entity words of one vocabulary, and the words never read as another."""

    def __init__(self, registry: ToolRegistry, vocab: Vocabulary) -> None:
        # Each entity word, to what it names: the singular and plural of a noun name the same.
        # Kinds ("<type value>s" and a group's kind words) are read with one typo only: they
        # are made up from values ("sortings") and sit near plain words ("settings").
        targets: dict[str, str] = {}
        kinds: dict[str, str] = {}
        for info in vocab.tools.values():
            targets.update((w, info.name) for form in info.forms for w in form.split())
            for param in ("type", "kind"):
                kinds.update((plural(v), f"{info.name}.{v}") for v in info.enums.get(param, []) if v.isalpha())
        for value, said in vocab.kind_words.items():
            kinds.update((w, f"kind.{value}") for w in said if " " not in w)
        self.one_typo = {k.lower() for k in kinds} - {t.lower() for t in targets}
        targets = {**kinds, **targets}
        self.named = {t.lower(): key for t, key in targets.items() if len(t) >= _SHORTEST and t.isalpha()}
        self.targets = sorted(self.named)
        self.known = _known_words(registry, vocab) | set(self.targets)
        # Other forms of these words are no typo ("authors" of a row's "author"); other
        # forms of an entity word are ("categorys").
        self.forms_known = self.known - set(self.targets)

    def correct(self, text: str) -> tuple[str, list[str]]:
        """``text`` with misspelled entity words replaced, and a "read 'x' as 'y'" note for each."""
        parts: list[str] = []
        notes: list[str] = []
        at = 0
        for m in _WORD.finditer(text):
            word = m.group()
            target = self._target(word)
            if target is None:
                continue
            shown = target.capitalize() if word[0].isupper() else target
            parts.extend((text[at:m.start()], shown))
            at = m.end()
            note = f"read \u2018{word}\u2019 as \u2018{target}\u2019"
            if note not in notes:
                notes.append(note)
        if not notes:
            return text, []
        parts.append(text[at:])
        return "".join(parts), notes

    def _target(self, word: str) -> str | None:
        lowered = word.lower()
        if (len(lowered) < _SHORTEST or len(lowered) > _LONGEST or not lowered.isalpha()
                or lowered in self.known or singular(lowered) in self.forms_known
                or plural(lowered) in self.forms_known):
            return None
        # A verb form ("-ing", "-ed") is a word of its own, not a noun misspelled twice.
        bound = 2 if len(lowered) >= _TWO_TYPOS and not lowered.endswith(("ing", "ed", "ly")) else 1
        best: list[str] = []
        best_distance = bound + 1
        for target in self.targets:
            if target[0] != lowered[0] or abs(len(target) - len(lowered)) > bound:
                continue
            distance = _distance(lowered, target, min(bound, best_distance))
            if distance > bound or (distance == 2 and not _two_typos_of(lowered, target, self.one_typo)):
                continue
            if distance < best_distance:
                best, best_distance = [target], distance
            elif distance == best_distance:
                best.append(target)
        if len({self.named[t] for t in best}) != 1:
            return None  # as close to two different things: no reading is safe
        # "ordrs": the plural, whose ending it shares, over the singular.
        return min(best, key=lambda t: (t[-1] != lowered[-1], abs(len(t) - len(lowered)), t))


def _two_typos_of(word: str, target: str, one_typo: set[str]) -> bool:
    """Whether two typos may be read: the word keeps the target's first four letters and its
    last one, so that plain words two letters from an entity word ("injection" from an
    "infection") stay themselves."""
    return target not in one_typo and word[:4] == target[:4] and word[-1] == target[-1]


def _distance(a: str, b: str, bound: int) -> int:
    """Edits (insert, delete, change, swap of two neighbours) from ``a`` to ``b``, or
    ``bound + 1`` once that many are certain."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        if min(row) > bound:
            return bound + 1
        previous2, previous = previous, row
    return min(previous[-1], bound + 1)


def _known_words(registry: ToolRegistry, vocab: Vocabulary) -> set[str]:
    """Every word the planner or the tools use as it is."""
    words: set[str] = set()
    for name in dir(phrases):
        if name.isupper():
            words.update(_words_in(getattr(phrases, name)))
    words.update(n.lower() for n in [*calendar.month_name, *calendar.month_abbr, *calendar.day_name] if n)
    words.update(("today", "yesterday", "week", "weeks", "month", "months", "day", "days", "year",
                  "years", "since", "between", "until", "till", "past", "previous"))
    for tool in registry:
        words.update(_words_in(tool.name.split("_")))
        words.update(_words_in(p.split("_") for p in tool.param_names))
        words.update(_words_in(_field_names(tool.returns)))
    for info in vocab.tools.values():
        words.update(_words_in([*info.forms, *(v for vs in info.enums.values() for v in vs)]))
        words.update(_words_in(v for vs in info.known_values.values() for v in vs))
    words.update(_words_in(vocab.cities))
    words.update(_words_in(vocab.kind_nouns))
    for by_value in vocab.value_phrases.values():
        words.update(_words_in(by_value.values()))
    for said in [*vocab.kind_words.values(), *vocab.name_cues.values(), *vocab.said_param_nouns.values()]:
        words.update(_words_in(said))
    return words


def _words_in(value: Any) -> Iterator[str]:
    """The lowercase words of the strings in ``value`` (nested lists, tuples, sets, dict keys and values)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield from (w for w in re.split(r"[^\w']+", item.lower().replace("_", " ")) if w)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)) or hasattr(item, "__next__"):
            stack.extend(item)


def _field_names(schema: Any, depth: int = 0) -> list[str]:
    """Property names anywhere in a JSON schema (a row's fields: "notes", "author"), a few levels deep."""
    if not isinstance(schema, dict) or depth > 6:
        return []
    names: list[str] = []
    for key in ("properties", "$defs", "definitions"):
        inner = schema.get(key)
        if isinstance(inner, dict):
            if key == "properties":
                names.extend(k for k in inner if isinstance(k, str))
            for sub in inner.values():
                names.extend(_field_names(sub, depth + 1))
    for key in ("items", "additionalProperties"):
        names.extend(_field_names(schema.get(key), depth + 1))
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key) or []:
            names.extend(_field_names(sub, depth + 1))
    return names

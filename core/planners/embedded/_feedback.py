"""What re-plan feedback says beyond what a goal can: steps named by number or place, values
named as the ones to replace, a bare count, and which words no rule read.

Feedback is short and every word in it is meant; so a word that no rule reads (and that is
not padding such as "please" or "instead") is reported back to the user, never dropped.
"""

from __future__ import annotations

import re

from ..._errors import PlannerError
from . import _phrases as phrases
from ._parse import MASK, CITY, LIMIT, Filter, Mention, Parsed, phrase_pattern

__all__ = ["Reading", "named_step_indexes", "old_values", "bare_counts", "same_filter", "entity_swaps"]

# Padding, and the joining and linking words goals are read with ("then", "their", "as well").
_FILLERS = phrases.FEEDBACK_FILLERS | phrases.FUNCTION_WORDS | {
    word for said in (*phrases.SEPARATORS, *phrases.LINK_CUES, *phrases.ADD_VERBS, *phrases.QUALIFYING_PREPOSITIONS,
                      *phrases.FOLLOW_UP_CUES, *phrases.FOLLOW_UP_OPENERS, *phrases.BACK_REFERENCES)
    for word in said.split()}
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_BREAK = re.compile(r"[,;.!?:()]|" + "|".join(re.escape(a) for a in phrases.OLD_TO_NEW_ARROWS))


class Reading:
    """The spans of the feedback some rule has read."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[tuple[int, int]] = []

    def read(self, start: int, end: int) -> None:
        self.spans.append((start, end))

    def unknown(self) -> list[str]:
        """The phrases no rule read, padding words at their edges left out."""
        # How many characters before each position were read: a word is read when any of its
        # characters is, found in one step (checking every span for every word would cost a
        # long text its length squared).
        marks = [0] * (len(self.text) + 1)
        for start, end in self.spans:
            marks[max(0, start)] += 1
            marks[min(len(self.text), max(start, end))] -= 1
        read_before = [0]
        depth = 0
        for at in range(len(self.text)):
            depth += marks[at]
            read_before.append(read_before[-1] + (depth > 0))
        tokens = [(m.start(), m.end(), self._kind(m, read_before)) for m in _WORD.finditer(self.text)]
        phrases_out: list[str] = []
        run: list[tuple[int, int, str]] = []

        def close() -> None:
            words = [n for n, (_s, _e, kind) in enumerate(run) if kind != "filler"]
            if words:
                phrases_out.append(self.text[run[words[0]][0]:run[words[-1]][1]])
            run.clear()

        last_end = 0
        for start, end, kind in tokens:
            if kind == "read" or _BREAK.search(self.text, last_end, start):
                close()
            if kind != "read":
                run.append((start, end, kind))
            last_end = end
        close()
        return phrases_out

    def _kind(self, word: re.Match[str], read_before: list[int]) -> str:
        if read_before[word.end()] > read_before[word.start()]:
            return "read"
        return "filler" if word.group().lower().replace("\u2019", "'") in _FILLERS else "unknown"


_STEP_NUMBERS = re.compile(r"steps?\s+#?(?P<ns>\d+(?:\s*(?:,\s*and|,|and|&|or)\s*(?:steps?\s+)?#?\d+)*)(?![\w-])",
                           re.IGNORECASE)
_STEP_ORDINAL = re.compile(rf"(?P<o>{'|'.join(phrases.STEP_ORDINALS)})\s+(?:steps?|ones?)(?![\w-])",
                           re.IGNORECASE)


def named_step_indexes(text: str, start: int, count: int) -> tuple[list[int], int] | None:
    """Steps named right at ``start`` ("step 2", "steps 1 and 2", "the last step"), and where that ends."""
    at = re.compile(r"(?:(?:the|both)\s+)?").match(text, start).end()  # type: ignore[union-attr]
    if m := _STEP_NUMBERS.match(text, at):
        numbers = re.findall(r"\d+", m["ns"])
        too_long = next((n for n in numbers if len(n.lstrip("0")) > 9), None)
        if too_long is not None:  # no plan has that many steps, and int() may refuse the digits
            raise PlannerError(f"there is no step {too_long[:12]}… ({len(too_long)} digits): the plan has "
                               f"steps 0 to {count - 1}. The plan is unchanged.")
        return [int(n) for n in numbers], m.end()
    if m := _STEP_ORDINAL.match(text, at):
        n = phrases.STEP_ORDINALS[m["o"].lower()]
        return [n if n >= 0 else count + n], m.end()
    return None


def same_filter(a: Filter, b: Filter) -> bool:
    """Whether two filters set the same parameter (a city: of the same kind)."""
    return a.param == b.param and (a.param != CITY or (a.kind or "location") == (b.kind or "location"))


def old_values(parsed: Parsed, used: set[int], reading: Reading) -> list[Filter]:
    """Values named as the ones to replace: "instead of <old city>", "<city>, not <old city>",
    "replace <old city> with <city>", "change <old city> to <city>", "<old city> -> <city>"."""
    filters = [m for m in parsed.mentions if m.kind == "filter" and m.filter is not None]

    def has_new(old: Mention) -> bool:
        return any(m is not old and id(m) not in used and same_filter(m.filter, old.filter)  # type: ignore[arg-type]
                   for m in filters)

    olds: list[Filter] = []

    def take(mention: Mention | None) -> None:
        if mention is not None and id(mention) not in used and has_new(mention):
            olds.append(mention.filter)  # type: ignore[arg-type]
            used.add(id(mention))

    def right_after(at: int) -> Mention | None:
        mention = next((m for m in filters if m.start >= at), None)
        if mention is not None and parsed.masked[at:mention.start].strip().lower() in ("", "the"):
            return mention
        return None

    for m in re.finditer(rf"{phrase_pattern(phrases.OLD_VALUE_CUES)}\s*", parsed.masked, re.IGNORECASE):
        take(right_after(m.end()))
    for m in re.finditer(r"\b(?:replace|change|swap|switch)\s+(?:the\s+)?", parsed.masked, re.IGNORECASE):
        if re.search(r"\s(?:with|to|for|by|into)\s", parsed.masked[m.end():]):
            take(right_after(m.end()))
    arrows = "|".join(re.escape(a) for a in phrases.OLD_TO_NEW_ARROWS)
    for m in re.finditer(rf"\s*(?:{arrows})\s*", parsed.masked):
        before = next((f for f in reversed(filters) if f.end <= m.start()), None)
        if before is not None and not parsed.masked[before.end:m.start()].strip():
            take(before)
        reading.read(*m.span())
    return olds


def bare_counts(parsed: Parsed, reading: Reading) -> None:
    """A number no other rule read ("only 10", "make it 25") is how many rows to list."""
    # Up to three digits, so a year ("2025") is not read as a count.
    for m in re.finditer(r"(?<![\w.,:#-])(?P<n>\d{1,3})(?![\w.,:-]|\s*%)", parsed.masked):
        if re.search(r"steps?\s+$", parsed.masked[:m.start()], re.IGNORECASE):
            continue
        mention = Mention("filter", m.start(), m.end(), filter=Filter(LIMIT, int(m["n"])))
        parsed.mentions.append(mention)
        parsed.mentions.sort(key=lambda x: (x.start, x.end))
        home = next((seg for seg in reversed(parsed.segments) if seg.start <= m.start()), None)
        if home is not None:
            home.mentions.append(mention)
            home.mentions.sort(key=lambda x: (x.start, x.end))
        reading.read(m.start(), m.end())


def entity_swaps(parsed: Parsed, reading: Reading, plan_tools: list[str]) -> list[tuple[str, Mention]]:
    """Lists to list instead of others, as (old tool, new entity): "contaminants instead of
    shipments", "replace shipments with inspections", "shipments -> contaminants"; on a plan of
    one list also "switch to contaminants", "contaminants instead". The old entity's mention
    is taken out of ``parsed``: it names what goes, not a list to add."""
    entities = [m for m in parsed.mentions if m.kind == "entity"]
    swaps: list[tuple[str, Mention]] = []
    olds: list[Mention] = []

    def entity_at(at: int, *, before: bool = False) -> Mention | None:
        if before:
            found = next((m for m in reversed(entities) if m.end <= at), None)
            gap = parsed.masked[found.end:at] if found else ""
        else:
            found = next((m for m in entities if m.start >= at), None)
            gap = parsed.masked[at:found.start] if found else ""
        # Filters may stand between: "high-risk contaminants from yesterday instead of shipments".
        words = _WORD.findall(gap.replace(MASK, " ").lower())
        return found if found is not None and all(w in _FILLERS for w in words) else None

    def swap(old: Mention | None, new: Mention | None) -> None:
        if old is None or new is None or old.tool == new.tool or old.tool not in plan_tools:
            return
        if new.tool in plan_tools or old in olds:
            return
        swaps.append((old.tool, new))  # type: ignore[arg-type]
        olds.append(old)

    for m in re.finditer(phrase_pattern(phrases.OLD_VALUE_CUES), parsed.masked, re.IGNORECASE):
        swap(entity_at(m.end()), entity_at(m.start(), before=True))
    for m in re.finditer(r"\b(?:replace|change|swap|switch)\s+", parsed.masked, re.IGNORECASE):
        old = entity_at(m.end())
        if old is not None and (to := re.match(r"\s+(?:with|to|for|by|into)\s+", parsed.masked[old.end:])):
            swap(old, entity_at(old.end + to.end()))
    arrows = "|".join(re.escape(a) for a in phrases.OLD_TO_NEW_ARROWS)
    for m in re.finditer(rf"\s*(?:{arrows})\s*", parsed.masked):
        swap(entity_at(m.start(), before=True), entity_at(m.end()))
    if len(set(plan_tools)) == 1 and not swaps:
        for m in re.finditer(r"\b(?:switch|change|go|move)\s+(?:it\s+)?to\s+", parsed.masked, re.IGNORECASE):
            new = entity_at(m.end())
            if new is not None and new.filter is None:
                swap(Mention("entity", 0, 0, tool=plan_tools[0]), new)
        for m in re.finditer(r"\s+instead\b(?!\s+of)", parsed.masked, re.IGNORECASE):
            new = entity_at(m.start(), before=True)
            if new is not None and new.filter is None:
                swap(Mention("entity", 0, 0, tool=plan_tools[0]), new)
    for old in olds:
        if old in parsed.mentions:
            reading.read(old.start, old.end)
            parsed.mentions.remove(old)
            for seg in parsed.segments:
                if old in seg.mentions:
                    seg.mentions.remove(old)
    return swaps

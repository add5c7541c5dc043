"""Cutting a read goal into segments, the parts the plan builder turns into steps: at
punctuation, "and", "then", "with their", ...; each mention goes to the segment it falls in."""

from __future__ import annotations

import bisect
import re

from . import _phrases as phrases
from ._mentions import MASK, Mention, Segment
from ._patterns import phrase_pattern

__all__ = ["split_segments"]


# Where a goal is cut into parts: commas, "&", "+", "/", sentence ends (not the point of "2.5"),
# and joining words ("and", "then", "as well as", ...).
_PUNCTUATION = r"[,;&+]|(?<!\d)[.!?:/](?!\d)"
# "with their contaminants", "including its inspections": a new part that uses the one before.
_LINKING_WITH = r"(?:with|including)"


def split_segments(masked: str, mentions: list[Mention]) -> list[Segment]:
    words = phrase_pattern(phrases.SEPARATORS[2:])
    link_cues = phrase_pattern(phrases.LINK_CUES)
    # Only from the start of a run of spaces: a match that fails there fails inside the run
    # too, and trying every position of a long run would cost its length squared.
    separator = re.compile(rf"(?<!\s)(?:(?:\s*(?:{_PUNCTUATION}))+\s*(?:{words}\s*)*|\s+(?:{words}\s*)+"
                           rf"|\s+{_LINKING_WITH}\s+(?={link_cues}))", re.IGNORECASE)
    then_words = re.compile(phrase_pattern(phrases.THEN_WORDS), re.IGNORECASE)
    add_words = re.compile(phrase_pattern(phrases.ADD_VERBS), re.IGNORECASE)
    link_words = re.compile(link_cues, re.IGNORECASE)
    preposition = re.compile(rf"\s*{phrase_pattern(phrases.QUALIFYING_PREPOSITIONS)}", re.IGNORECASE)
    segments: list[Segment] = []
    pos, then, add, opens = 0, False, False, True
    for m in [*separator.finditer(masked), None]:
        end = m.start() if m else len(masked)
        body = masked[pos:end]
        if re.search(r"[^\W_]", body.replace(MASK, "x")):
            segments.append(Segment(pos, end, then=then, link=bool(link_words.search(body)),
                                    add=add or bool(add_words.search(body)),
                                    prepositional=bool(preposition.match(body)), opens=opens))
            then, add, opens = False, False, False
        if m:
            # "then" / "also" said in the separator belong to the part after it, and so
            # does a sentence end before it.
            then = then or bool(then_words.search(m.group()))
            add = add or bool(add_words.search(m.group()))
            opens = opens or bool(re.search(r"[.!?:]", m.group()))
            pos = m.end()
    starts = [seg.start for seg in segments]
    for mention in mentions:
        if segments:
            # The last segment that starts at or before the mention (the first one if none does).
            segments[max(0, bisect.bisect_right(starts, mention.start) - 1)].mentions.append(mention)
    return segments


"""Which words of a goal its plan does not use, so the user is told instead of left to guess.

"What's the weather in <city>?" is planned as the facilities in <city>: the city is read,
"weather" is not. The rule is the one re-plan feedback is read by (``Reading`` in
``_embedded_feedback``): a word counts as used when a rule of the parser read it (an entity,
a filter value, a date phrase, a cue such as "going to", a count) and the plan puts what it
read into a step; words no rule reads are reported, in runs as written ("sort by capacity"),
except padding and function words ("please", "show me", "the", "which", "and", "their": the
``FEEDBACK_FILLERS`` and the joining words of ``_embedded_phrases``). A phrase that was read
but that no step of the plan can take ("today" for facilities, which have no dates) is
reported too: the plan does not use it.

The words go in the plan's metadata as ``unread_words`` (a JSON list of strings, kept when
the plan is saved, exported as native or seed JSON and loaded again); ``unread_notice`` turns
them into the sentence the studio and the CLI show.
"""

from __future__ import annotations

from typing import Iterable

from ...plan._model import Plan
from ._feedback import Reading
from ._parse import MASK, Mention, Parsed

__all__ = ["UNREAD_KEY", "unread_notice", "unread_words"]

UNREAD_KEY = "unread_words"


def unread_words(parsed: Parsed, unused: Iterable[Mention]) -> list[str]:
    """The phrases of ``parsed.text`` the plan does not use, in order, each once."""
    reading = Reading(parsed.text)
    dropped = [(m.start, m.end) for m in unused]
    start = None
    for at, char in enumerate([*parsed.masked, ""]):
        if char == MASK and start is None:
            start = at
        elif char != MASK and start is not None:
            _read_outside(reading, start, at, dropped)
            start = None
    seen: set[str] = set()
    out: list[str] = []
    for phrase in reading.unknown():
        key = " ".join(phrase.lower().split())
        if key not in seen:
            seen.add(key)
            out.append(" ".join(phrase.split()))
    return out


def _read_outside(reading: Reading, start: int, end: int, dropped: list[tuple[int, int]]) -> None:
    """Mark ``start``..``end`` read, except the parts inside ``dropped`` spans."""
    at = start
    for d_start, d_end in sorted(dropped):
        if d_end <= at or d_start >= end:
            continue
        if d_start > at:
            reading.read(at, d_start)
        at = max(at, d_end)
    if at < end:
        reading.read(at, end)


def unread_notice(plan: Plan) -> str | None:
    """ 'Not used from the goal: “weather”, “sort by capacity”', or ``None`` when every word was used."""
    words = getattr(plan.metadata, UNREAD_KEY, None)
    if not isinstance(words, list) or not words:
        return None
    return "Not used from the goal: " + ", ".join(f"\u201c{w}\u201d" for w in words if isinstance(w, str))

"""Date phrases a model wrote into a plan, resolved with the studio's date table.

The LLM planner asks the model to copy the goal's own words for a date ("last week",
"since October 3") into a date param rather than work the date out: small models get the
arithmetic wrong, or write ``"${today - 7 days}"``. ``resolve_date_phrases`` turns such a
value into the ISO date ``core.planners._dates`` gives for it: the start of the range for a param
that starts one (``date_from``, ``start``, ``since``...), the end for one that ends it
(``date_to``, ``end``, ``until``...), the start for a single date. A value that is no phrase
the table knows is left as it is, for the validator to name.

The table reads what the user said too (the goal, and a re-plan's feedback): small models copy
the prompt's example phrase ("last week") into goals that name no date, turn "this week" into
"last week", or do the arithmetic anyway. So a date value that is not in the user's words is
the user's one date when they named exactly one (date or range), and is left out when they
named none; with two or more, the model's value stands (which one it meant is its call).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from .._dates import find_dates
from ..._errors import PlannerError
from ...tooling._registry import ToolRegistry
from ._params import step_params, takes_a_date

__all__ = ["resolve_date_phrases"]

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ENDS = re.compile(r"(?:^|_)(?:to|end|until|till|before|through|last)(?:_|$)", re.IGNORECASE)
_PAIRS = (("from", "to"), ("start", "end"), ("since", "until"), ("after", "before"))
_MAX_PHRASE = 200  # a date phrase is a few words; longer text is not read as one
_MAX_SAID = 4_000   # of the user's words read for dates: goals are short, and the table is regex


def resolve_date_phrases(steps: list[Any], registry: ToolRegistry, today: dt.date,
                         said: str | None = None) -> list[str]:
    """Replace date phrases in ``steps`` (raw seed steps, changed in place) by ISO dates;
    returns one line per value replaced, ``step N · param: "phrase" → date``. With ``said``
    (the user's words), a date not in them is checked against them first (module docstring)."""
    done: list[str] = []
    named = _dates_named(said, today) if said is not None else None
    words = _words(said or "")
    filled: set[tuple[int, str]] = set()  # ends this function set: not read again
    for n, raw, tool, name, schema, defs in step_params(steps, registry):
        value = raw["params"].get(name)
        if (n, name) in filled or not takes_a_date(schema, defs) or not isinstance(value, str) or "${" in value:
            continue
        if named is not None and len(named) < 2 and _words(value) not in words:
            if not named:
                del raw["params"][name]
                done.append(f'step {n} · {name}: "{_short(value)}" left out: the goal names no date')
                continue
            chosen = named[0].date_to if _ENDS.search(name) else named[0].date_from
            raw["params"][name] = chosen.isoformat()
            done.append(f'step {n} · {name}: "{_short(value)}" is not in the goal; its date is '
                        f'{chosen.isoformat()}')
            continue
        if not _is_phrase(value):
            continue
        try:
            found = find_dates(value, today)
        except PlannerError:
            continue  # "the last 99999999 days": left for the validator
        if not found:
            continue
        chosen = found[0].date_to if _ENDS.search(name) else found[0].date_from
        raw["params"][name] = chosen.isoformat()
        done.append(f'step {n} · {name}: "{value}" → {chosen.isoformat()}')
        end = _end_of(name, tool.parameters.get("properties") or {})
        if end is not None and end not in raw["params"]:
            # A range phrase written into its start only (small models stop there): the
            # phrase has an end, and the goal meant it.
            raw["params"][end] = found[0].date_to.isoformat()
            filled.add((n, end))
            done.append(f'step {n} · {end}: the end of "{value}" → {found[0].date_to.isoformat()}')
    if named is not None and len(named) == 1:
        done += _date_nobody_wrote(steps, registry, named[0])
    return done


def _date_nobody_wrote(steps: list[Any], registry: ToolRegistry, named: Any) -> list[str]:
    """The user's one date, put in the one step that can take it, when no step has a date
    (small models fill a tool's first params and stop); two such steps, and it is left alone."""
    takers: list[tuple[int, dict[str, Any], str, str | None]] = []
    for n, raw, tool, name, schema, defs in step_params(steps, registry):
        if not takes_a_date(schema, defs):
            continue
        if name in raw["params"]:
            return []  # the model dated a step: what it meant stands
        end = _end_of(name, tool.parameters.get("properties") or {})
        if end is not None and not any(t[0] == n for t in takers):
            takers.append((n, raw, name, end))
    if len(takers) != 1:
        return []
    n, raw, start, end = takers[0]
    raw["params"][start], raw["params"][end] = named.date_from.isoformat(), named.date_to.isoformat()
    return [f"step {n} · {start}, {end}: the goal's date, which no step had → "
            f"{named.date_from.isoformat()} to {named.date_to.isoformat()}"]


def _end_of(name: str, properties: dict[str, Any]) -> str | None:
    """The param that ends the range ``name`` starts (``date_from`` -> ``date_to``), if any."""
    for start, end in _PAIRS:
        other, changed = re.subn(rf"(^|_){start}(_|$)", rf"\g<1>{end}\g<2>", name, flags=re.IGNORECASE)
        if changed and other in properties:
            return other
    return None


def _dates_named(said: str, today: dt.date) -> list[Any]:
    try:
        return find_dates(said[:_MAX_SAID], today)
    except PlannerError:
        return [None, None]  # a phrase past the calendar: two "dates", so the model's values stand


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:59] + "…"


def _is_phrase(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= _MAX_PHRASE and not _ISO.match(value.strip()) \
        and "${" not in value

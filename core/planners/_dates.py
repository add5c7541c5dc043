"""Date phrases in goals ("last week", "since Oct 3", "from October 1st to October 10th").

The table of ``demo-domain.md`` with T = today:

    today                          T          .. T
    yesterday                      T-1        .. T-1
    last week (past week)          T-7        .. T
    this week                      Monday of T's week .. T
    this month                     first of T's month .. T
    last N days / the last N days  T-N        .. T      (also "past N days")
    past N weeks / last N weeks    T-7N       .. T
    last month                     first .. last of the previous month
    on X (or a bare X)             X          .. X
    since X                        X          .. T
    from X to Y, between X and Y   X          .. Y

X and Y are ``October 1st``, ``Oct 1``, ``1 October``, ``the 1st of October`` or
``2025-10-01`` (an optional year may follow a month name); a missing year is T's year.
"today" and "yesterday" may stand for X or Y too, and so may a weekday ("Monday", "last
Friday": the latest one before T). Beyond the table:

    in/during September [2025]     first .. last of that month (a month alone needs a
                                   preposition or a year: "may" is also a verb)
    since August, from July to August, between July and September: a month as X is its
                                   first day, as Y its last
    between 5 and 10 October, from 3 to 7 Sep, 5-10 October, October 2-4: days of one month
    last September                 the latest September that has ended
    in 2024                        2024-01-01 .. 2024-12-31

Matching ignores case.
"""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
import re
from typing import Callable, NamedTuple

from .._errors import PlannerError

__all__ = ["DateRange", "find_dates", "resolve_dates"]


class DateRange(NamedTuple):
    """A resolved phrase: inclusive dates and where the phrase is in the text."""

    date_from: dt.date
    date_to: dt.date
    span: tuple[int, int]


_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+\d{4}\b)?"
_WEEKDAYS = {name.lower(): n for n, name in enumerate(calendar.day_name)}
_WEEKDAY = r"(?:(?:last|past|previous)\s+)?(?:" + "|".join(_WEEKDAYS) + r")"
# One point in time: an ISO date, "October 1st[, 2025]", "1 October [2025]", "the 1st of October",
# a weekday ("Monday", "last Friday").
_POINT = (r"(?:\d{4}-\d{2}-\d{2}"
          rf"|{_MONTH}\s+{_DAY}(?!\d){_YEAR}"
          rf"|(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}{_YEAR}"
          rf"|today|yesterday|{_WEEKDAY})")
# A whole month ("September", "March 2025"), as one end of a span.
_MONTH_ALONE = rf"{_MONTH}(?:,?\s+\d{{4}})?(?![\w-])"
_END = rf"(?:{_POINT}|{_MONTH_ALONE})"
_DAY_RANGE_TO = r"(?:to|until|till|through|thru|and|-|\u2013)"

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14,
                 "fifteen": 15, "twenty": 20, "thirty": 30, "sixty": 60, "ninety": 90}
_COUNT = r"(\d+|" + "|".join(_NUMBER_WORDS) + r")"


def _parse_point(text: str, today: dt.date, *, end: bool = False) -> dt.date | None:
    """The day ``text`` names; a month alone is its first day, or its last with ``end``."""
    text = text.strip().lower()
    if text == "today":
        return today
    if text == "yesterday":
        return today - dt.timedelta(days=1)
    if (weekday := _WEEKDAYS.get(text.split()[-1])) is not None:
        # The latest such day before today: "since Monday" said on a Monday means a week ago.
        return today - dt.timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    if m := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text):
        return _safe_date(int(m[1]), int(m[2]), int(m[3]))
    year = today.year
    if m := re.search(r"(\d{4})$", text):
        year = int(m[1])
        text = text[:m.start()].rstrip(" ,")
    text = re.sub(r"^the\s+", "", text)
    words = [w for w in re.split(r"[\s.]+", text) if w and w != "of"]
    month = next((_MONTHS[w] for w in words if w in _MONTHS), None)
    day = next((int(re.match(r"\d+", w)[0]) for w in words if re.match(r"\d", w)), None)
    if month is None:
        return None
    if day is None:
        day = calendar.monthrange(year, month)[1] if end else 1
    return _safe_date(year, month, day)


def _safe_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:  # "February 30th" is no date; the phrase is left alone
        return None


def _count(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS[text.lower()]


def _previous_month(today: dt.date) -> tuple[dt.date, dt.date]:
    last = today.replace(day=1) - dt.timedelta(days=1)
    return last.replace(day=1), last


Resolver = Callable[[re.Match[str], dt.date], "tuple[dt.date, dt.date] | None"]


def _range(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    end = _parse_point(m["y"], today, end=True)
    start = _parse_point(m["x"], today)
    # "between Oct 1 and Oct 5, 2024": a year given once belongs to both ends.
    if start and end and not re.search(r"\d{4}", m["x"]) and re.search(r"\d{4}", m["y"]):
        start = _safe_date(end.year, start.month, start.day) or start
    return (start, end) if start and end else None


def _since(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    start = _parse_point(m["x"], today)
    return (start, today) if start else None


def _month(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    start = _parse_point(m["x"], today)
    end = _parse_point(m["x"], today, end=True)
    return (start, end) if start and end else None


def _last_named_month(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    """ "last September": the latest September that has ended (T's year if it has, else the year before)."""
    start = _parse_point(m["x"], today)
    if start is None:
        return None
    if start.month >= today.month:
        start = start.replace(year=today.year - 1)
    return start, _parse_point(f"{m['x']} {start.year}", today, end=True) or start


def _year(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    year = int(m["yr"])
    return dt.date(year, 1, 1), dt.date(year, 12, 31)


def _days_of_month(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    """ "between 5 and 10 October", "October 2-4": two days of one month."""
    month = f"{m['m']}{m['yr'] or ''}"
    start = _parse_point(f"{m['d1']} {month}", today)
    end = _parse_point(f"{m['d2']} {month}", today)
    return (start, end) if start and end and start <= end else None


def _day(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    day = _parse_point(m["x"], today)
    return (day, day) if day else None


def _last_n(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    unit = m["unit"].lower()
    try:
        n = _count(m["n"])
        if unit.startswith("day"):
            return today - dt.timedelta(days=n), today
        if unit.startswith("week"):
            return today - dt.timedelta(days=7 * n), today
        month = today.month - n
        year = today.year + (month - 1) // 12
        month = (month - 1) % 12 + 1
        day = min(today.day, calendar.monthrange(year, month)[1])
        return dt.date(year, month, day), today
    except (OverflowError, ValueError):
        said = re.sub(r"\s+", " ", m.group())
        if len(said) > 60:
            said = f"{said[:40]}… ({len(m['n'])} digits)"
        raise PlannerError(f"{said!r} reaches back before {dt.date.min.isoformat()}, the earliest date "
                           "there is; ask for a shorter span, e.g. 'the last 30 days'") from None


def _fixed(resolve: Callable[[dt.date], tuple[dt.date, dt.date]]) -> Resolver:
    return lambda m, today: resolve(today)


# Longer phrases first: "from X to Y" must win over a bare X, "last 2 weeks" over "last week".
_PATTERNS: list[tuple[re.Pattern[str], Resolver]] = [(re.compile(p, re.IGNORECASE), r) for p, r in [
    (rf"\b(?:between|from)\s+(?:the\s+)?(?P<d1>{_DAY})\s*{_DAY_RANGE_TO}\s*(?:the\s+)?(?P<d2>{_DAY})"
     rf"\s+(?:of\s+)?(?P<m>{_MONTH})(?P<yr>{_YEAR})(?![\w-])", _days_of_month),
    (rf"\b(?P<d1>{_DAY})\s*[-\u2013]\s*(?P<d2>{_DAY})\s+(?:of\s+)?(?P<m>{_MONTH})(?P<yr>{_YEAR})(?![\w-])",
     _days_of_month),
    (rf"\b(?:(?:between|from)\s+)?(?P<m>{_MONTH})\s+(?P<d1>{_DAY})\s*{_DAY_RANGE_TO}\s*(?P<d2>{_DAY})"
     rf"(?![\w-]|\s+{_MONTH}(?![\w-]))(?P<yr>{_YEAR})", _days_of_month),
    (rf"\bbetween\s+(?P<x>{_END})\s+and\s+(?P<y>{_END})(?![\w-])", _range),
    (rf"\b(?:from\s+)?(?P<x>{_END})\s+(?:to|until|till|through|thru|-)\s+(?P<y>{_END})(?![\w-])", _range),
    (rf"\b(?:since|starting(?:\s+from)?|as\s+of)\s+(?P<x>{_END})(?![\w-])", _since),
    (rf"\b(?:the\s+)?(?:last|past|previous)\s+(?P<n>{_COUNT[1:-1]})\s+(?P<unit>days?|weeks?|months?)\b", _last_n),
    (r"\b(?:the\s+)?(?:last|past|previous)\s+week\b", _fixed(lambda t: (t - dt.timedelta(days=7), t))),
    (r"\bthis\s+week\b", _fixed(lambda t: (t - dt.timedelta(days=t.weekday()), t))),
    (r"\bthis\s+month\b", _fixed(lambda t: (t.replace(day=1), t))),
    (r"\b(?:the\s+)?(?:last|previous)\s+month\b", _fixed(_previous_month)),
    (r"\btoday\b", _fixed(lambda t: (t, t))),
    (r"\byesterday\b", _fixed(lambda t: (t - dt.timedelta(days=1), t - dt.timedelta(days=1)))),
    (rf"\b(?:on\s+)?(?P<x>{_POINT})\b", _day),
    # A month alone, once no day of it is named ("on 1 October 2024" is one day).
    (rf"\b(?:in|during|throughout|for|within|over)\s+(?:the\s+month\s+of\s+)?(?P<x>{_MONTH_ALONE})(?![\s,]*\d)",
     _month),
    (rf"\b(?P<x>{_MONTH},?\s+\d{{4}})\b", _month),
    (rf"\b(?:last|past|previous)\s+(?P<x>{_MONTH})(?![\w-])", _last_named_month),
    (rf"\bthis\s+(?P<x>{_MONTH})(?![\w-])", _month),
    (r"\b(?:in|during|throughout|for)\s+(?:the\s+year\s+)?(?P<yr>(?:19|20)\d{2})(?![\w-])", _year),
]]


def find_dates(text: str, today: dt.date) -> list[DateRange]:
    """Every date phrase in ``text``, in order, none overlapping another.

    Raises ``PlannerError`` for a phrase that reaches past the calendar ("the last 99999999
    days"), naming it.
    """
    taken: list[tuple[int, int]] = []  # sorted and disjoint, so ends are sorted too
    found: list[DateRange] = []
    for pattern, resolve in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span()
            at = bisect.bisect_left(taken, (end, end))
            if at and taken[at - 1][1] > start:  # the one phrase that could overlap it
                continue
            dates = resolve(m, today)
            if dates is None:
                continue
            taken.insert(at, (start, end))
            found.append(DateRange(dates[0], dates[1], (start, end)))
    return sorted(found, key=lambda r: r.span)


def resolve_dates(text: str, today: dt.date) -> DateRange | None:
    """The first date phrase in ``text`` as ``(date_from, date_to, span)``, or ``None``."""
    found = find_dates(text, today)
    return found[0] if found else None

"""The date table of demo-domain.md, row by row, and the forms X and Y may take."""

from __future__ import annotations

import datetime as dt

import pytest

from core import PlannerError
from core.planners._dates import find_dates, resolve_dates

T = dt.date(2025, 10, 12)  # a Sunday
D = dt.date


@pytest.mark.parametrize("text, start, end", [
    ("today", T, T),
    ("Contaminants detected today", T, T),
    ("today's contaminants", T, T),
    ("yesterday", D(2025, 10, 11), D(2025, 10, 11)),
    ("last week", D(2025, 10, 5), T),
    ("this week", D(2025, 10, 6), T),
    ("this month", D(2025, 10, 1), T),
    ("last 30 days", D(2025, 9, 12), T),
    ("the last 30 days", D(2025, 9, 12), T),
    ("last 3 days", D(2025, 10, 9), T),
    ("past 2 weeks", D(2025, 9, 28), T),
    ("the past 3 weeks", D(2025, 9, 21), T),
    ("last month", D(2025, 9, 1), D(2025, 9, 30)),
    ("on October 3rd", D(2025, 10, 3), D(2025, 10, 3)),
    ("on Oct 3", D(2025, 10, 3), D(2025, 10, 3)),
    ("on 3 October", D(2025, 10, 3), D(2025, 10, 3)),
    ("on 2025-10-03", D(2025, 10, 3), D(2025, 10, 3)),
    ("since October 1st", D(2025, 10, 1), T),
    ("since Oct 1", D(2025, 10, 1), T),
    ("since 1 October", D(2025, 10, 1), T),
    ("since 2025-09-15", D(2025, 9, 15), T),
    ("from October 1st to October 10th", D(2025, 10, 1), D(2025, 10, 10)),
    ("from 2025-10-01 to 2025-10-12", D(2025, 10, 1), T),
    ("from Sep 20 to 2025-10-02", D(2025, 9, 20), D(2025, 10, 2)),
    ("between Oct 2 and Oct 4", D(2025, 10, 2), D(2025, 10, 4)),
    ("between 1 September and 15 September", D(2025, 9, 1), D(2025, 9, 15)),
])
def test_every_row_of_the_date_table(text: str, start: dt.date, end: dt.date) -> None:
    found = resolve_dates(text, T)
    assert found is not None, text
    assert (found.date_from, found.date_to) == (start, end)


def test_span_covers_the_phrase_with_its_preposition() -> None:
    text = "Get shipments from October 1st to October 10th going to Hannover"
    date_from, date_to, span = resolve_dates(text, T)
    assert text[span[0]:span[1]] == "from October 1st to October 10th"
    assert (date_from, date_to) == (D(2025, 10, 1), D(2025, 10, 10))
    text = "Inspections since Oct 3 at landfills"
    assert text[slice(*resolve_dates(text, T).span)] == "since Oct 3"


def test_this_week_runs_from_monday_even_when_today_is_monday() -> None:
    monday = D(2025, 10, 6)
    assert resolve_dates("this week", monday)[:2] == (monday, monday)
    assert resolve_dates("this week", D(2025, 10, 8))[:2] == (monday, D(2025, 10, 8))


def test_last_month_and_yesterday_cross_year_boundaries() -> None:
    assert resolve_dates("last month", D(2026, 1, 15))[:2] == (D(2025, 12, 1), D(2025, 12, 31))
    assert resolve_dates("yesterday", D(2026, 1, 1))[:2] == (D(2025, 12, 31), D(2025, 12, 31))
    assert resolve_dates("this month", D(2024, 2, 29))[:2] == (D(2024, 2, 1), D(2024, 2, 29))


def test_a_missing_year_is_todays_year() -> None:
    assert resolve_dates("on March 3rd", D(2024, 6, 1))[:2] == (D(2024, 3, 3), D(2024, 3, 3))
    assert resolve_dates("on March 3rd, 2023", T)[:2] == (D(2023, 3, 3), D(2023, 3, 3))


def test_number_words_and_other_spellings() -> None:
    assert resolve_dates("the last seven days", T)[:2] == (D(2025, 10, 5), T)
    assert resolve_dates("on Oct. 9", T)[:2] == (D(2025, 10, 9), D(2025, 10, 9))
    assert resolve_dates("since the 3rd of September", T)[:2] == (D(2025, 9, 3), T)
    assert resolve_dates("Oct 1 through Oct 9", T)[:2] == (D(2025, 10, 1), D(2025, 10, 9))


@pytest.mark.parametrize("text", ["Get facilities in Berlin", "first 20 shipments", "February 30th",
                                  "top 5 sorting centers", "limit 10"])
def test_text_without_a_date_gives_none(text: str) -> None:
    assert resolve_dates(text, T) is None


def test_find_dates_returns_every_phrase_in_order() -> None:
    found = find_dates("shipments from yesterday and inspections from last month", T)
    assert [(f.date_from, f.date_to) for f in found] == [
        (D(2025, 10, 11), D(2025, 10, 11)), (D(2025, 9, 1), D(2025, 9, 30))]
    assert found[0].span < found[1].span


@pytest.mark.parametrize("text", ["the last 99999999 days", "past 999999999 weeks", "last 30000 months",
                                  f"last {'9' * 5000} days"])
def test_a_span_reaching_past_the_calendar_is_a_planner_error(text: str) -> None:
    with pytest.raises(PlannerError, match="reaches back before 0001-01-01"):
        find_dates(f"shipments from {text}", T)

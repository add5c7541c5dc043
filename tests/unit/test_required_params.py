"""The embedded planner fills a tool's required parameters from the goal's own words, for tools
and goals it has never seen, and names each one it cannot fill."""

from __future__ import annotations

import datetime as dt
from typing import Literal

import pytest

from core import ToolRegistry
from core.planners import planner_notices
from core.planners.embedded._planner import EmbeddedPlanner

TODAY = dt.date(2025, 1, 1)


def _planner() -> EmbeddedPlanner:
    registry = ToolRegistry()

    def weather_lookup(city: str) -> dict:
        """Current weather for a place."""
        return {}

    def get_stock_price(symbol: str) -> dict:
        """Latest price."""
        return {}

    def read_file(path: str) -> str:
        """Read a text file."""
        return ""

    def fetch_invoice(invoice_number: int) -> dict:
        """One invoice."""
        return {}

    def get_exchange_rate(base: str, target: str) -> float:
        """Rate between two currencies."""
        return 1.0

    def search_books(query: str, language: Literal["en", "fr"], limit: int = 10) -> list:
        """Search books."""
        return []

    for func in (weather_lookup, get_stock_price, read_file, fetch_invoice, get_exchange_rate, search_books):
        registry.register(func, effects="read-only")
    return EmbeddedPlanner(registry)


PLANNER = _planner()


@pytest.mark.parametrize(("goal", "expected"), [
    ("weather in Paris", [("weather_lookup", {"city": "Paris"})]),
    ("What's the weather in New York?", [("weather_lookup", {"city": "New York"})]),
    ("weather city: Lyon", [("weather_lookup", {"city": "Lyon"})]),
    ("stock price of ACME", [("get_stock_price", {"symbol": "ACME"})]),
    ("read file 'notes/todo.txt'", [("read_file", {"path": "notes/todo.txt"})]),
    ("fetch invoice 1042", [("fetch_invoice", {"invoice_number": 1042})]),
    ("exchange rate from USD to EUR", [("get_exchange_rate", {"base": "USD", "target": "EUR"})]),
    ("search books about 'war and peace' language fr", [("search_books", {"query": "war and peace", "language": "fr"})]),
    ("weather for Oslo then read file 'a.txt'", [("weather_lookup", {"city": "Oslo"}), ("read_file", {"path": "a.txt"})]),
])
def test_required_parameters_come_from_the_goal(goal: str, expected: list) -> None:
    plan = PLANNER.plan(goal, today=TODAY)
    assert [(s.tool, s.params) for s in plan.steps] == expected
    assert planner_notices(plan) == []  # every word used, nothing missing


def test_a_parameter_the_goal_does_not_give_is_named_not_skipped() -> None:
    plan = PLANNER.plan("weather", today=TODAY)
    assert [(s.tool, s.params) for s in plan.steps] == [("weather_lookup", {})]
    assert [(kind, text.split(",")[0]) for kind, text in planner_notices(plan)] == [
        ("warning", "weather_lookup needs city")]


def test_a_value_that_does_not_fit_the_schema_is_not_taken() -> None:
    plan = PLANNER.plan("fetch invoice abc", today=TODAY)
    assert plan.steps[0].params == {}
    assert any("fetch_invoice needs invoice_number" in text for _kind, text in planner_notices(plan))

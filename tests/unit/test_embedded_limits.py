"""The embedded planner on input that is too big: long goals, huge numbers, counts a tool
refuses. Each ends in a plan or in a ``PlannerError`` that says what is wrong, never in an
``OverflowError``, a ``ValueError`` or a plan the tool rejects when it runs.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import PlannerError, PlanStudioError, Settings, ToolRegistry, Validator
from core.planners import MAX_GOAL_LENGTH, EmbeddedPlanner
from core.planners._dates import find_dates
from tools import build_registry

from planner_cases import F, S, T, seed_steps, step


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("limits"), today=T), groups=["waste"])


@pytest.fixture(scope="module")
def planner(registry: ToolRegistry) -> EmbeddedPlanner:
    return EmbeddedPlanner(registry)


# -- long goals ----------------------------------------------------------------------------

def test_a_goal_over_the_limit_is_refused_naming_the_limit(planner: EmbeddedPlanner) -> None:
    goal = "Get shipments going to Berlin and " * 2000  # 68,000 characters
    with pytest.raises(PlannerError) as error:
        planner.plan(goal, today=T)
    message = str(error.value)
    assert f"{MAX_GOAL_LENGTH:,}" in message and f"{len(goal):,} characters" in message


def test_feedback_over_the_limit_is_refused_and_the_plan_stays(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get facilities in Berlin", today=T)
    before = plan.model_dump()
    with pytest.raises(PlannerError, match=f"{MAX_GOAL_LENGTH:,}"):
        planner.replan(plan, "use Munich instead " * 500, today=T)
    assert plan.model_dump() == before


@pytest.mark.parametrize("unit", [
    "Get shipments going to Berlin and ",          # many parts
    "Get facilities in Berlin then their shipments ",  # many chained parts
    "contaminants of those shipments then their inspections, ",
    "shipments to Berlin ",                          # one part naming many entities
    "from Oct 1 to Oct 5 shipments ",                # many date phrases
    "10 shipments top 5 ",                           # many counts
])
def test_a_goal_as_long_as_allowed_is_planned_in_full(planner: EmbeddedPlanner, registry: ToolRegistry,
                                                     unit: str) -> None:
    goal = (unit * (MAX_GOAL_LENGTH // len(unit)))[:MAX_GOAL_LENGTH].rsplit(" ", 1)[0]
    plan = planner.plan(goal, today=T)
    assert len(plan.steps) >= MAX_GOAL_LENGTH // len(unit) // 2
    assert Validator(registry).errors(plan) == []


# -- numbers too big for a date or a count -------------------------------------------------

@pytest.mark.parametrize("goal, said", [
    ("shipments from the last 99999999 days", "'the last 99999999 days'"),
    ("inspections over the past 999999999999 weeks", "'the past 999999999999 weeks'"),
    ("contaminants from the last 99999 months", "'the last 99999 months'"),
    (f"shipments from the last {'9' * 1500} days", "1500 digits"),
])
def test_a_span_past_the_calendar_is_a_planner_error_naming_it(planner: EmbeddedPlanner, goal: str,
                                                               said: str) -> None:
    with pytest.raises(PlannerError) as error:
        planner.plan(goal, today=T)
    assert said in str(error.value) and "0001-01-01" in str(error.value)


def test_a_long_span_that_fits_the_calendar_is_read() -> None:
    [found] = find_dates("the last 700000 days", T)
    assert (found.date_from, found.date_to) == (T - dt.timedelta(days=700000), T)


@pytest.mark.parametrize("goal", [f"shipments limit {'9' * 1900}", f"first {'4' * 1900} shipments",
                                  f"{'7' * 1900} rows of shipments"])
def test_a_count_with_thousands_of_digits_is_a_planner_error(planner: EmbeddedPlanner, goal: str) -> None:
    with pytest.raises(PlannerError, match="1900 digits"):
        planner.plan(goal, today=T)


def test_a_step_number_with_thousands_of_digits_is_no_step(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get facilities in Berlin, then their shipments", today=T)
    with pytest.raises(PlannerError, match="there is no step .*1900 digits.*unchanged"):
        planner.replan(plan, f"remove step {'9' * 1900}", today=T)


# -- counts outside what the tool takes ----------------------------------------------------

@pytest.mark.parametrize("goal", ["top 0 landfills", "Get shipments, limit 0", "0 rows of contaminants"])
def test_a_limit_of_zero_is_refused_naming_the_parameter(planner: EmbeddedPlanner, goal: str) -> None:
    # The demo tools' schemas may state no minimum; a count of rows is at least 1 all the same.
    with pytest.raises(PlannerError) as error:
        planner.plan(goal, today=T)
    assert "limit must be " in str(error.value) and "the goal asks for 0" in str(error.value)


def test_replan_to_a_limit_of_zero_is_refused_and_the_plan_stays(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get shipments from last week", today=T)
    before = plan.model_dump()
    with pytest.raises(PlannerError) as error:
        planner.replan(plan, "limit 0", today=T)
    assert "limit must be at least 1" in str(error.value)
    assert "the feedback asks for 0" in str(error.value) and "unchanged" in str(error.value)
    assert plan.model_dump() == before


def bounded_registry(schema: dict[str, Any]) -> ToolRegistry:
    """Two toy tools whose ``limit`` schema gets ``schema``'s bounds, as the registry's JSON
    schema would state them."""
    registry = ToolRegistry()

    @registry.register
    def sites_list(city: str | None = None, limit: int = 10) -> dict:
        """List sites.

        Args:
            city: City of the site, e.g. Berlin.
            limit: Maximum number of sites.
        """
        return {"data": [], "count": 0}

    @registry.register
    def visits_list(site_id: str | list[str] | None = None, limit: int | None = None) -> dict:
        """List visits.

        Args:
            site_id: A site id or a list of them.
            limit: Maximum number of visits.
        """
        return {"data": [], "count": 0}

    registry.get("sites_list").parameters["properties"]["limit"].update(schema)
    visits_limit = registry.get("visits_list").parameters["properties"]["limit"]
    visits_limit["anyOf"][0].update(schema)  # int | None: the bounds sit in one alternative
    return registry


@pytest.mark.parametrize("schema, goal, message", [
    ({"minimum": 1, "maximum": 50}, "top 80 sites in Berlin", "limit must be between 1 and 50 for sites_list; "
     "the goal asks for 80"),
    ({"minimum": 1, "maximum": 50}, "the visits of sites, limit 80", "limit must be between 1 and 50 for "
     "visits_list; the goal asks for 80"),
    ({"exclusiveMinimum": 0, "exclusiveMaximum": 51}, "top 51 sites", "limit must be between 1 and 50 for "
     "sites_list; the goal asks for 51"),
    # A count of rows is at least 1 even where the schema gives only a maximum.
    ({"maximum": 50}, "top 0 sites", "limit must be between 1 and 50 for sites_list; the goal asks for 0"),
    ({"minimum": 5}, "first 2 visits", "limit must be at least 5 for visits_list; the goal asks for 2"),
])
def test_a_limit_outside_the_schema_bounds_names_the_parameter_and_the_range(schema: dict[str, Any], goal: str,
                                                                             message: str) -> None:
    with pytest.raises(PlannerError) as error:
        EmbeddedPlanner(bounded_registry(schema)).plan(goal, today=T)
    assert str(error.value) == message


def test_a_limit_inside_the_schema_bounds_is_planned() -> None:
    planner = EmbeddedPlanner(bounded_registry({"minimum": 1, "maximum": 50}))
    assert seed_steps(planner.plan("top 50 sites in Berlin", today=T)) == [
        step("sites_list", {"city": "Berlin", "limit": 50})]
    plan = planner.plan("sites in Berlin", today=T)
    with pytest.raises(PlannerError, match="limit must be between 1 and 50 for sites_list; the feedback asks for 51"):
        planner.replan(plan, "limit 51", today=T)
    assert planner.replan(plan, "limit 5", today=T).steps[0].params == {"city": "Berlin", "limit": 5}


# -- anything typed ------------------------------------------------------------------------

_WORDS = ["shipments", "facilities", "contaminants", "inspections", "landfills", "Berlin", "Munich", "and",
          "then", "their", "those", "top", "limit", "first", "last", "past", "days", "weeks", "months",
          "since", "from", "to", "between", "Oct", "1st", "2025-10-01", "today", "yesterday", "going to",
          "carried by", "EcoHaul", "high-risk", "failed", "rejected", ",", ".", "?", "step", "remove",
          "drop", "add", "instead", "same", "0", "-1", "99999999999999999999", "9" * 400, "the", "'s"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.one_of(st.sampled_from(_WORDS), st.text(max_size=12)), max_size=40))
def test_any_goal_gives_a_valid_plan_or_a_planner_error(planner: EmbeddedPlanner, registry: ToolRegistry,
                                                        words: list[str]) -> None:
    goal = " ".join(words)
    try:
        plan = planner.plan(goal, today=T)
    except PlanStudioError:
        return
    assert Validator(registry).errors(plan) == []
    assert all(not s.parallel for s in plan.steps if plan.dependencies_of(s.id))
    try:
        planner.replan(plan, goal, today=T)
    except PlanStudioError:
        pass

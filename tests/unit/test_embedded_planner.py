"""The embedded planner on goals beyond the acceptance file, re-plans, follow-ups and errors.

Expected plans are written from the rules of demo-domain.md (T = 2025-10-12, a Sunday).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

import pytest

from core import PlannerError, Settings, ToolRegistry, Validator, set_locked
from core.planners import EmbeddedPlanner, PlanContext, Planner
from tools import build_registry

from planner_cases import C, F, I, REF0, REF1, S, T, seed_params, seed_steps, step
from test_unseen_goals import GOALS as UNSEEN_GOALS



@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("embedded"), today=T), groups=["waste"])


@pytest.fixture
def planner(registry: ToolRegistry) -> EmbeddedPlanner:
    return EmbeddedPlanner(registry)


def dates(start: str, end: str) -> dict[str, str]:
    return {"date_from": start, "date_to": end}



EXTRA_GOALS = [
    ("failed inspections at landfills in Munich last month", [
        step(F, {"type": "landfill", "location": "Munich"}),
        step(I, {"facility_id": REF0, "result": "failed", **dates("2025-09-01", "2025-09-30")}, (0,))]),
    ("high-risk plastic contaminants since Oct 3", [
        step(C, {"risk_level": "high", "category": "plastic", **dates("2025-10-03", "2025-10-12")})]),
    ("pending shipments carried by GreenLine going to Leipzig, first 20", [
        step(S, {"status": "pending", "carrier": "GreenLine", "destination": "Leipzig", "limit": 20})]),
    ("List recycling plants in Dresden, then their shipments from this week, then check for contaminants", [
        step(F, {"type": "recycling", "location": "Dresden"}),
        step(S, {"facility_id": REF0, **dates("2025-10-06", "2025-10-12")}, (0,)),
        step(C, {"shipment_ids": REF1}, (1,))]),
    ("Get rejected shipments, composting sites near capacity, and passed inspections from yesterday", [
        step(S, {"status": "rejected"}, parallel=True),
        step(F, {"type": "composting", "near_capacity": True}, parallel=True),
        step(I, {"result": "passed", **dates("2025-10-11", "2025-10-11")}, parallel=True)]),
    ("Show in-transit shipments destined for Cologne from the past 2 weeks", [
        step(S, {"status": "in_transit", "destination": "Cologne", **dates("2025-09-28", "2025-10-12")})]),
    ("Hazardous contaminants found in Leipzig today", [
        step(F, {"location": "Leipzig"}),
        step(C, {"facility_id": REF0, "category": "hazardous", **dates("2025-10-12", "2025-10-12")}, (0,))]),
    ("List incinerators near capacity", [step(F, {"type": "incineration", "near_capacity": True})]),
    ("Delivered shipments with carrier RiverFreight between Sep 1 and Sep 15", [
        step(S, {"status": "delivered", "carrier": "RiverFreight", **dates("2025-09-01", "2025-09-15")})]),
    ("Top 5 sorting centers in Berlin", [step(F, {"type": "sorting", "location": "Berlin", "limit": 5})]),
    ("Get shipments on 2025-10-08", [step(S, dates("2025-10-08", "2025-10-08"))]),
    ("Medium risk contaminants from 1 October to 5 October", [
        step(C, {"risk_level": "medium", **dates("2025-10-01", "2025-10-05")})]),
    ("Inspections from the last 7 days", [step(I, dates("2025-10-05", "2025-10-12"))]),
    ("Contaminated shipments from landfills this month", [
        step(F, {"type": "landfill"}),
        step(S, {"facility_id": REF0, "has_contaminants": True, **dates("2025-10-01", "2025-10-12")}, (0,))]),
    ("Get contaminated shipments carried by EcoHaul and their contaminant details", [
        step(S, {"has_contaminants": True, "carrier": "EcoHaul"}),
        step(C, {"shipment_ids": REF0}, (0,))]),
    ("Low risk shipments since October 1st, limit 10", [
        step(S, {"risk_level": "low", "limit": 10, **dates("2025-10-01", "2025-10-12")})]),
    ("Inspections at composting sites in Cologne", [
        step(F, {"type": "composting", "location": "Cologne"}),
        step(I, {"facility_id": REF0}, (0,))]),
    ("Get facilities near capacity, then their inspections from this week", [
        step(F, {"near_capacity": True}),
        step(I, {"facility_id": REF0, **dates("2025-10-06", "2025-10-12")}, (0,))]),
    ("Glass contaminants on October 9th", [step(C, {"category": "glass", **dates("2025-10-09", "2025-10-09")})]),
    ("Shipments going to Hamburg carried by CityCart from last month", [
        step(S, {"destination": "Hamburg", "carrier": "CityCart", **dates("2025-09-01", "2025-09-30")})]),
    ("Electronic contaminants at recycling facilities in Berlin from the last 14 days", [
        step(F, {"type": "recycling", "location": "Berlin"}),
        step(C, {"facility_id": REF0, "category": "electronic", **dates("2025-09-28", "2025-10-12")}, (0,))]),
    ("first 3 rejected shipments from Hannover facilities", [
        step(F, {"location": "Hannover"}),
        step(S, {"facility_id": REF0, "status": "rejected", "limit": 3}, (0,))]),
    ("Organic contaminants since 2025-09-20", [step(C, {"category": "organic", **dates("2025-09-20", "2025-10-12")})]),
    ("Shipments with high risk going to Munich this week", [
        step(S, {"risk_level": "high", "destination": "Munich", **dates("2025-10-06", "2025-10-12")})]),
    ("Passed inspections at sorting centers", [
        step(F, {"type": "sorting"}), step(I, {"facility_id": REF0, "result": "passed"}, (0,))]),
    ("Get facilities in Dresden and their inspections, and shipments going to Berlin", [
        step(F, {"location": "Dresden"}, parallel=True),
        step(I, {"facility_id": REF0}, (0,)),
        step(S, {"destination": "Berlin"}, parallel=True)]),
    ("Rejected shipments from yesterday then their contaminants", [
        step(S, {"status": "rejected", **dates("2025-10-11", "2025-10-11")}),
        step(C, {"shipment_ids": REF0}, (0,))]),
    ("Landfill inspections in Hamburg", [
        step(F, {"type": "landfill", "location": "Hamburg"}), step(I, {"facility_id": REF0}, (0,))]),
    ("Contaminants detected yesterday at landfills near capacity", [
        step(F, {"type": "landfill", "near_capacity": True}),
        step(C, {"facility_id": REF0, **dates("2025-10-11", "2025-10-11")}, (0,))]),
    ("contaminants of shipments going to Leipzig since Oct 3", [
        step(S, {"destination": "Leipzig", **dates("2025-10-03", "2025-10-12")}),
        step(C, {"shipment_ids": REF0}, (0,))]),
    ("What was shipped by GreenLine?", [step(S, {"carrier": "GreenLine"})]),
    ("inspections this week at incinerators, first 5", [
        step(F, {"type": "incineration"}),
        step(I, {"facility_id": REF0, "limit": 5, **dates("2025-10-06", "2025-10-12")}, (0,))]),
    ("Get inspections from this week, then facilities", [
        step(I, dates("2025-10-06", "2025-10-12")), step(F, {}, (0,))]),
]


@pytest.mark.parametrize("goal, expected", EXTRA_GOALS, ids=[g for g, _ in EXTRA_GOALS])
def test_goal_gives_the_plan_the_rules_describe(planner: EmbeddedPlanner, registry: ToolRegistry,
                                                goal: str, expected: list[dict[str, Any]]) -> None:
    plan = planner.plan(goal, today=T)
    assert seed_steps(plan) == expected
    assert Validator(registry).errors(plan) == []


def test_plan_metadata_and_step_ids(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get facilities in Berlin, then their shipments, then check for contaminants", today=T)
    assert plan.goal.startswith("Get facilities in Berlin")
    assert plan.metadata.planner == "embedded" and plan.metadata.today == T
    assert [s.id for s in plan.steps] == ["s1", "s2", "s3"]
    assert plan.steps[2].depends_on == ["s2"]
    assert isinstance(planner, Planner) and planner.name == "embedded"


def test_same_goal_gives_the_same_plan(registry: ToolRegistry) -> None:
    goal = "failed inspections at landfills in Munich last month, and contaminated shipments"
    first = EmbeddedPlanner(registry).plan(goal, today=T)
    second = EmbeddedPlanner(registry).plan(goal, today=T)
    assert first.model_dump(exclude={"metadata"}) == second.model_dump(exclude={"metadata"})


def test_dates_follow_today(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get shipments from last week", today=dt.date(2024, 3, 1))
    assert plan.steps[0].params == {"date_from": "2024-02-23", "date_to": "2024-03-01"}


@pytest.mark.parametrize("goal", ["Tell me a joke", "What is the weather like?", "   "])
def test_goal_naming_no_entity_is_an_error_listing_the_tools(planner: EmbeddedPlanner, goal: str) -> None:
    with pytest.raises(PlannerError) as info:
        planner.plan(goal, today=T)
    message = str(info.value)
    if goal.strip():
        for tool in (F, S, C, I):
            assert tool in message


def test_filters_that_fit_two_tools_equally_ask_which_one(planner: EmbeddedPlanner) -> None:
    with pytest.raises(PlannerError, match="shipments or contaminants"):
        planner.plan("anything high risk", today=T)


# -- re-planning ---------------------------------------------------------------------------

CHAIN = "Get facilities in Berlin, then their shipments, then check for contaminants"


def test_replan_swaps_the_city_and_keeps_ids(planner: EmbeddedPlanner) -> None:
    plan = planner.plan(CHAIN, today=T)
    new = planner.replan(plan, "use Munich instead", today=T)
    assert new.steps[0].params == {"location": "Munich"}
    assert [s.id for s in new.steps] == [s.id for s in plan.steps]
    assert [s.params for s in new.steps[1:]] == [s.params for s in plan.steps[1:]]
    assert plan.steps[0].params == {"location": "Berlin"}  # the original is untouched
    assert new.metadata.planner == "embedded"


def test_replan_city_instead_of_a_named_one(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get facilities in Dresden and shipments going to Berlin", today=T)
    new = planner.replan(plan, "Hamburg instead of Berlin", today=T)
    assert new.steps[0].params == {"location": "Dresden"}
    assert new.steps[1].params == {"destination": "Hamburg"}
    with pytest.raises(PlannerError, match="Cologne"):
        planner.replan(plan, "Munich instead of Cologne", today=T)


def test_replan_drops_a_step_and_renumbers_references(planner: EmbeddedPlanner, registry: ToolRegistry) -> None:
    plan = planner.plan("Get inspections and facilities in Berlin and their shipments", today=T)
    assert [s.tool for s in plan.steps] == [I, F, S]
    assert seed_params(plan, 2) == {"facility_id": REF1}
    new = planner.replan(plan, "drop the inspections step", today=T)
    assert [(s.id, s.tool) for s in new.steps] == [("s2", F), ("s3", S)]
    assert seed_params(new, 1) == {"facility_id": REF0}
    assert new.steps[1].depends_on == ["s2"]
    assert [s.parallel for s in new.steps] == [False, False]
    assert Validator(registry).errors(new) == []


def test_replan_removing_a_middle_step_hands_its_input_on(planner: EmbeddedPlanner, registry: ToolRegistry) -> None:
    new = planner.replan(planner.plan(CHAIN, today=T), "remove the shipments step", today=T)
    assert seed_steps(new) == [step(F, {"location": "Berlin"}), step(C, {"facility_id": REF0}, (0,))]
    assert Validator(registry).errors(new) == []


def test_replan_filters_dates_and_limits(planner: EmbeddedPlanner) -> None:
    plan = planner.plan(CHAIN, today=T)
    risky = planner.replan(plan, "only high risk", today=T)
    assert risky.steps[1].params["risk_level"] == "high"  # the first step of the chain that takes it
    assert "risk_level" not in risky.steps[2].params
    limited = planner.replan(plan, "limit 10", today=T)
    assert limited.steps[2].params["limit"] == 10 and "limit" not in limited.steps[1].params
    dated = planner.replan(planner.plan("Analyse today's contaminants in Hannover", today=T),
                           "last month instead", today=T)
    assert dated.steps[1].params["date_from"] == "2025-09-01"
    assert dated.steps[1].params["date_to"] == "2025-09-30"
    assert dated.steps[0].params == {"location": "Hannover"}
    targeted = planner.replan(plan, "only high risk contaminants", today=T)
    assert targeted.steps[2].params["risk_level"] == "high"
    assert "risk_level" not in targeted.steps[1].params


def test_replan_adds_a_step(planner: EmbeddedPlanner, registry: ToolRegistry) -> None:
    plan = planner.plan("Get facilities in Berlin", today=T)
    added = planner.replan(plan, "add inspections from last week", today=T)
    assert seed_steps(added) == [step(F, {"location": "Berlin"}, parallel=True),
                                 step(I, dates("2025-10-05", "2025-10-12"), parallel=True)]
    linked = planner.replan(plan, "add their inspections", today=T)
    assert seed_steps(linked) == [step(F, {"location": "Berlin"}), step(I, {"facility_id": REF0}, (0,))]
    assert linked.steps[0].id == "s1" and linked.steps[1].id == "s2"
    assert Validator(registry).errors(linked) == []


def test_replan_adds_a_narrowing_step_for_a_city(planner: EmbeddedPlanner, registry: ToolRegistry) -> None:
    plan = planner.plan("Get inspections from last week", today=T)
    new = planner.replan(plan, "only in Munich", today=T)
    assert seed_steps(new) == [step(F, {"location": "Munich"}),
                               step(I, {"facility_id": REF0, **dates("2025-10-05", "2025-10-12")}, (0,))]
    assert new.steps[1].id == "s1"  # the inspections step keeps its id
    assert Validator(registry).errors(new) == []


def test_replan_removes_filters(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("pending shipments carried by GreenLine going to Leipzig, first 20", today=T)
    assert "limit" not in planner.replan(plan, "no limit", today=T).steps[0].params
    assert "carrier" not in planner.replan(plan, "remove the carrier filter", today=T).steps[0].params
    dated = planner.plan("Get shipments from last week", today=T)
    assert planner.replan(dated, "remove the date filter", today=T).steps[0].params == {}


def test_replan_leaves_locked_steps_alone(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get rejected shipments and inspections from last week", today=T)
    plan = set_locked(plan, plan.steps[0].id, True)
    locked_before = plan.steps[0].model_dump()
    new = planner.replan(plan, "last month instead", today=T)
    assert new.steps[0].model_dump() == locked_before
    assert new.steps[1].params == dates("2025-09-01", "2025-09-30")
    with pytest.raises(PlannerError, match="locked"):
        planner.replan(plan, "drop the shipments step", today=T)
    with pytest.raises(PlannerError, match="locked"):
        planner.replan(plan, "only delivered", today=T)


def test_replan_reads_feedback_like_goals(planner: EmbeddedPlanner, registry: ToolRegistry) -> None:
    plan = planner.plan(CHAIN, today=T)
    to_leipzig = planner.replan(plan, "only shipments to Leipzig", today=T)
    assert to_leipzig.steps[0].params == {"location": "Berlin"}
    assert seed_params(to_leipzig, 1) == {"facility_id": REF0, "destination": "Leipzig"}
    landfills = planner.replan(plan, "only shipments going to Munich landfills", today=T)
    assert landfills.steps[0].params == {"location": "Munich", "type": "landfill"}
    assert "destination" not in landfills.steps[1].params
    assert planner.replan(plan, "top-5", today=T).steps[2].params["limit"] == 5
    for new in (to_leipzig, landfills):
        assert Validator(registry).errors(new) == []


def test_replan_that_understands_nothing_says_so(planner: EmbeddedPlanner) -> None:
    plan = planner.plan(CHAIN, today=T)
    before = plan.model_dump()
    with pytest.raises(PlannerError, match="unchanged"):
        planner.replan(plan, "make it nicer", today=T)
    assert plan.model_dump() == before


# -- follow-up goals -----------------------------------------------------------------------

def test_follow_up_goals_change_the_previous_plan(planner: EmbeddedPlanner) -> None:
    previous_goal = "Analyse today's contaminants in Hannover"
    previous = planner.plan(previous_goal, today=T)
    context = PlanContext(previous_goal, previous)
    munich = planner.plan("Show me the same for Munich", today=T, context=context)
    assert munich.goal == "Show me the same for Munich"
    assert munich.steps[0].params == {"location": "Munich"}
    assert munich.steps[1].params == previous.steps[1].params
    week = planner.plan("same but last week", today=T, context=context)
    assert week.steps[0].params == {"location": "Hannover"}
    assert seed_params(week, 1) == {"facility_id": REF0, **dates("2025-10-05", "2025-10-12")}
    hamburg = planner.plan("and for Hamburg?", today=T, context=context)
    assert hamburg.steps[0].params == {"location": "Hamburg"}


def test_a_follow_up_with_their_uses_the_previous_plans_rows(planner: EmbeddedPlanner) -> None:
    previous = planner.plan("Get facilities in Berlin", today=T)
    plan = planner.plan("and their inspections?", today=T, context=PlanContext("Get facilities in Berlin", previous))
    assert seed_steps(plan) == [step(F, {"location": "Berlin"}), step(I, {"facility_id": REF0}, (0,))]


def test_a_shared_narrowing_step_is_listed_once_and_says_what_it_narrows(planner: EmbeddedPlanner,
                                                                      registry: ToolRegistry) -> None:
    plan = planner.plan("Get shipments, contaminants and inspections at landfills in Munich", today=T)
    assert [s.tool for s in plan.steps] == [F, S, C, I]
    assert plan.steps[0].note == ("Narrows steps 1 (shipments_list), 2 (contaminants_list) and "
                                  "3 (inspections_list) to these facilities.")
    assert Validator(registry).errors(plan) == []
    # A listed step with exactly the shared filters is the narrowing step itself.
    assert seed_steps(planner.plan("Get shipments and facilities in Munich", today=T)) == [
        step(F, {"location": "Munich"}), step(S, {"facility_id": REF0}, (0,))]


def test_a_new_goal_with_context_is_planned_afresh(planner: EmbeddedPlanner) -> None:
    previous = planner.plan("Get facilities in Berlin", today=T)
    plan = planner.plan("Get inspections from today", today=T,
                        context=PlanContext("Get facilities in Berlin", previous))
    assert seed_steps(plan) == [step(I, dates("2025-10-12", "2025-10-12"))]


# -- a registry of other tools: the vocabulary comes from the registry ----------------------

def test_planner_reads_entities_filters_and_links_from_any_registry() -> None:
    registry = ToolRegistry()

    @registry.register
    def customers_list(city: str | None = None, vip: bool | None = None, limit: int = 100) -> dict:
        """List customers.

        Args:
            city: City the customer lives in, e.g. Berlin.
            vip: True for VIP customers only.
            limit: Maximum number of customers.
        """
        return {"data": [], "count": 0}

    @registry.register
    def orders_list(status: Literal["open", "shipped", "cancelled"] | None = None,
                    customer_id: str | list[str] | None = None, date_from: dt.date | None = None,
                    date_to: dt.date | None = None, limit: int = 100) -> dict:
        """List orders.

        Args:
            status: Order status.
            customer_id: A customer id or a list of them.
            date_from: Earliest order date.
            date_to: Latest order date.
            limit: Maximum number of orders.
        """
        return {"data": [], "count": 0}

    planner = EmbeddedPlanner(registry)
    plan = planner.plan("shipped orders of vip customers in Berlin since Oct 1", today=T)
    assert seed_steps(plan) == [
        step("customers_list", {"city": "Berlin", "vip": True}),
        step("orders_list", {"customer_id": REF0, "status": "shipped", **dates("2025-10-01", "2025-10-12")}, (0,))]
    with pytest.raises(PlannerError, match="customers_list"):
        planner.plan("shipments from last week", today=T)


# -- a goal typed while a plan is open: fresh unless it reads as a follow-up ----------------

PREVIOUS_GOALS = ["Analyse today's contaminants in Hannover", "Get shipments, facilities, and inspections",
                  "Get facilities in Berlin, then their shipments, then check for contaminants"]


@pytest.mark.parametrize("previous_goal", PREVIOUS_GOALS)
def test_a_goal_that_reads_as_no_follow_up_is_planned_as_if_no_plan_were_open(
        planner: EmbeddedPlanner, previous_goal: str) -> None:
    context = PlanContext(previous_goal, planner.plan(previous_goal, today=T))
    for goal, _expected in [*UNSEEN_GOALS, *EXTRA_GOALS,
                            ("What's the weather in Berlin?", None), ("Get facilities in Munich", None)]:
        fresh = planner.plan(goal, today=T)
        assert planner.plan(goal, today=T, context=context).model_dump(exclude={"metadata"}) == \
            fresh.model_dump(exclude={"metadata"}), goal


HANNOVER = "Analyse today's contaminants in Hannover"
HANNOVER_STEPS = [step(F, {"location": "Hannover"}), step(C, {"facility_id": REF0, **dates("2025-10-12", "2025-10-12")},
                                                          (0,))]


@pytest.mark.parametrize("goal, expected", [
    ("Show me the same for Munich", [step(F, {"location": "Munich"}), HANNOVER_STEPS[1]]),
    ("the same for Munich", [step(F, {"location": "Munich"}), HANNOVER_STEPS[1]]),
    ("and for Hamburg?", [step(F, {"location": "Hamburg"}), HANNOVER_STEPS[1]]),
    ("What about Leipzig?", [step(F, {"location": "Leipzig"}), HANNOVER_STEPS[1]]),
    ("same but only high risk", [HANNOVER_STEPS[0], step(C, {"facility_id": REF0, **dates("2025-10-12", "2025-10-12"),
                                                             "risk_level": "high"}, (0,))]),
    ("their inspections", [*HANNOVER_STEPS, step(I, {"facility_id": REF0}, (0,))]),
    ("Get the inspections of those facilities", [*HANNOVER_STEPS, step(I, {"facility_id": REF0}, (0,))]),
])
def test_a_follow_up_changes_the_previous_plan(planner: EmbeddedPlanner, goal: str,
                                               expected: list[dict[str, Any]]) -> None:
    previous = planner.plan(HANNOVER, today=T)
    plan = planner.plan(goal, today=T, context=PlanContext(HANNOVER, previous))
    assert seed_steps(plan) == expected
    assert plan.goal == goal
    assert [s.id for s in plan.steps[:2]] == [s.id for s in previous.steps]


def test_a_follow_up_that_cannot_apply_says_it_was_read_as_one_not_as_a_re_plan(planner: EmbeddedPlanner) -> None:
    context = PlanContext(HANNOVER, planner.plan(HANNOVER, today=T))
    with pytest.raises(PlannerError) as error:
        planner.plan("the same for Atlantis", today=T, context=context)
    message = str(error.value)
    assert message.startswith(f"'the same for Atlantis' reads as a follow-up to the previous goal {HANNOVER!r}")
    assert "Atlantis" in message.split("reads as")[1] and "unchanged" not in message

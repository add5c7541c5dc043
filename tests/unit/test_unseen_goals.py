"""The embedded planner on goals written by the rules of demo-domain.md, not seen before.

Every expected plan here was derived by hand from the contract's tables (T = 2025-10-12, a
Sunday: this week starts 2025-10-06, last month is September), not from the planner's
output. The goals cover each date phrase with each way of writing a day, each filter
phrase, chaining through facility attributes and through shipments, "then", parallel
entities, qualifiers shared by a list of parallel entities, all cities and carriers, and
assorted word orders, cases and punctuation.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from core import Settings, ToolRegistry, Validator
from core.planners import EmbeddedPlanner
from tools import build_registry

from planner_cases import C, F, I, REF0, REF1, S, T, seed_steps, step



@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("unseen"), today=T), groups=["waste"])


@pytest.fixture(scope="module")
def planner(registry: ToolRegistry) -> EmbeddedPlanner:
    return EmbeddedPlanner(registry)


def on(day: str) -> dict[str, str]:
    return {"date_from": day, "date_to": day}


def span(start: str, end: str) -> dict[str, str]:
    return {"date_from": start, "date_to": end}


TODAY, YESTERDAY = on("2025-10-12"), on("2025-10-11")
LAST_WEEK, THIS_WEEK = span("2025-10-05", "2025-10-12"), span("2025-10-06", "2025-10-12")
THIS_MONTH, LAST_MONTH = span("2025-10-01", "2025-10-12"), span("2025-09-01", "2025-09-30")

DATE_GOALS = [
    ("Get contaminants from today", [step(C, TODAY)]),
    ("Show me the inspections from yesterday.", [step(I, YESTERDAY)]),
    ("Failed inspections last week", [step(I, {"result": "failed", **LAST_WEEK})]),
    ("List delivered shipments this week", [step(S, {"status": "delivered", **THIS_WEEK})]),
    ("Contaminants found this month in Munich", [
        step(F, {"location": "Munich"}), step(C, {"facility_id": REF0, **THIS_MONTH}, (0,))]),
    ("Shipments from the last 5 days going to Dresden", [
        step(S, {"destination": "Dresden", **span("2025-10-07", "2025-10-12")})]),
    ("inspections in the last 3 days", [step(I, span("2025-10-09", "2025-10-12"))]),
    ("Shipments from last 10 days", [step(S, span("2025-10-02", "2025-10-12"))]),
    ("Get high-risk contaminants from the past 3 weeks", [
        step(C, {"risk_level": "high", **span("2025-09-21", "2025-10-12")})]),
    ("Inspections over the past 2 weeks", [step(I, span("2025-09-28", "2025-10-12"))]),
    ("Rejected shipments last month", [step(S, {"status": "rejected", **LAST_MONTH})]),
    ("Get shipments on October 3rd", [step(S, on("2025-10-03"))]),
    ("Inspections on Oct 7", [step(I, on("2025-10-07"))]),
    ("contaminants on 2 October", [step(C, on("2025-10-02"))]),
    ("Shipments carried by EcoHaul on 2025-09-30", [step(S, {"carrier": "EcoHaul", **on("2025-09-30")})]),
    ("Contaminants since October 5th", [step(C, span("2025-10-05", "2025-10-12"))]),
    ("Inspections since Sep 15", [step(I, span("2025-09-15", "2025-10-12"))]),
    ("Pending shipments since 1 October", [step(S, {"status": "pending", **THIS_MONTH})]),
    ("Failed inspections since 2025-09-01", [step(I, {"result": "failed", **span("2025-09-01", "2025-10-12")})]),
    ("Shipments from Oct 2 to Oct 9", [step(S, span("2025-10-02", "2025-10-09"))]),
    ("Contaminants from 1 September to 15 September", [step(C, span("2025-09-01", "2025-09-15"))]),
    ("Inspections from September 20th to October 4th", [step(I, span("2025-09-20", "2025-10-04"))]),
    ("Get shipments from 2025-09-01 to 2025-09-15 going to Cologne", [
        step(S, {"destination": "Cologne", **span("2025-09-01", "2025-09-15")})]),
    ("Contaminants between October 1st and October 5th", [step(C, span("2025-10-01", "2025-10-05"))]),
    ("Shipments between Sep 10 and Sep 20 with carrier CityCart", [
        step(S, {"carrier": "CityCart", **span("2025-09-10", "2025-09-20")})]),
    ("inspections between 3 October and 10 October", [step(I, span("2025-10-03", "2025-10-10"))]),
    ("Get rejected shipments between 2025-10-01 and 2025-10-07", [
        step(S, {"status": "rejected", **span("2025-10-01", "2025-10-07")})]),
    ("Contaminants between Sep 28 and 2 October", [step(C, span("2025-09-28", "2025-10-02"))]),
    ("Inspections on 1 October 2024", [step(I, on("2024-10-01"))]),
    ("Contaminated shipments since yesterday", [
        step(S, {"has_contaminants": True, **span("2025-10-11", "2025-10-12")})]),
]

CHAINED_DATE_GOALS = [
    ("Show today's failed inspections at landfills", [
        step(F, {"type": "landfill"}), step(I, {"facility_id": REF0, "result": "failed", **TODAY}, (0,))]),
    ("Yesterday's contaminants in Leipzig", [
        step(F, {"location": "Leipzig"}), step(C, {"facility_id": REF0, **YESTERDAY}, (0,))]),
    ("This week's shipments from Hamburg facilities", [
        step(F, {"location": "Hamburg"}), step(S, {"facility_id": REF0, **THIS_WEEK}, (0,))]),
    ("Last month's inspections at incinerators in Cologne", [
        step(F, {"type": "incineration", "location": "Cologne"}),
        step(I, {"facility_id": REF0, **LAST_MONTH}, (0,))]),
    ("Contaminants at recycling plants in Dresden since Oct 1", [
        step(F, {"type": "recycling", "location": "Dresden"}),
        step(C, {"facility_id": REF0, **THIS_MONTH}, (0,))]),
    ("Get contaminated shipments from last week and their contaminants", [
        step(S, {"has_contaminants": True, **LAST_WEEK}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("Get delivered shipments and their contaminants from yesterday", [
        step(S, {"status": "delivered"}), step(C, {"shipment_ids": REF0, **YESTERDAY}, (0,))]),
]

FILTER_GOALS = [
    ("Shipments in transit", [step(S, {"status": "in_transit"})]),
    ("In-transit shipments going to Hamburg", [step(S, {"status": "in_transit", "destination": "Hamburg"})]),
    ("pending shipments destined for Berlin", [step(S, {"status": "pending", "destination": "Berlin"})]),
    ("Show shipments that were delivered, carried by GreenLine", [
        step(S, {"status": "delivered", "carrier": "GreenLine"})]),
    ("Low-risk contaminants", [step(C, {"risk_level": "low"})]),
    ("low risk shipments going to Leipzig", [step(S, {"risk_level": "low", "destination": "Leipzig"})]),
    ("Medium-risk shipments carried by RiverFreight", [
        step(S, {"risk_level": "medium", "carrier": "RiverFreight"})]),
    ("medium risk contaminants from the last 7 days", [step(C, {"risk_level": "medium", **LAST_WEEK})]),
    ("High risk shipments with carrier EcoHaul", [step(S, {"risk_level": "high", "carrier": "EcoHaul"})]),
    ("Passed inspections in Hannover", [
        step(F, {"location": "Hannover"}), step(I, {"facility_id": REF0, "result": "passed"}, (0,))]),
    ("List all landfills", [step(F, {"type": "landfill"})]),
    ("Show the landfill in Leipzig", [step(F, {"type": "landfill", "location": "Leipzig"})]),
    ("Recycling plants in Hannover near capacity", [
        step(F, {"type": "recycling", "location": "Hannover", "near_capacity": True})]),
    ("recycling facilities in Munich", [step(F, {"type": "recycling", "location": "Munich"})]),
    ("Get composting sites", [step(F, {"type": "composting"})]),
    ("Which composting site in Dresden is near capacity?", [
        step(F, {"type": "composting", "location": "Dresden", "near_capacity": True})]),
    ("List sorting centers in Hamburg", [step(F, {"type": "sorting", "location": "Hamburg"})]),
    ("Show incinerators in Berlin", [step(F, {"type": "incineration", "location": "Berlin"})]),
    ("Is the incinerator in Cologne near capacity?", [
        step(F, {"type": "incineration", "location": "Cologne", "near_capacity": True})]),
    ("Facilities near capacity in Leipzig", [step(F, {"near_capacity": True, "location": "Leipzig"})]),
    ("Shipments destined for Dresden", [step(S, {"destination": "Dresden"})]),
    ("shipments carried by citycart going to cologne", [
        step(S, {"carrier": "CityCart", "destination": "Cologne"})]),
    ("Plastic contaminants from last week", [step(C, {"category": "plastic", **LAST_WEEK})]),
    ("Get metal contaminants in Hamburg", [
        step(F, {"location": "Hamburg"}), step(C, {"facility_id": REF0, "category": "metal"}, (0,))]),
    ("glass contaminants found at sorting centers", [
        step(F, {"type": "sorting"}), step(C, {"facility_id": REF0, "category": "glass"}, (0,))]),
    ("Hazardous contaminants since Oct 1", [step(C, {"category": "hazardous", **THIS_MONTH})]),
    ("organic contaminants with high risk", [step(C, {"category": "organic", "risk_level": "high"})]),
    ("Electronic contaminants, top 5", [step(C, {"category": "electronic", "limit": 5})]),
    ("Get shipments going to Munich, limit 20", [step(S, {"destination": "Munich", "limit": 20})]),
    ("First 10 failed inspections", [step(I, {"result": "failed", "limit": 10})]),
    ("Top 3 landfills near capacity", [step(F, {"type": "landfill", "near_capacity": True, "limit": 3})]),
]

CHAIN_GOALS = [
    ("Shipments in Berlin facilities", [step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0}, (0,))]),
    ("Failed inspections at landfills in Munich", [
        step(F, {"type": "landfill", "location": "Munich"}),
        step(I, {"facility_id": REF0, "result": "failed"}, (0,))]),
    ("Contaminated shipments at incinerators near capacity", [
        step(F, {"type": "incineration", "near_capacity": True}),
        step(S, {"facility_id": REF0, "has_contaminants": True}, (0,))]),
    ("Inspections at facilities near capacity", [
        step(F, {"near_capacity": True}), step(I, {"facility_id": REF0}, (0,))]),
    ("High-risk contaminants at composting sites in Hannover", [
        step(F, {"type": "composting", "location": "Hannover"}),
        step(C, {"facility_id": REF0, "risk_level": "high"}, (0,))]),
    ("Shipments going to Munich from Berlin facilities", [
        step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0, "destination": "Munich"}, (0,))]),
    ("Get rejected shipments and their contaminants", [
        step(S, {"status": "rejected"}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("High-risk shipments going to Hamburg and their contaminant details", [
        step(S, {"risk_level": "high", "destination": "Hamburg"}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("Contaminant details of shipments carried by RiverFreight", [
        step(S, {"carrier": "RiverFreight"}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("hazardous contaminants of shipments destined for Berlin", [
        step(S, {"destination": "Berlin"}), step(C, {"shipment_ids": REF0, "category": "hazardous"}, (0,))]),
    ("Get landfills in Hamburg, then their inspections", [
        step(F, {"type": "landfill", "location": "Hamburg"}), step(I, {"facility_id": REF0}, (0,))]),
    ("List incinerators, then their shipments from last week, then check for contaminants", [
        step(F, {"type": "incineration"}), step(S, {"facility_id": REF0, **LAST_WEEK}, (0,)),
        step(C, {"shipment_ids": REF1}, (1,))]),
    ("Get sorting centers in Leipzig then their failed inspections since October 1st", [
        step(F, {"type": "sorting", "location": "Leipzig"}),
        step(I, {"facility_id": REF0, "result": "failed", **THIS_MONTH}, (0,))]),
    ("Get shipments going to Cologne, then their contaminants", [
        step(S, {"destination": "Cologne"}), step(C, {"shipment_ids": REF0}, (0,))]),
]

PARALLEL_GOALS = [
    ("Get facilities, shipments and contaminants", [
        step(F, parallel=True), step(S, parallel=True), step(C, parallel=True)]),
    ("Contaminated shipments, high-risk contaminants and failed inspections", [
        step(S, {"has_contaminants": True}, parallel=True), step(C, {"risk_level": "high"}, parallel=True),
        step(I, {"result": "failed"}, parallel=True)]),
    ("Show incinerators and landfills", [
        step(F, {"type": "incineration"}, parallel=True), step(F, {"type": "landfill"}, parallel=True)]),
    ("Get landfills in Dresden and their inspections, and shipments carried by CityCart", [
        step(F, {"type": "landfill", "location": "Dresden"}, parallel=True),
        step(I, {"facility_id": REF0}, (0,)),
        step(S, {"carrier": "CityCart"}, parallel=True)]),
    ("List facilities in Munich and pending shipments going to Munich", [
        step(F, {"location": "Munich"}, parallel=True),
        step(S, {"status": "pending", "destination": "Munich"}, parallel=True)]),
]

STYLE_GOALS = [
    ("GET SHIPMENTS GOING TO LEIPZIG FROM LAST WEEK", [step(S, {"destination": "Leipzig", **LAST_WEEK})]),
    ("from last week, shipments carried by GreenLine", [step(S, {"carrier": "GreenLine", **LAST_WEEK})]),
    ("In Cologne, which facilities are near capacity?", [
        step(F, {"location": "Cologne", "near_capacity": True})]),
    ("near capacity recycling plants?", [step(F, {"type": "recycling", "near_capacity": True})]),
    ("Going to Hannover: rejected shipments.", [step(S, {"status": "rejected", "destination": "Hannover"})]),
    ("inspections that failed at LANDFILLS in berlin!", [
        step(F, {"type": "landfill", "location": "Berlin"}),
        step(I, {"facility_id": REF0, "result": "failed"}, (0,))]),
    ("get facilities in hamburg...", [step(F, {"location": "Hamburg"})]),
    ("Any HIGH-RISK contaminants today?!", [step(C, {"risk_level": "high", **TODAY})]),
]

# Word orders that put the qualifying phrase first or last, links said with "with" or "&",
# sentence breaks, back references ("those facilities") and punctuation next to a value.
PHRASING_GOALS = [
    ("At landfills in Munich, list failed inspections", [
        step(F, {"type": "landfill", "location": "Munich"}),
        step(I, {"facility_id": REF0, "result": "failed"}, (0,))]),
    ("For Hamburg incinerators, show inspections from last week", [
        step(F, {"type": "incineration", "location": "Hamburg"}),
        step(I, {"facility_id": REF0, **LAST_WEEK}, (0,))]),
    ("From Berlin facilities, get contaminated shipments", [
        step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0, "has_contaminants": True}, (0,))]),
    ("For shipments going to Leipzig, get the contaminant details", [
        step(S, {"destination": "Leipzig"}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("List failed inspections, at composting sites in Dresden", [
        step(F, {"type": "composting", "location": "Dresden"}),
        step(I, {"facility_id": REF0, "result": "failed"}, (0,))]),
    ("Get landfills in Cologne with their inspections", [
        step(F, {"type": "landfill", "location": "Cologne"}), step(I, {"facility_id": REF0}, (0,))]),
    ("Get contaminated shipments with contaminant details", [
        step(S, {"has_contaminants": True}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("Get rejected shipments including their contaminants", [
        step(S, {"status": "rejected"}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("Get facilities in Munich & their inspections", [
        step(F, {"location": "Munich"}), step(I, {"facility_id": REF0}, (0,))]),
    ("Get shipments from last week.Then their contaminants", [
        step(S, LAST_WEEK), step(C, {"shipment_ids": REF0}, (0,))]),
    ("Get landfills in Munich. Then get their failed inspections from last month.", [
        step(F, {"type": "landfill", "location": "Munich"}),
        step(I, {"facility_id": REF0, "result": "failed", **LAST_MONTH}, (0,))]),
    ("Show me rejected shipments from this week! Then check them for contaminants.", [
        step(S, {"status": "rejected", **THIS_WEEK}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("contaminants found yesterday in shipments going to Berlin", [
        step(S, {"destination": "Berlin"}), step(C, {"shipment_ids": REF0, **YESTERDAY}, (0,))]),
    ("Yesterday's contaminants of shipments carried by GreenLine", [
        step(S, {"carrier": "GreenLine"}), step(C, {"shipment_ids": REF0, **YESTERDAY}, (0,))]),
    ("contaminants of shipments going to Dresden from the last 3 days", [
        step(S, {"destination": "Dresden", **span("2025-10-09", "2025-10-12")}),
        step(C, {"shipment_ids": REF0}, (0,))]),
    ("Get Munich landfills and the inspections of those facilities", [
        step(F, {"type": "landfill", "location": "Munich"}), step(I, {"facility_id": REF0}, (0,))]),
    ("Get contaminated shipments and the contaminants in those shipments", [
        step(S, {"has_contaminants": True}), step(C, {"shipment_ids": REF0}, (0,))]),
    ("Shipments going to Munich landfills", [
        step(F, {"type": "landfill", "location": "Munich"}), step(S, {"facility_id": REF0}, (0,))]),
    ("Shipments going to: Hannover", [step(S, {"destination": "Hannover"})]),
    ('Shipments carried by "RiverFreight"', [step(S, {"carrier": "RiverFreight"})]),
    ("Top-5 incinerators", [step(F, {"type": "incineration", "limit": 5})]),
    ("Can you list the top three landfills?", [step(F, {"type": "landfill", "limit": 3})]),
    ("Show high-risk shipments: limit 15", [step(S, {"risk_level": "high", "limit": 15})]),
    ("shipments that contain contaminants, first 10", [step(S, {"has_contaminants": True, "limit": 10})]),
    ("Shipments without contaminants going to Leipzig", [
        step(S, {"has_contaminants": False, "destination": "Leipzig"})]),
    ("Failed inspections at Cologne's recycling plants in the past 3 weeks", [
        step(F, {"type": "recycling", "location": "Cologne"}),
        step(I, {"facility_id": REF0, "result": "failed", **span("2025-09-21", "2025-10-12")}, (0,))]),
]

LAST_3_DAYS = span("2025-10-09", "2025-10-12")

# A qualifier that ends a list of independent entities ("X, Y and Z from last week", "... at
# landfills in Munich") goes to each listed entity whose tool takes it, directly or through one
# facilities step they share; facilities have no dates, so they do without them. A qualifier
# right after one entity with more of the list after it stays with that entity.
SHARED_QUALIFIER_GOALS = [
    ("Get shipments and inspections from last week", [
        step(S, LAST_WEEK, parallel=True), step(I, LAST_WEEK, parallel=True)]),
    ("Get shipments, contaminants, and inspections from yesterday", [
        step(S, YESTERDAY, parallel=True), step(C, YESTERDAY, parallel=True), step(I, YESTERDAY, parallel=True)]),
    ("Show contaminants, shipments and inspections since Oct 1", [
        step(C, THIS_MONTH, parallel=True), step(S, THIS_MONTH, parallel=True),
        step(I, THIS_MONTH, parallel=True)]),
    ("Get shipments, facilities, and inspections from last month", [
        step(S, LAST_MONTH, parallel=True), step(F, parallel=True), step(I, LAST_MONTH, parallel=True)]),
    ("Failed inspections and rejected shipments this week", [
        step(I, {"result": "failed", **THIS_WEEK}, parallel=True),
        step(S, {"status": "rejected", **THIS_WEEK}, parallel=True)]),
    ("Contaminated shipments and failed inspections from the last 3 days", [
        step(S, {"has_contaminants": True, **LAST_3_DAYS}, parallel=True),
        step(I, {"result": "failed", **LAST_3_DAYS}, parallel=True)]),
    ("List facilities and inspections today", [step(F, parallel=True), step(I, TODAY, parallel=True)]),
    ("Get shipments and inspections at landfills in Munich", [
        step(F, {"type": "landfill", "location": "Munich"}),
        step(S, {"facility_id": REF0}, (0,)), step(I, {"facility_id": REF0}, (0,))]),
    ("Get shipments, contaminants, and inspections at landfills in Munich", [
        step(F, {"type": "landfill", "location": "Munich"}),
        step(S, {"facility_id": REF0}, (0,)), step(C, {"facility_id": REF0}, (0,)),
        step(I, {"facility_id": REF0}, (0,))]),
    ("Show contaminants and inspections in Hannover", [
        step(F, {"location": "Hannover"}),
        step(C, {"facility_id": REF0}, (0,)), step(I, {"facility_id": REF0}, (0,))]),
    ("Shipments, contaminants and inspections from Berlin facilities", [
        step(F, {"location": "Berlin"}),
        step(S, {"facility_id": REF0}, (0,)), step(C, {"facility_id": REF0}, (0,)),
        step(I, {"facility_id": REF0}, (0,))]),
    ("Get shipments and inspections at incinerators near capacity", [
        step(F, {"type": "incineration", "near_capacity": True}),
        step(S, {"facility_id": REF0}, (0,)), step(I, {"facility_id": REF0}, (0,))]),
    ("Get shipments and inspections at composting sites from last week", [
        step(F, {"type": "composting"}),
        step(S, {"facility_id": REF0, **LAST_WEEK}, (0,)),
        step(I, {"facility_id": REF0, **LAST_WEEK}, (0,))]),
    ("Show landfills and incinerators in Dresden", [
        step(F, {"type": "landfill", "location": "Dresden"}, parallel=True),
        step(F, {"type": "incineration", "location": "Dresden"}, parallel=True)]),
    ("Shipments and contaminants with high risk", [
        step(S, {"risk_level": "high"}, parallel=True), step(C, {"risk_level": "high"}, parallel=True)]),
    ("Get shipments and inspections, limit 10", [
        step(S, {"limit": 10}, parallel=True), step(I, {"limit": 10}, parallel=True)]),
    # Said before the list, in a sentence of its own, it qualifies the whole list too.
    ("Last week, get shipments and inspections", [
        step(S, LAST_WEEK, parallel=True), step(I, LAST_WEEK, parallel=True)]),
    ("At landfills in Munich, list shipments and failed inspections", [
        step(F, {"type": "landfill", "location": "Munich"}),
        step(S, {"facility_id": REF0}, (0,)),
        step(I, {"facility_id": REF0, "result": "failed"}, (0,))]),
    # Right after one entity, with more of the list after it: that entity only.
    ("Get shipments from last week and failed inspections", [
        step(S, LAST_WEEK, parallel=True), step(I, {"result": "failed"}, parallel=True)]),
    ("Get shipments from last week, contaminants and inspections", [
        step(S, LAST_WEEK, parallel=True), step(C, parallel=True), step(I, parallel=True)]),
    ("Shipments going to Dresden and inspections from last week", [
        step(S, {"destination": "Dresden"}, parallel=True), step(I, LAST_WEEK, parallel=True)]),
    # A list ended by a linked part is no list of independent entities.
    ("Get rejected shipments and their contaminants from yesterday", [
        step(S, {"status": "rejected"}), step(C, {"shipment_ids": REF0, **YESTERDAY}, (0,))]),
]

GOALS = (DATE_GOALS + CHAINED_DATE_GOALS + FILTER_GOALS + CHAIN_GOALS + PARALLEL_GOALS + STYLE_GOALS
         + PHRASING_GOALS + SHARED_QUALIFIER_GOALS)


@pytest.mark.parametrize("goal, expected", GOALS, ids=[g for g, _ in GOALS])
def test_unseen_goal_gives_the_plan_the_rules_describe(planner: EmbeddedPlanner, registry: ToolRegistry,
                                                       goal: str, expected: list[dict[str, Any]]) -> None:
    plan = planner.plan(goal, today=T)
    assert seed_steps(plan) == expected
    assert Validator(registry).errors(plan) == []


# -- subtle rules, one behaviour each ------------------------------------------------------

@pytest.mark.parametrize("goal, shipments, contaminants", [
    # A date qualifies the entity it follows ...
    ("contaminants found yesterday in shipments going to Berlin", {"destination": "Berlin"}, YESTERDAY),
    ("contaminants in shipments going to Berlin from yesterday", {"destination": "Berlin", **YESTERDAY}, {}),
    # ... unless it is possessive or opens the goal: then it qualifies the entity after it.
    ("yesterday's contaminants in shipments going to Berlin", {"destination": "Berlin"}, YESTERDAY),
    ("Yesterday, contaminants in shipments going to Berlin", {"destination": "Berlin"}, YESTERDAY),
])
def test_a_date_goes_to_the_entity_it_qualifies(planner: EmbeddedPlanner, goal: str,
                                                 shipments: dict[str, Any], contaminants: dict[str, Any]) -> None:
    assert seed_steps(planner.plan(goal, today=T)) == [
        step(S, shipments), step(C, {"shipment_ids": REF0, **contaminants}, (0,))]


def test_a_missing_year_is_the_year_of_today(planner: EmbeddedPlanner) -> None:
    today = dt.date(2024, 3, 5)
    plan = planner.plan("Inspections between 1 February and Feb 10th at landfills", today=today)
    assert seed_steps(plan) == [step(F, {"type": "landfill"}),
                                step(I, {"facility_id": REF0, **span("2024-02-01", "2024-02-10")}, (0,))]
    assert seed_steps(planner.plan("this week's shipments", today=dt.date(2025, 10, 13))) == [
        step(S, on("2025-10-13"))]  # a Monday: this week is today alone


def test_then_links_to_the_facilities_a_goal_narrowed_by(planner: EmbeddedPlanner, registry: ToolRegistry) -> None:
    plan = planner.plan("List failed inspections at sorting centers, then the shipments of those sites", today=T)
    steps = seed_steps(plan)
    assert [s["tool"] for s in steps] == [F, I, S]
    assert steps[0]["params"] == {"type": "sorting"}
    assert steps[2]["params"] == {"facility_id": REF0}  # the sorting centers, not every shipment
    assert 0 in steps[2]["depends_on"]
    assert Validator(registry).errors(plan) == []


def test_back_reference_without_an_earlier_step_lists_the_entity(planner: EmbeddedPlanner) -> None:
    assert seed_steps(planner.plan("Get the inspections of those landfills", today=T)) == [
        step(F, {"type": "landfill"}), step(I, {"facility_id": REF0}, (0,))]


def test_an_entity_after_the_primary_in_one_phrase_uses_its_ids(planner: EmbeddedPlanner) -> None:
    assert seed_steps(planner.plan("Which incinerators in Hannover failed inspections this week?", today=T)) == [
        step(F, {"type": "incineration", "location": "Hannover"}),
        step(I, {"facility_id": REF0, "result": "failed", **THIS_WEEK}, (0,))]


@pytest.mark.parametrize("goal, destination", [
    ("Show me shipments currently in transit to Hamburg", {"status": "in_transit", "destination": "Hamburg"}),
    ("How many shipments went to Leipzig last week?", {"destination": "Leipzig", **LAST_WEEK}),
])
def test_to_a_city_in_a_shipments_clause_is_the_destination(planner: EmbeddedPlanner, goal: str,
                                                           destination: dict[str, Any]) -> None:
    # Not in the contract's phrase list ("going to X"), but the same reading: the city the
    # shipment is going to. Elsewhere "to" keeps its other uses (next test).
    assert seed_steps(planner.plan(goal, today=T)) == [step(S, destination)]


def test_to_a_city_outside_a_shipments_clause_is_not_a_destination(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get facilities in Berlin, then their shipments", today=T)
    new = planner.replan(plan, "switch to Hamburg", today=T)
    assert new.steps[0].params == {"location": "Hamburg"}
    assert "destination" not in new.steps[1].params


@pytest.mark.parametrize("goal, limit", [
    ("Get 5 high-risk shipments", 5), ("Show the 10 most recent shipments", 10),
    ("first five shipments", 5), ("limit: 20 shipments", 20), ("Get 2025 shipments", None),
])
def test_counts_before_an_entity_are_its_limit(planner: EmbeddedPlanner, goal: str, limit: int | None) -> None:
    params = planner.plan(goal, today=T).steps[0].params
    assert params.get("limit", 100) == (limit or 100)  # a year is no count


@pytest.mark.parametrize("said", ["Eco Haul", "eco-haul", "ECOHAUL", "ecohaul"])
def test_a_carrier_name_may_be_written_apart_or_in_any_case(planner: EmbeddedPlanner, said: str) -> None:
    assert planner.plan(f"shipments carried by {said}", today=T).steps[0].params == {"carrier": "EcoHaul"}
    assert planner.plan(f"{said} shipments", today=T).steps[0].params == {"carrier": "EcoHaul"}


def test_an_abbreviated_month_does_not_end_a_sentence(planner: EmbeddedPlanner) -> None:
    assert seed_steps(planner.plan("Shipments since Oct. 1. Then their contaminants.", today=T)) == [
        step(S, THIS_MONTH), step(C, {"shipment_ids": REF0}, (0,))]

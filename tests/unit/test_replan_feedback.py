"""Re-plan feedback a user would type, on the plans of the acceptance goals.

Every expected plan was derived by hand from the rules of demo-domain.md and the re-plan
rules of ``core/planners/embedded/_replan.py`` (T = 2025-10-12, a Sunday), not from the
planner's output: a filter replaces the same filter where the plan has one, and is
otherwise added to the first step of each chain that takes it (a limit: the last one), or
through a narrowing step; locked steps never change; feedback that cannot be honoured, or
that says something the planner does not understand, leaves the plan as it was and says
what was understood and what was not.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from core import Plan, PlannerError, Settings, ToolRegistry, Validator, set_locked
from core.planners import EmbeddedPlanner
from tools import build_registry

from planner_cases import C, F, I, REF0, REF1, S, T, seed_steps, step
from test_unseen_goals import GOALS as UNSEEN_GOALS


# The acceptance goals (docs/acceptance/seed_examples.json) the feedback is given on.
LAST_WEEK_SHIPMENTS = "Get shipments from last week"
REJECTED = "Show me contaminated shipments that were rejected"
BERLIN = "Get facilities in Berlin"
WITH_DETAILS = "Get contaminated shipments and their contaminant details"
HANNOVER = "Analyse today's contaminants in Hannover"
PARALLEL = "Get shipments, facilities, and inspections"
CHAIN = "Get facilities in Berlin, then their shipments, then check for contaminants"
FROM_BERLIN = "Get contaminated shipments from Berlin facilities"
TO_HANNOVER = "Get shipments from October 1st to October 10th going to Hannover"
CARRIERS = "Which carriers have the highest contamination rates?"
NEAR_CAPACITY = "Which facilities are near capacity?"
DETECTED_TODAY = "Contaminants detected today"
THIS_WEEKS = "Show me this week's inspections"
THIRTY_DAYS = "Get contaminants from the last 30 days"
ISO = "Get shipments from 2025-10-01 to 2025-10-12"


def span(start: str, end: str) -> dict[str, str]:
    return {"date_from": start, "date_to": end}


TODAY, YESTERDAY = span("2025-10-12", "2025-10-12"), span("2025-10-11", "2025-10-11")
LAST_WEEK, THIS_WEEK = span("2025-10-05", "2025-10-12"), span("2025-10-06", "2025-10-12")
THIS_MONTH, LAST_MONTH = span("2025-10-01", "2025-10-12"), span("2025-09-01", "2025-09-30")
OCT_1_TO_10 = span("2025-10-01", "2025-10-10")


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("replan"), today=T), groups=["waste"])


@pytest.fixture(scope="module")
def planner(registry: ToolRegistry) -> EmbeddedPlanner:
    return EmbeddedPlanner(registry)


def planned(planner: EmbeddedPlanner, goal: str, locked: tuple[int, ...] = (), *before: str) -> Plan:
    """The goal's plan, after the feedback in ``before``, with the steps at ``locked`` locked."""
    plan = planner.plan(goal, today=T)
    for said in before:
        plan = planner.replan(plan, said, today=T)
    for n in locked:
        plan = set_locked(plan, plan.steps[n].id, True)
    return plan


# (goal, feedback, expected steps); feedback given before the last one is in a tuple.
CITY = [
    (BERLIN, "use Munich instead", [step(F, {"location": "Munich"})]),
    (BERLIN, "Munich, not Berlin", [step(F, {"location": "Munich"})]),
    (BERLIN, "what about Hamburg?", [step(F, {"location": "Hamburg"})]),
    (BERLIN, "use Munich, not Berlin", [step(F, {"location": "Munich"})]),
    (BERLIN, "Berlin -> Munich", [step(F, {"location": "Munich"})]),
    (BERLIN, "swap Berlin for Munich", [step(F, {"location": "Munich"})]),
    (BERLIN, "could you please switch the city to Cologne?", [step(F, {"location": "Cologne"})]),
    (CHAIN, "switch to Hamburg", [
        step(F, {"location": "Hamburg"}), step(S, {"facility_id": REF0}, (0,)),
        step(C, {"shipment_ids": REF1}, (1,))]),
    (FROM_BERLIN, "change Berlin to Leipzig", [
        step(F, {"location": "Leipzig"}), step(S, {"facility_id": REF0, "has_contaminants": True}, (0,))]),
    (HANNOVER, "in Dresden instead", [
        step(F, {"location": "Dresden"}), step(C, {"facility_id": REF0, **TODAY}, (0,))]),
    (HANNOVER, "replace Hannover with Cologne", [
        step(F, {"location": "Cologne"}), step(C, {"facility_id": REF0, **TODAY}, (0,))]),
    (TO_HANNOVER, "going to Munich instead", [step(S, {**OCT_1_TO_10, "destination": "Munich"})]),
    (TO_HANNOVER, "Leipzig rather than Hannover", [step(S, {**OCT_1_TO_10, "destination": "Leipzig"})]),
    (LAST_WEEK_SHIPMENTS, "only shipments going to Dresden", [step(S, {**LAST_WEEK, "destination": "Dresden"})]),
    # Inspections have no city: the facilities in Munich narrow them, and the step keeps its id.
    (THIS_WEEKS, "only in Munich", [
        step(F, {"location": "Munich"}), step(I, {"facility_id": REF0, **THIS_WEEK}, (0,))]),
    (THIS_WEEKS, "only at landfills in Munich", [
        step(F, {"type": "landfill", "location": "Munich"}), step(I, {"facility_id": REF0, **THIS_WEEK}, (0,))]),
    (THIS_WEEKS, "from Berlin facilities", [
        step(F, {"location": "Berlin"}), step(I, {"facility_id": REF0, **THIS_WEEK}, (0,))]),
]

DATES = [
    (LAST_WEEK_SHIPMENTS, "last month instead", [step(S, LAST_MONTH)]),
    (LAST_WEEK_SHIPMENTS, "make it the last 14 days", [step(S, span("2025-09-28", "2025-10-12"))]),
    (LAST_WEEK_SHIPMENTS, "only yesterday", [step(S, YESTERDAY)]),
    (THIS_WEEKS, "since Oct 1", [step(I, THIS_MONTH)]),
    (HANNOVER, "yesterday instead of today", [
        step(F, {"location": "Hannover"}), step(C, {"facility_id": REF0, **YESTERDAY}, (0,))]),
    (DETECTED_TODAY, "this week instead", [step(C, THIS_WEEK)]),
    (THIRTY_DAYS, "change it to the last 7 days", [step(C, LAST_WEEK)]),
    (ISO, "from Oct 5 to Oct 8 instead", [step(S, span("2025-10-05", "2025-10-08"))]),
    # Added where the plan has no dates: each independent step that takes them (facilities do not) ...
    (PARALLEL, "all from last week", [
        step(S, LAST_WEEK, parallel=True), step(F, parallel=True), step(I, LAST_WEEK, parallel=True)]),
    # ... and in a chain, its first step that takes them.
    (CHAIN, "from last week", [
        step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0, **LAST_WEEK}, (0,)),
        step(C, {"shipment_ids": REF1}, (1,))]),
]

FILTERS = [
    (WITH_DETAILS, "only high risk", [
        step(S, {"has_contaminants": True, "risk_level": "high"}), step(C, {"shipment_ids": REF0}, (0,))]),
    (LAST_WEEK_SHIPMENTS, "just the rejected ones", [step(S, {**LAST_WEEK, "status": "rejected"})]),
    (REJECTED, "just the delivered ones", [step(S, {"has_contaminants": True, "status": "delivered"})]),
    (REJECTED, "drop the contaminated filter", [step(S, {"status": "rejected"})]),
    (REJECTED, "not rejected", [step(S, {"has_contaminants": True})]),
    (REJECTED, "any status", [step(S, {"has_contaminants": True})]),
    (REJECTED, "exclude rejected, only delivered", [step(S, {"has_contaminants": True, "status": "delivered"})]),
    (REJECTED, "uncontaminated instead", [step(S, {"has_contaminants": False, "status": "rejected"})]),
    (LAST_WEEK_SHIPMENTS, "only GreenLine", [step(S, {**LAST_WEEK, "carrier": "GreenLine"})]),
    ((LAST_WEEK_SHIPMENTS, "only GreenLine"), "without the carrier filter", [step(S, LAST_WEEK)]),
    ("Get shipments from yesterday", "carried by EcoHaul", [step(S, {**YESTERDAY, "carrier": "EcoHaul"})]),
    (PARALLEL, "only failed inspections", [
        step(S, parallel=True), step(F, parallel=True), step(I, {"result": "failed"}, parallel=True)]),
    (NEAR_CAPACITY, "only landfills", [step(F, {"near_capacity": True, "type": "landfill"})]),
    (DETECTED_TODAY, "only plastic", [step(C, {**TODAY, "category": "plastic"})]),
    (HANNOVER, "just hazardous ones", [
        step(F, {"location": "Hannover"}), step(C, {"facility_id": REF0, **TODAY, "category": "hazardous"}, (0,))]),
    (TO_HANNOVER, "only the ones in transit", [
        step(S, {**OCT_1_TO_10, "destination": "Hannover", "status": "in_transit"})]),
    (TO_HANNOVER, "drop the destination filter", [step(S, OCT_1_TO_10)]),
    (LAST_WEEK_SHIPMENTS, "remove the date filter", [step(S)]),
    (BERLIN, "no city filter", [step(F)]),
    (CARRIERS, "only high risk ones going to Berlin", [
        step(S, {"has_contaminants": True, "risk_level": "high", "destination": "Berlin"})]),
]

LIMITS = [
    (LAST_WEEK_SHIPMENTS, "limit 10", [step(S, {**LAST_WEEK, "limit": 10})]),
    (THIS_WEEKS, "top 5", [step(I, {**THIS_WEEK, "limit": 5})]),
    (LAST_WEEK_SHIPMENTS, "only 10", [step(S, {**LAST_WEEK, "limit": 10})]),
    (LAST_WEEK_SHIPMENTS, "no more than 5", [step(S, {**LAST_WEEK, "limit": 5})]),
    ((LAST_WEEK_SHIPMENTS, "limit 10"), "unlimited", [step(S, LAST_WEEK)]),
    ((LAST_WEEK_SHIPMENTS, "limit 10"), "20 instead", [step(S, {**LAST_WEEK, "limit": 20})]),
    ((LAST_WEEK_SHIPMENTS, "limit 10"), "no limit", [step(S, LAST_WEEK)]),
    ((THIS_WEEKS, "top 5"), "all of them", [step(I, THIS_WEEK)]),
    ((LAST_WEEK_SHIPMENTS, "limit 10"), "show all", [step(S, LAST_WEEK)]),
    ((LAST_WEEK_SHIPMENTS, "limit 10"), "make it 25", [step(S, {**LAST_WEEK, "limit": 25})]),
    # A limit counts what the plan ends with: the last step of each chain.
    (CHAIN, "first 20", [
        step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0}, (0,)),
        step(C, {"shipment_ids": REF1, "limit": 20}, (1,))]),
    (PARALLEL, "limit 5", [
        step(S, {"limit": 5}, parallel=True), step(F, {"limit": 5}, parallel=True),
        step(I, {"limit": 5}, parallel=True)]),
]

STEPS = [
    (PARALLEL, "drop the inspections step", [step(S, parallel=True), step(F, parallel=True)]),
    (PARALLEL, "remove facilities", [step(S, parallel=True), step(I, parallel=True)]),
    (CHAIN, "remove step 2", [step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0}, (0,))]),
    # Numbers count in the plan as it was, however many steps go at once.
    (CHAIN, "drop steps 1 and 2", [step(F, {"location": "Berlin"})]),
    (CHAIN, "delete step 1 and step 2", [step(F, {"location": "Berlin"})]),
    (PARALLEL, "remove steps 0 and 2", [step(F)]),
    (PARALLEL, "remove the first step", [step(F, parallel=True), step(I, parallel=True)]),
    (CHAIN, "drop the last step", [step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0}, (0,))]),
    # The removed middle step's input passes on: the contaminants of the Berlin facilities.
    (CHAIN, "remove the second step", [step(F, {"location": "Berlin"}), step(C, {"facility_id": REF0}, (0,))]),
    (HANNOVER, "remove step 0", [step(C, TODAY)]),
    (WITH_DETAILS, "skip the contaminant details", [step(S, {"has_contaminants": True})]),
    (BERLIN, "also get inspections", [step(F, {"location": "Berlin"}, parallel=True), step(I, parallel=True)]),
    (CARRIERS, "add their contaminants", [step(S, {"has_contaminants": True}), step(C, {"shipment_ids": REF0}, (0,))]),
    (LAST_WEEK_SHIPMENTS, "also their contaminants", [step(S, LAST_WEEK), step(C, {"shipment_ids": REF0}, (0,))]),
    (FROM_BERLIN, "add inspections at those facilities", [
        step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0, "has_contaminants": True}, (0,)),
        step(I, {"facility_id": REF0}, (0,))]),
]

# Another list instead of one: the step keeps its id and the parameters the new tool takes.
LISTS = [
    (LAST_WEEK_SHIPMENTS, "switch to contaminants", [step(C, LAST_WEEK)]),
    (LAST_WEEK_SHIPMENTS, "inspections instead of shipments", [step(I, LAST_WEEK)]),
    (LAST_WEEK_SHIPMENTS, "high-risk contaminants from yesterday instead of shipments", [
        step(C, {**YESTERDAY, "risk_level": "high"})]),
    (REJECTED, "inspections instead", [step(I)]),
    (FROM_BERLIN, "inspections instead of shipments", [
        step(F, {"location": "Berlin"}), step(I, {"facility_id": REF0}, (0,))]),
    (PARALLEL, "contaminants rather than inspections", [
        step(S, parallel=True), step(F, parallel=True), step(C, parallel=True)]),
    # Only these lists: the others go, unless a kept one needs them.
    (PARALLEL, "just the shipments", [step(S)]),
    (PARALLEL, "keep only shipments and inspections", [step(S, parallel=True), step(I, parallel=True)]),
]

CASES = CITY + DATES + FILTERS + LIMITS + STEPS + LISTS


def _id(case: tuple[Any, str, Any]) -> str:
    goal = case[0] if isinstance(case[0], str) else " / ".join(case[0])
    return f"{goal} -> {case[1]}"


@pytest.mark.parametrize("goal, feedback, expected", CASES, ids=[_id(c) for c in CASES])
def test_feedback_changes_the_plan_as_the_rules_say(planner: EmbeddedPlanner, registry: ToolRegistry,
                                                    goal: str | tuple[str, ...], feedback: str,
                                                    expected: list[dict[str, Any]]) -> None:
    goal, *before = (goal,) if isinstance(goal, str) else goal
    plan = planned(planner, goal, (), *before)
    original = plan.model_dump()
    new = planner.replan(plan, feedback, today=T)
    assert seed_steps(new) == expected
    assert Validator(registry).errors(new) == []
    assert plan.model_dump() == original  # the plan given is not changed in place
    assert new.goal == plan.goal
    # A step that stays (if with another tool: "switch to contaminants") keeps its id and its
    # place, so results and locks follow it; a new step gets an id no step had.
    old_ids = [s.id for s in plan.steps]
    assert [s.id for s in new.steps if s.id in old_ids] == [i for i in old_ids if i in {s.id for s in new.steps}]
    if len(new.steps) == len(plan.steps) and (goal, feedback, expected) in LISTS:
        assert [s.id for s in new.steps] == old_ids


def test_there_are_more_than_thirty_phrasings() -> None:
    assert len(CASES) >= 30


# -- locked steps --------------------------------------------------------------------------

@pytest.mark.parametrize("goal, locked, feedback, expected", [
    (CHAIN, (1,), "limit 10", [
        step(F, {"location": "Berlin"}), step(S, {"facility_id": REF0}, (0,)),
        step(C, {"shipment_ids": REF1, "limit": 10}, (1,))]),
    (HANNOVER, (0,), "last month instead", [
        step(F, {"location": "Hannover"}), step(C, {"facility_id": REF0, **LAST_MONTH}, (0,))]),
    # The shipments step is locked, so only the inspections get the dates.
    (PARALLEL, (0,), "from last week", [
        step(S, parallel=True), step(F, parallel=True), step(I, LAST_WEEK, parallel=True)]),
    (PARALLEL, (0,), "drop the inspections step", [step(S, parallel=True), step(F, parallel=True)]),
], ids=["limit past a locked step", "dates beside a locked city", "dates beside a locked step",
        "drop beside a locked step"])
def test_locked_steps_stay_as_they_are(planner: EmbeddedPlanner, registry: ToolRegistry, goal: str,
                                       locked: tuple[int, ...], feedback: str,
                                       expected: list[dict[str, Any]]) -> None:
    plan = planned(planner, goal, locked)
    before = {plan.steps[n].id: plan.steps[n].model_dump() for n in locked}
    new = planner.replan(plan, feedback, today=T)
    assert seed_steps(new) == expected
    assert {s.id: s.model_dump() for s in new.steps if s.id in before} == before
    assert Validator(registry).errors(new) == []


@pytest.mark.parametrize("goal, locked, feedback, said", [
    (CHAIN, (0,), "use Munich instead", [r"step 0 \(facilities_list\)", "locked", "Munich"]),
    (HANNOVER, (1,), "last month instead", [r"step 1 \(contaminants_list\)", "locked"]),
    (PARALLEL, (2,), "drop the inspections step", ["inspections_list", "locked"]),
    (CHAIN, (1,), "remove step 0", [r"step 1 \(shipments_list\)", "locked"]),
    (CHAIN, (2,), "remove step 2", [r"step 2 \(contaminants_list\)", "locked"]),
    (REJECTED, (0,), "just the delivered ones", [r"step 0 \(shipments_list\)", "locked", "delivered"]),
    # The only city is in a locked step: narrowing the shipments instead is not what was asked.
    ("Get facilities in Berlin and shipments", (0,), "use Munich instead",
     [r"step 0 \(facilities_list\) has location=Berlin", "locked"]),
    # Part of it could be done, but not all: nothing is done, and the message says both.
    (CHAIN, (0,), "use Munich instead and limit 10", ["locked", "Munich", "limit 10"]),
], ids=["city of a locked step", "dates of a locked step", "drop a locked step",
        "drop what a locked step uses", "drop a locked step by number", "status of a locked step",
        "the only city is locked",
        "half of it needs a locked step"])
def test_feedback_that_needs_a_locked_step_changes_nothing(planner: EmbeddedPlanner, goal: str,
                                                           locked: tuple[int, ...], feedback: str,
                                                           said: list[str]) -> None:
    plan = planned(planner, goal, locked)
    before = plan.model_dump()
    with pytest.raises(PlannerError) as error:
        planner.replan(plan, feedback, today=T)
    for pattern in said:
        assert re.search(pattern, str(error.value)), (pattern, str(error.value))
    assert "unchanged" in str(error.value)
    assert plan.model_dump() == before


# -- feedback that is not understood -------------------------------------------------------

@pytest.mark.parametrize("goal, feedback, understood, not_understood", [
    (CHAIN, "make it nicer", None, "nicer"),
    (BERLIN, "use Munich instead and sort by capacity", "Munich", "sort by capacity"),
    (LAST_WEEK_SHIPMENTS, "only the heavy ones", None, "heavy"),
    (BERLIN, "use Atlantis instead", None, "Atlantis"),
    (LAST_WEEK_SHIPMENTS, "last month instead, grouped by carrier", "2025-09-01", "grouped by carrier"),
])
def test_feedback_not_understood_says_what_was_and_was_not(planner: EmbeddedPlanner, goal: str, feedback: str,
                                                           understood: str | None, not_understood: str) -> None:
    plan = planned(planner, goal)
    before = plan.model_dump()
    with pytest.raises(PlannerError) as error:
        planner.replan(plan, feedback, today=T)
    message = str(error.value)
    assert f"did not understand {not_understood!r}" in message, message
    if understood is not None:
        assert understood in message.split("did not understand")[0], message
    assert "unchanged" in message
    assert plan.model_dump() == before


@pytest.mark.parametrize("goal, feedback, said", [
    (LAST_WEEK_SHIPMENTS, "use Munich instead of Hamburg", "Hamburg"),
    (LAST_WEEK_SHIPMENTS, "remove step 5", "no step 5"),
    (BERLIN, "no limit", "limit"),
    (BERLIN, "Munich, Hamburg", "say which"),
    (LAST_WEEK_SHIPMENTS, "only EcoHaul and GreenLine", "say which"),
    (CHAIN, "inspections instead of shipments", r"step 2 \(contaminants_list\) uses its rows"),
    (FROM_BERLIN, "only the shipments", "none can go"),
    (DETECTED_TODAY, "add their contaminants", "needs an earlier step listing"),
    (WITH_DETAILS, "add their contaminants", r"step 1 \(contaminants_list\) lists those already"),
    (BERLIN, "   ", "empty"),
    # A plan needs a step: feedback that removes the last one is refused, not an empty plan.
    (BERLIN, "drop the facilities step", r"would leave the plan with no step"),
    (BERLIN, "remove step 0", r"would leave the plan with no step"),
    (PARALLEL, "remove steps 0, 1 and 2", r"would leave the plan with no step"),
])
def test_feedback_that_cannot_apply_says_why(planner: EmbeddedPlanner, goal: str, feedback: str, said: str) -> None:
    plan = planned(planner, goal)
    before = plan.model_dump()
    with pytest.raises(PlannerError, match=said) as error:
        planner.replan(plan, feedback, today=T)
    assert "unchanged" in str(error.value)
    assert plan.model_dump() == before


# -- a step added back, and the parallel marks ---------------------------------------------

MUNICH_LANDFILLS = "Get shipments and inspections at landfills in Munich"


@pytest.mark.parametrize("goal, before, expected", [
    # Added back, the inspections are narrowed to the landfills again, as the goal has them.
    (MUNICH_LANDFILLS, ("drop the inspections step",), [
        step(F, {"type": "landfill", "location": "Munich"}), step(S, {"facility_id": REF0}, (0,)),
        step(I, {"facility_id": REF0}, (0,))]),
    # ... to the landfills as they are now, after other feedback changed them.
    (MUNICH_LANDFILLS, ("drop the inspections step", "use Hamburg instead"), [
        step(F, {"type": "landfill", "location": "Hamburg"}), step(S, {"facility_id": REF0}, (0,)),
        step(I, {"facility_id": REF0}, (0,))]),
    ("Get landfills in Dresden and their inspections, and shipments carried by CityCart",
     ("drop the inspections step",), [
        step(F, {"type": "landfill", "location": "Dresden"}, parallel=True), step(S, {"carrier": "CityCart"}, parallel=True),
        step(I, {"facility_id": REF0}, (0,))]),
    ("Get shipments and failed inspections from last week", ("remove step 1",), [
        step(S, LAST_WEEK, parallel=True), step(I, {"result": "failed", **LAST_WEEK}, parallel=True)]),
])
def test_a_step_added_back_is_linked_and_filtered_as_the_goal_plans_it(
        planner: EmbeddedPlanner, registry: ToolRegistry, goal: str, before: tuple[str, ...],
        expected: list[dict[str, Any]]) -> None:
    plan = planned(planner, goal, (), *before)
    new = planner.replan(plan, "add inspections", today=T)
    assert seed_steps(new) == expected
    assert Validator(registry).errors(new) == []
    assert new.steps[-1].id not in {s.id for s in plan.steps}


def test_what_the_feedback_says_wins_over_what_the_goal_said(planner: EmbeddedPlanner) -> None:
    plan = planned(planner, MUNICH_LANDFILLS, (), "drop the inspections step")
    new = planner.replan(plan, "add passed inspections from yesterday", today=T)
    assert seed_steps(new)[2] == step(I, {"facility_id": REF0, **YESTERDAY, "result": "passed"}, (0,))


def test_a_step_the_goal_never_named_is_added_as_said(planner: EmbeddedPlanner) -> None:
    plan = planner.plan("Get shipments at landfills in Munich", today=T)
    new = planner.replan(plan, "add inspections", today=T)
    assert seed_steps(new) == [
        step(F, {"type": "landfill", "location": "Munich"}, parallel=True), step(S, {"facility_id": REF0}, (0,)),
        step(I, parallel=True)]


FEEDBACK = ["drop the inspections step", "add inspections", "add their contaminants", "also shipments",
            "remove step 0", "remove the first step", "only high risk", "limit 5", "last month instead",
            "only in Munich", "contaminants instead of shipments", "just the shipments", "add facilities",
            "and their inspections"]


def test_no_step_that_needs_another_is_ever_parallel(planner: EmbeddedPlanner) -> None:
    def check(plan: Plan) -> None:
        for s in plan.steps:
            if plan.dependencies_of(s.id):
                assert not s.parallel, (plan.goal, s)
        free = [s for s in plan.steps if not plan.dependencies_of(s.id)]
        assert all(s.parallel == (len(free) > 1) for s in free), plan.goal

    checked = 0
    for goal, _ in UNSEEN_GOALS[::3]:  # a third of them: every kind of goal, in a few seconds
        plan = planner.plan(goal, today=T)
        check(plan)
        for feedback in FEEDBACK:
            try:
                new = planner.replan(plan, feedback, today=T)
            except PlannerError:
                continue
            check(new)
            checked += 1
            try:
                check(planner.replan(new, "add inspections", today=T))
            except PlannerError:
                pass
    assert checked > len(UNSEEN_GOALS[::3]) * len(FEEDBACK) // 2  # the feedback applied to most plans

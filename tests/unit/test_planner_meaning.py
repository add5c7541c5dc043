"""The embedded planner means what was asked (issue 18, items 1-3).

1. A negation never inverts: one the tools' schemas can express sets the opposite boolean or
   the complementary enum value(s); one they cannot is left out of the plan with a notice that
   says the filter was NOT applied.
2. Month names, weekday anchors, day ranges within a month and misspelled entity words are read.
3. A goal that asks to change the world is refused, naming the verb, when no tool can do it.

Goals here are written for these tests (other entities, orders and phrasings than the issue's).
T = 2025-10-12, a Sunday.
"""

from __future__ import annotations

import time
from typing import Any, Literal

import pytest

from core import PlannerError, Settings, ToolRegistry
from core.formats import plan_to_seed
from core.planners import EmbeddedPlanner, planner_notices
from tools import build_registry

from planner_cases import C, F, I, REF0, S, T


@pytest.fixture(scope="module")
def planner(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedPlanner:
    return EmbeddedPlanner(build_registry(Settings(data_dir=tmp_path_factory.mktemp("meaning"), today=T),
                                          groups=["waste"]))


def steps(planner: EmbeddedPlanner, goal: str) -> list[tuple[str, dict[str, Any]]]:
    """The plan's tools and params, references in the seed form the cases are written in."""
    plan = planner.plan(goal, today=T)
    return [(s["tool"], {k: v for k, v in s["params"].items() if not (k == "limit" and v == 100)})
            for s in plan_to_seed(plan)["steps"]]


def not_applied(planner: EmbeddedPlanner, goal: str) -> list[str]:
    return getattr(planner.plan(goal, today=T).metadata, "not_applied", None) or []


def span(start: str, end: str) -> dict[str, str]:
    return {"date_from": start, "date_to": end}


# -- 1. negations ---------------------------------------------------------------------------

@pytest.mark.parametrize("goal, expected", [
    # booleans: the opposite value
    ("Which shipments heading to Dresden aren't contaminated?",
     [(S, {"destination": "Dresden", "has_contaminants": False})]),
    ("not contaminated shipments carried by GreenLine",
     [(S, {"carrier": "GreenLine", "has_contaminants": False})]),
    ("facilities in Hamburg that are not near capacity", [(F, {"location": "Hamburg", "near_capacity": False})]),
    ("Composting sites which aren't at capacity", [(F, {"type": "composting", "near_capacity": False})]),
    ("facilities that aren\u2019t near capacity", [(F, {"near_capacity": False})]),  # a typographic apostrophe
    ("shipments from yesterday that were never contaminated",
     [(S, {**span("2025-10-11", "2025-10-11"), "has_contaminants": False})]),
    ("shipments that are not clean", [(S, {"has_contaminants": True})]),  # two negations
    ("shipments that are not without contaminants", [(S, {"has_contaminants": True})]),
    # an enum whose complement is one value: that value
    ("inspections that didn't pass yesterday", [(I, {**span("2025-10-11", "2025-10-11"), "result": "failed"})]),
    ("Inspections from this week that did not fail", [(I, {**span("2025-10-06", "2025-10-12"), "result": "passed"})]),
    ("inspections at landfills except failed ones",
     [(F, {"type": "landfill"}), (I, {"facility_id": REF0, "result": "passed"})]),
])
def test_a_negation_the_schema_can_express_sets_the_opposite(planner: EmbeddedPlanner, goal: str,
                                                              expected: list) -> None:
    assert steps(planner, goal) == expected
    assert not_applied(planner, goal) == []


@pytest.mark.parametrize("goal, expected, said", [
    ("shipments whose status is not rejected", [(S, {})], "not rejected"),
    ("Shipments going to Munich other than delivered ones", [(S, {"destination": "Munich"})], "other than delivered"),
    ("contaminants except high-risk ones from last week", [(C, span("2025-10-05", "2025-10-12"))],
     "except high-risk"),
    ("shipments not going to Berlin", [(S, {})], "not going to Berlin"),
    ("rejected shipments not carried by EcoHaul", [(S, {"status": "rejected"})], "not carried by EcoHaul"),
    ("facilities in Hamburg other than landfills", [(F, {"location": "Hamburg"})], "other than landfills"),
    ("contaminants that are not plastic", [(C, {})], "not plastic"),
])
def test_a_negation_the_schema_cannot_express_is_left_out_and_said(planner: EmbeddedPlanner, goal: str,
                                                                   expected: list, said: str) -> None:
    assert steps(planner, goal) == expected
    notices = not_applied(planner, goal)
    assert len(notices) == 1 and said in notices[0] and "NOT applied" in notices[0], notices


@pytest.mark.parametrize("goal, param", [
    ("shipments to Hamburg that are neither rejected nor delivered", "status"),
    ("shipments not in transit or pending", "status"),
    ("facilities that are not landfills or incinerators in Munich", "type"),
])
def test_a_negation_reaches_each_item_of_its_list(planner: EmbeddedPlanner, goal: str, param: str) -> None:
    """ "neither X nor Y", "not X or Y": no item of the list is planned as asked for."""
    assert all(param not in params for _tool, params in steps(planner, goal))
    assert len(not_applied(planner, goal)) == 2


@pytest.mark.parametrize("goal, never", [
    ("facilities with no failed inspections", ("result", "failed")),
    ("Landfills in Munich that did not fail inspections", ("result", "failed")),
    ("shipments without high-risk contaminants", ("risk_level", "high")),
])
def test_rows_that_must_not_exist_are_not_turned_into_rows_that_do(planner: EmbeddedPlanner, goal: str,
                                                                   never: tuple[str, str]) -> None:
    """ "X with no failed Y" asks for X that have none; listing the failed Y (or the passed
    ones) would be another question. The tools cannot ask it: the notice says so."""
    param, value = never
    assert all(params.get(param) != value for _tool, params in steps(planner, goal))
    assert any("NOT applied" in n for n in not_applied(planner, goal))


@pytest.mark.parametrize("goal, expected", [
    ("inspections with notes from last week", [(I, span("2025-10-05", "2025-10-12"))]),
    ("nothing but rejected shipments", [(S, {"status": "rejected"})]),
    ("rejected shipments carried by Notos", [(S, {"status": "rejected", "carrier": "Notos"})]),
    ("Shipments without contaminants going to Cologne",
     [(S, {"destination": "Cologne", "has_contaminants": False})]),
    ("shipments that were not inspected but contaminated", [(S, {"has_contaminants": True})]),
    ("no more than 5 failed inspections", [(I, {"result": "failed", "limit": 5})]),
])
def test_words_that_look_like_negations_do_not_negate(planner: EmbeddedPlanner, goal: str, expected: list) -> None:
    assert steps(planner, goal) == expected
    assert not_applied(planner, goal) == []


def test_not_only_is_no_negation_and_is_said(planner: EmbeddedPlanner) -> None:
    goal = "not only rejected shipments but also pending ones"
    assert steps(planner, goal) == [(S, {"status": "rejected"})]
    notices = not_applied(planner, goal)
    assert len(notices) == 1 and "not only" in notices[0]


def test_the_notice_reaches_planner_notices_and_survives_export(planner: EmbeddedPlanner) -> None:
    from core.formats import dump_plan, load_plan

    plan = planner.plan("shipments not going to Leipzig", today=T)
    kinds = planner_notices(plan)
    assert [k for k, _text in kinds] == ["warning"]
    assert "NOT applied" in kinds[0][1] and "going to Leipzig" in kinds[0][1]
    assert planner_notices(load_plan(dump_plan(plan, "native"), "native")) == kinds


# -- 2. dates and typos ---------------------------------------------------------------------

@pytest.mark.parametrize("goal, dates", [
    ("failed inspections in September", span("2025-09-01", "2025-09-30")),
    ("shipments during March 2025 going to Dresden", span("2025-03-01", "2025-03-31")),
    ("inspections in October 2026", span("2026-10-01", "2026-10-31")),
    ("Contaminants since Monday", span("2025-10-06", "2025-10-12")),
    ("shipments since Wednesday", span("2025-10-08", "2025-10-12")),
    ("inspections on Friday", span("2025-10-10", "2025-10-10")),
    ("shipments between 5 and 10 October", span("2025-10-05", "2025-10-10")),
    ("inspections from 3 to 7 Sep", span("2025-09-03", "2025-09-07")),
    ("contaminants between October 2 and 4", span("2025-10-02", "2025-10-04")),
    ("contaminants Sep 15", span("2025-09-15", "2025-09-15")),
    ("inspections on 2025-09-30", span("2025-09-30", "2025-09-30")),
    ("inspections since August", span("2025-08-01", "2025-10-12")),
    ("shipments from July to August", span("2025-07-01", "2025-08-31")),
    ("shipments last October", span("2024-10-01", "2024-10-31")),  # the latest October that has ended
    ("contaminants in 2024", span("2024-01-01", "2024-12-31")),
])
def test_date_phrases(planner: EmbeddedPlanner, goal: str, dates: dict) -> None:
    (tool, params), = [s for s in steps(planner, goal) if s[0] != F]
    assert {k: params[k] for k in ("date_from", "date_to")} == dates
    assert getattr(planner.plan(goal, today=T).metadata, "unread_words", None) is None


def test_may_as_a_verb_is_no_month(planner: EmbeddedPlanner) -> None:
    assert steps(planner, "shipments that may be contaminated") == [(S, {"has_contaminants": True})]


@pytest.mark.parametrize("goal, expected, read", [
    ("inspectons in Berlin", [(F, {"location": "Berlin"}), (I, {"facility_id": REF0})],
     ["read \u2018inspectons\u2019 as \u2018inspections\u2019"]),
    ("shipments with contaminents", [(S, {"has_contaminants": True})],
     ["read \u2018contaminents\u2019 as \u2018contaminants\u2019"]),
    ("facilites near capacity", [(F, {"near_capacity": True})], ["read \u2018facilites\u2019 as \u2018facilities\u2019"]),
    ("failed inspetcions from today", [(I, {**span("2025-10-12", "2025-10-12"), "result": "failed"})],
     ["read \u2018inspetcions\u2019 as \u2018inspections\u2019"]),
    ("rejected shipmnts", [(S, {"status": "rejected"})], ["read \u2018shipmnts\u2019 as \u2018shipments\u2019"]),
])
def test_a_misspelled_entity_is_read_as_the_known_one_and_said(planner: EmbeddedPlanner, goal: str,
                                                               expected: list, read: list[str]) -> None:
    plan = planner.plan(goal, today=T)
    assert steps(planner, goal) == expected
    assert getattr(plan.metadata, "read_as", None) == read
    assert ("info", read[0]) in planner_notices(plan)


@pytest.mark.parametrize("goal", [
    "inspections by inspectors from last week",  # a word of the tools' rows, not a typo
    "shipments to Hamburg, their contaminants and these facts",
    "facilities there",
    "shipments near Hamburg",  # "near" is a function word of the goal, not a misspelled noun
    "inspections of injections and insertions",  # two letters from "inspections", but words of their own
    "facilities with computer settings",  # near "composter" and "sortings", made up from kind values
    "shipments inspecting and incinerated",  # verb forms take one typo only
])
def test_words_that_are_no_typo_are_not_corrected(planner: EmbeddedPlanner, goal: str) -> None:
    assert getattr(planner.plan(goal, today=T).metadata, "read_as", None) is None


def test_a_short_word_is_only_read_with_one_typo(tmp_path) -> None:
    registry = ToolRegistry()

    @registry.register
    def pets_list(limit: int = 100) -> dict:
        """List pets.

        Args:
            limit: Maximum rows.
        """
        return {"data": [], "count": 0}

    planner = EmbeddedPlanner(registry)
    assert planner.plan("pefs", today=T).steps[0].tool == "pets_list"  # one typo, 4 letters
    with pytest.raises(PlannerError):
        planner.plan("pxfx", today=T)  # two typos in a short word: not read
    with pytest.raises(PlannerError):
        planner.plan("pes", today=T)  # under 4 letters: never


def test_typo_reading_of_a_long_goal_is_bounded(planner: EmbeddedPlanner) -> None:
    goal = ("shipmemts " + "qwertyuiopasdfgh zxcvbnmlkj " * 70)[:2000]
    started = time.perf_counter()
    planner.plan(goal, today=T)
    assert time.perf_counter() - started < 5  # a generous liveness bound, not a speed figure


# -- 3. goals that ask to change the world --------------------------------------------------

@pytest.mark.parametrize("goal, verb, entity", [
    ("Delete the rejected shipments from last week", "delete", "shipments"),
    ("Please cancel the pending shipments going to Hamburg", "cancel", "shipments"),
    ("Could you update the status of shipment 42 to delivered?", "update", "shipments"),
    ("Book an inspection at the Munich landfills", "book", "inspections"),
    ("List the failed inspections, then send them to the landfills", "send", "inspections"),
    ("I want to create a new facility in Dresden", "create", "facilities"),
    ("Mark contaminants from yesterday as hazardous", "mark", "contaminants"),
    ("Add a new facility in Munich", "add", "facilities"),
    ("show shipments and cancel the pending ones", "cancel", "shipments"),
    ("Remove rejected shipments", "remove", "shipments"),
])
def test_a_goal_that_changes_the_world_is_refused_naming_the_verb(planner: EmbeddedPlanner, goal: str,
                                                                  verb: str, entity: str) -> None:
    with pytest.raises(PlannerError) as refused:
        planner.plan(goal, today=T)
    message = str(refused.value)
    assert f"no tool that can {verb} {entity}" in message and "only list" in message, message


def test_a_change_to_something_no_entity_names_is_refused_quoting_it(planner: EmbeddedPlanner) -> None:
    with pytest.raises(PlannerError, match="no tool that can email the report to Anna;"):
        planner.plan("Get rejected shipments and their contaminants, then email the report to Anna", today=T)


@pytest.mark.parametrize("goal", [
    "shipment updates from last week",
    "Show changes in shipments carried by CityCart",
    "cancelled or rejected shipments",
    "List delivered shipments and their contaminants",
    "delete the inspections step",  # an edit of the plan, not of the world
    "Get shipments, add their contaminants",
])
def test_nouns_and_participles_of_those_verbs_are_no_request(planner: EmbeddedPlanner, goal: str) -> None:
    assert planner.plan(goal, today=T).steps


def test_a_registry_with_a_writing_tool_is_named_in_the_refusal() -> None:
    registry = ToolRegistry()

    @registry.register
    def orders_list(state: Literal["open", "shipped"] | None = None) -> dict:
        """List orders.

        Args:
            state: Order state.
        """
        return {"data": [], "count": 0}

    @registry.register
    def order_cancel(order_id: str) -> dict:
        """Cancel one order.

        Args:
            order_id: The order.
        """
        return {"data": [], "count": 0}

    planner = EmbeddedPlanner(registry)
    with pytest.raises(PlannerError, match="order_cancel"):
        planner.plan("cancel the open orders", today=T)
    with pytest.raises(PlannerError, match="no tool that can delete orders"):
        planner.plan("delete the open orders", today=T)


# -- schemas that can say "not": a list of values, or a param for excluded values -----------

def test_a_list_parameter_or_an_exclusion_parameter_takes_the_negation() -> None:
    registry = ToolRegistry()

    @registry.register
    def tickets_list(state: list[Literal["new", "open", "closed"]] | None = None,
                     priority: Literal["urgent", "normal", "low"] | None = None,
                     priority_not: Literal["urgent", "normal", "low"] | None = None) -> dict:
        """List tickets.

        Args:
            state: Ticket states to include.
            priority: Priority.
            priority_not: A priority to leave out.
        """
        return {"data": [], "count": 0}

    planner = EmbeddedPlanner(registry)
    assert planner.plan("tickets that are not closed", today=T).steps[0].params == {"state": ["new", "open"]}
    assert planner.plan("closed tickets", today=T).steps[0].params == {"state": ["closed"]}
    assert planner.plan("tickets except urgent ones", today=T).steps[0].params == {"priority_not": "urgent"}


@pytest.mark.parametrize("feedback", ["not to Hamburg", "and not to Hamburg?", "without to Hamburg"])
def test_re_plan_feedback_not_to_a_place_removes_it_rather_than_keeping_it(planner: EmbeddedPlanner,
                                                                           feedback: str) -> None:
    plan = planner.plan("rejected shipments going to Hamburg", today=T)
    assert [s.params for s in planner.replan(plan, feedback, today=T).steps] == [{"status": "rejected"}]


def test_the_lists_groups_writing_tools_are_named_and_a_list_of_rows_is_a_read(tmp_path) -> None:
    planner = EmbeddedPlanner(build_registry(Settings(data_dir=tmp_path, today=T), groups=["waste", "lists"]))
    with pytest.raises(PlannerError, match="The tool deleteList may do it"):
        planner.plan("Please remove the list called errands", today=T)
    with pytest.raises(PlannerError, match="The tool addItem may do it"):
        planner.plan("add an item to the errands list", today=T)
    assert steps(planner, "Create a list of failed inspections") == [(I, {"result": "failed"})]

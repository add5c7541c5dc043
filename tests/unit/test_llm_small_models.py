"""A planner small models can follow: per-tool params in the schema, date phrases resolved by
the studio, references offered from output schemas, and repairs that change the question.
Against the scripted server (``llm_server``), over a real socket."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Annotated

import jsonschema
import pytest
from pydantic import Field

from core import RepairLimitReached, Settings, ToolRegistry
from core.formats import plan_to_seed
from core.planners import LLMPlanner
from core.planners.llm._schema import plan_json_schema
from tools import build_registry

TODAY = dt.date(2025, 10, 12)
ACCEPTANCE = json.loads((Path(__file__).resolve().parents[2] / "docs" / "acceptance" / "seed_examples.json").read_text())
# How a small model told to copy the goal's words writes each seed goal's dates.
PHRASES = {
    "Get shipments from last week": ("last week", "last week"),
    "Analyse today's contaminants in Hannover": ("today", "today"),
    "Get shipments from October 1st to October 10th going to Hannover": ("October 1st", "October 10th"),
    "Contaminants detected today": ("today", "today"),
    "Show me this week's inspections": ("this week", "this week"),
    "Get shipments from yesterday": ("yesterday", "yesterday"),
    "Get inspections from this month": ("this month", "this month"),
    "Get contaminants from the last 30 days": ("the last 30 days", "the last 30 days"),
}


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, today=TODAY, planner="llm", model="small", temperature=0.4,
                    max_retries=2, timeout=5, first_timeout=5)


@pytest.fixture
def registry(settings):
    return build_registry(settings, groups=["waste"])


def with_phrases(case: dict) -> dict:
    plan = copy.deepcopy(case["plan"])
    start, end = PHRASES.get(case["goal"], (None, None))
    for step in plan["steps"]:
        if start and "date_from" in step["params"]:
            step["params"]["date_from"], step["params"]["date_to"] = start, end
    return plan


# -- the schema ------------------------------------------------------------------------------------
def test_the_schema_lists_each_tool_with_its_own_params(registry):
    schema = plan_json_schema(registry)
    branches = schema["properties"]["steps"]["items"]["anyOf"]
    assert [b["properties"]["tool"]["const"] for b in branches] == registry.names()
    for case in ACCEPTANCE["cases"]:  # every seed plan fits, with ISO dates or with phrases
        jsonschema.validate(case["plan"], schema)
        jsonschema.validate(with_phrases(case), schema)

    def refused(step: dict) -> bool:
        try:
            jsonschema.validate({"steps": [{"depends_on": [], "parallel": False, **step}]}, schema)
        except jsonschema.ValidationError:
            return True
        return False

    assert refused({"tool": "facility_list", "params": {}})                                # no such tool
    assert refused({"tool": "shipments_list", "params": {"locaton": "Berlin"}})            # no such param
    assert refused({"tool": "facilities_list", "params": {"status": "rejected"}})          # another tool's param
    assert refused({"tool": "shipments_list", "params": {"status": "lost"}})               # not in the enum
    assert refused({"tool": "shipments_list", "params": {"has_contaminants": "yes"}})      # wrong type
    assert refused({"tool": "shipments_list", "params": {"date_from": "${today - 7 days}"}})  # no date, no reference
    assert not refused({"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}})
    assert schema == plan_json_schema(registry)  # the same registry, the same schema


def test_a_narrowed_schema_offers_only_the_tools_named(registry):
    schema = plan_json_schema(registry, ["shipments_list"])
    assert [b["properties"]["tool"]["const"] for b in schema["properties"]["steps"]["items"]["anyOf"]] == [
        "shipments_list"]


# -- dates as the goal says them --------------------------------------------------------------------
@pytest.mark.parametrize("case", ACCEPTANCE["cases"], ids=[c["goal"] for c in ACCEPTANCE["cases"]])
def test_a_seed_goal_answered_with_date_phrases_plans_in_one_request(case, registry, settings, llm_server):
    llm_server.reply(json.dumps(with_phrases(case)))
    plan = LLMPlanner(registry, settings).plan(case["goal"], today=TODAY)
    assert plan_to_seed(plan)["steps"] == case["plan"]["steps"]
    assert len(llm_server.requests) == 1


# -- repairs change the question -----------------------------------------------------------------
def test_a_repair_is_short_cooler_and_offers_only_the_tools_the_reply_used(registry, settings, llm_server):
    looping = {"steps": [{"tool": "facility_list", "params": {"location": "Berlin"}, "depends_on": [],
                          "parallel": False, "note": "sites " * 3000},
                         {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"},
                          "depends_on": [0], "parallel": False}]}
    fixed = {"steps": [{"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [],
                        "parallel": False},
                       looping["steps"][1]]}
    llm_server.reply(json.dumps(looping))
    llm_server.reply(json.dumps(fixed))
    LLMPlanner(registry, settings).plan("Berlin facilities and their shipments", today=TODAY)

    first, second = llm_server.requests
    assert second["temperature"] < first["temperature"]
    tools = lambda r: [b["properties"]["tool"]["const"]  # noqa: E731
                       for b in r["response_format"]["json_schema"]["schema"]["properties"]["steps"]["items"]["anyOf"]]
    assert len(tools(first)) == len(registry.names())
    assert tools(second) == ["facilities_list", "shipments_list"]  # "facility_list" read as the tool it is closest to
    echoed, repair = second["messages"][-2:]
    assert echoed["role"] == "assistant" and len(echoed["content"]) < 2_000
    assert "unknown tool 'facility_list'" in repair["content"] and len(repair["content"]) < 1_000
    assert second["messages"][:2] == first["messages"]  # the system prompt (and a server's cache of it) kept


def test_a_model_repeating_itself_gets_different_requests_each_time(registry, settings, llm_server):
    wrong = json.dumps({"steps": [{"tool": "shipments_list", "params": {"status": "lost"}, "depends_on": [],
                                   "parallel": False}]})
    for _ in range(3):
        llm_server.reply(wrong)
    with pytest.raises(RepairLimitReached):
        LLMPlanner(registry, settings).plan("lost shipments", today=TODAY)
    temperatures = [r["temperature"] for r in llm_server.requests]
    assert temperatures == sorted(temperatures, reverse=True) and len(set(temperatures)) == 3


# -- a schema grammar converters take ----------------------------------------------------------------
def _patterns(schema):
    if isinstance(schema, dict):
        if isinstance(schema.get("pattern"), str):
            yield schema["pattern"]
        for value in schema.values():
            yield from _patterns(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _patterns(value)


def test_the_schema_patterns_use_only_regex_that_grammar_converters_take(registry):
    """llama.cpp's schema-to-grammar converters take groups, classes, alternatives and
    quantifiers, but no ``(?:...)`` and no escaped ``.`` or ``$`` (they copy ``\\.`` into the
    grammar, which refuses it); on a schema they cannot convert llama-cpp-python's server
    falls back, silently, to any JSON at all. So a pattern escapes only what they unescape."""
    import re

    patterns = list(_patterns(plan_json_schema(registry)))
    assert patterns
    for pattern in patterns:
        assert "(?" not in pattern, pattern
        escaped = set(re.findall(r"\\(.)", pattern))
        assert escaped <= set("[](){}|*+?"), (pattern, escaped - set("[](){}|*+?"))
    references = [p for p in patterns if "step" in p]
    assert any(re.search(p, "${step[0].data.*.id}") for p in references)
    assert any(re.search(p, "${step[12].data[0].id}") for p in references)
    for bad in ("${step[0].dataX*Xid}", "${step[0]Xdata[0]Xid}", "${today}", "$Xstep[0].data[0].id}"):
        assert not any(re.search(p, bad) for p in references), bad


def test_a_date_param_is_offered_only_references_to_dates(registry):
    """Told never to work out dates, a small model put a reference to "today" in a date param
    instead (``${step[0].data[0].date}`` in step 0); a date param takes a reference only to an
    output declared a date, while an id param is still offered its ids."""
    import jsonschema

    schema = plan_json_schema(registry)

    def fits(params: dict) -> bool:
        try:
            jsonschema.validate({"steps": [{"tool": "contaminants_list", "params": params, "depends_on": [0],
                                            "parallel": False}]}, schema)
        except jsonschema.ValidationError:
            return False
        return True

    assert fits({"date_from": "today", "facility_id": "${step[0].data.*.id}"})
    assert not fits({"date_from": "${step[0].data[0].date}"})   # the outputs' "date" is only text
    assert not fits({"date_to": "${step[0].data[0].id}"})


def test_parallel_marks_follow_the_graph_not_the_model(registry, settings, llm_server):
    """``parallel`` follows from the dependencies (steps that need none, when more than one
    does): the studio marks it, as it resolves dates, rather than reject a plan over it."""
    three = [{"tool": t, "params": {}, "depends_on": [], "parallel": p}
             for t, p in (("shipments_list", False), ("facilities_list", True), ("inspections_list", True))]
    chain = [{"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": True},
             {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [],
              "parallel": True}]
    llm_server.reply(json.dumps({"steps": three}))
    llm_server.reply(json.dumps({"steps": chain}))
    planner = LLMPlanner(registry, settings)
    assert [s.parallel for s in planner.plan("all three lists", today=TODAY).steps] == [True, True, True]
    assert [s.parallel for s in planner.plan("Berlin's and their shipments", today=TODAY).steps] == [False, False]


# -- dates the goal does not say ---------------------------------------------------------------------
def _one_step(tool: str, params: dict) -> str:
    return json.dumps({"steps": [{"tool": tool, "params": params, "depends_on": [], "parallel": False}]})


def test_a_date_the_goal_never_names_is_left_out(registry, settings, llm_server):
    """Small models copied the prompt's own example ("last week") into goals with no date."""
    llm_server.reply(_one_step("facilities_list", {"location": "Berlin"}))  # the other tool, to be sure
    llm_server.reply(_one_step("inspections_list", {"date_from": "last week", "date_to": "2025-10-12",
                                                    "result": "failed"}))
    planner = LLMPlanner(registry, settings)
    planner.plan("Berlin facilities", today=TODAY)
    plan = planner.plan("failed inspections", today=TODAY)
    assert plan.steps[0].params == {"result": "failed"}
    dates = plan.metadata.model_dump()["planner_log"][0]["dates"]
    assert any("last week" in line and "names no date" in line for line in dates)
    assert len(llm_server.requests) == 2


@pytest.mark.parametrize("written, said, expected", [
    (("last week", "last week"), "inspections of this week", ("2025-10-06", "2025-10-12")),
    (("this month", "this month"), "today's failed inspections", ("2025-10-12", "2025-10-12")),
    (("2025-10-05", "2025-10-11"), "inspections from yesterday", ("2025-10-11", "2025-10-11")),
    (("2025-09-01", "2025-09-30"), "inspections from 2025-09-01 to 2025-09-30", ("2025-09-01", "2025-09-30")),
    (("March 3", "March 9"), "inspections from March 3 to March 9", ("2025-03-03", "2025-03-09")),
])
def test_a_date_unlike_the_goals_one_date_is_the_goals(written, said, expected, registry, settings, llm_server):
    """The studio's date table reads the goal too: when the goal names one date or range and
    the model wrote some other one, the goal's is used (and the log says so)."""
    llm_server.reply(_one_step("inspections_list", {"date_from": written[0], "date_to": written[1]}))
    plan = LLMPlanner(registry, settings).plan(said, today=TODAY)
    assert (plan.steps[0].params["date_from"], plan.steps[0].params["date_to"]) == expected


def test_a_step_listed_among_its_own_dependencies_is_not_a_repair(registry, settings, llm_server):
    """A small model repeated ``depends_on: [1, 2]`` for step 2 word for word through every
    repair; a step needing itself says nothing, so the studio drops it and notes it."""
    llm_server.reply(json.dumps({"steps": [
        {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
        {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0, 1],
         "parallel": False}]}))
    plan = LLMPlanner(registry, settings).plan("Berlin facilities and their shipments", today=TODAY)
    assert plan_to_seed(plan)["steps"][1]["depends_on"] == [0]
    assert len(llm_server.requests) == 1
    assert any("itself" in line for line in plan.metadata.model_dump()["planner_log"][0]["fixed"])
    from core.planners._planner_log import log_lines, planner_log
    assert any(line.startswith("  fixed: step 1") for line in log_lines(planner_log(plan)))  # what `-v` prints


@pytest.mark.parametrize("goal, written, kept", [
    ("contaminated shipments", {"status": "delivered", "has_contaminants": True}, {"has_contaminants": True}),
    ("rejected high-risk shipments", {"status": "rejected", "risk_level": "high"},
     {"status": "rejected", "risk_level": "high"}),
    ("shipments still in transit", {"status": "in_transit", "risk_level": "low"}, {"status": "in_transit"}),
    ("shipments that were delivered", {"status": "delivered"}, {"status": "delivered"}),
])
def test_a_listed_value_the_user_never_said_is_left_out(goal, written, kept, registry, settings, llm_server):
    """Small models add enum filters nobody asked for ("status": "delivered"); a value from a
    param's list whose words the user did not say is left out, and the log says so."""
    llm_server.reply(_one_step("shipments_list", written))
    plan = LLMPlanner(registry, settings).plan(goal, today=TODAY)
    assert plan.steps[0].params == kept
    fixed = plan.metadata.model_dump()["planner_log"][0].get("fixed", [])
    assert len(fixed) == len(written) - len(kept)


def test_a_re_plan_keeps_the_listed_values_the_plan_already_had(registry, settings, llm_server):
    """What the current plan holds (maybe set by hand) counts as said: only values new to the
    re-plan must come from the feedback."""
    from core.formats import plan_from_seed

    old = plan_from_seed({"steps": [{"tool": "shipments_list", "params": {"status": "pending"}, "depends_on": [],
                                     "parallel": False}]}, goal="shipments")
    llm_server.reply(json.dumps({"steps": [
        {"tool": "shipments_list", "params": {"status": "pending", "risk_level": "medium"}, "depends_on": [],
         "parallel": True},
        {"tool": "inspections_list", "params": {"result": "failed"}, "depends_on": [], "parallel": True}]}))
    new = LLMPlanner(registry, settings).replan(old, "also the inspections", today=TODAY)
    assert [s.params for s in new.steps] == [{"status": "pending"}, {}]


def test_a_range_phrase_written_into_its_start_only_fills_the_end_too(registry, settings, llm_server):
    """A 0.5B model wrote "last week" into ``date_from`` and stopped: the phrase is a range,
    and the studio knows both its ends."""
    llm_server.reply(_one_step("shipments_list", {"date_from": "last week"}))
    plan = LLMPlanner(registry, settings).plan("shipments of last week", today=TODAY)
    assert plan.steps[0].params == {"date_from": "2025-10-05", "date_to": "2025-10-12"}
    assert len(plan.metadata.model_dump()["planner_log"][0]["dates"]) == 2  # one line per param


def test_an_id_the_user_never_gave_is_left_out(registry, settings, llm_server):
    """Ids come from earlier steps or from the user; a small model made some up."""
    llm_server.reply(_one_step("contaminants_list", {"shipment_ids": ["1234567890"], "facility_id": "F-7",
                                                     "category": "plastic"}))
    plan = LLMPlanner(registry, settings).plan("plastic contaminants at facility F-7", today=TODAY)
    assert plan.steps[0].params == {"facility_id": "F-7", "category": "plastic"}


def test_a_list_of_literal_ids_is_no_longer_than_the_users_words(registry, settings, llm_server):
    """Qwen 0.5B wrote 19 dates as shipment ids for "the last 30 days" (14 s of decoding, all of
    it then left out): a grammar closes a list of literal ids at the goal's word count."""
    goal = "Contaminants in SHP-1 SHP-2 SHP-3 SHP-4 and SHP-5"

    def fits(schema: dict, ids: object) -> bool:
        try:
            jsonschema.validate({"steps": [{"tool": "contaminants_list", "params": {"shipment_ids": ids},
                                            "depends_on": [], "parallel": False}]}, schema)
        except jsonschema.ValidationError:
            return False
        return True

    made_up = [f"2025-10-{d:02}" for d in range(12, 31)]
    bounded = plan_json_schema(registry, said=goal)
    assert fits(bounded, [f"SHP-{n}" for n in range(1, 6)])     # every id the user named
    assert fits(bounded, "${step[0].data.*.id}")               # a reference is no list of literals
    assert not fits(bounded, made_up)
    assert fits(plan_json_schema(registry), made_up)           # without the user's words: no bound
    assert not fits(plan_json_schema(registry, said="ids"), made_up[:4])  # a few, however short the goal

    llm_server.reply(_one_step("contaminants_list", {"shipment_ids": ["SHP-1"]}))
    planner = LLMPlanner(registry, settings)
    planner.plan(goal, today=TODAY)
    sent = llm_server.requests[0]["response_format"]["json_schema"]["schema"]
    words = len(goal.split())  # 8: an id is a word at least
    assert fits(sent, made_up[:words]) and not fits(sent, made_up[:words + 1])
    # A list as long as the bound may have been cut there ("SHP-1 to SHP-40"): the log says so.
    llm_server.reply(_one_step("contaminants_list", {"shipment_ids": [f"SHP-{n}" for n in range(1, words + 1)]}))
    [attempt] = planner.plan(goal, today=TODAY).metadata.model_dump()["planner_log"]
    assert any("shipment_ids: 8 ids" in line and "check that none is missing" in line for line in attempt["fixed"])


def test_a_reference_to_itself_is_repaired_with_every_tool_offered(registry, settings, llm_server):
    """A step that uses its own output needs an earlier step, of another tool: the repair
    offers every tool (not only the ones the reply used) and says to add that step."""
    alone = _one_step("contaminants_list", {"facility_id": "${step[0].data.*.id}"})
    fixed = json.dumps({"steps": [
        {"tool": "facilities_list", "params": {"location": "Hannover"}, "depends_on": [], "parallel": False},
        {"tool": "contaminants_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0],
         "parallel": False}]})
    llm_server.reply(alone)
    llm_server.reply(fixed)
    LLMPlanner(registry, settings).plan("contaminants in Hannover", today=TODAY)
    second = llm_server.requests[1]
    offered = second["response_format"]["json_schema"]["schema"]["properties"]["steps"]["items"]["anyOf"]
    assert len(offered) == len(registry.names())
    assert "add" in second["messages"][-1]["content"] and "earlier step" in second["messages"][-1]["content"]


def test_the_goals_one_date_goes_to_the_one_step_that_takes_dates_when_no_step_has_one(
        registry, settings, llm_server):
    """A 0.5B model filled the tool's first params and no date; the goal named one, and only
    one step can take it."""
    llm_server.reply(_one_step("contaminants_list", {"risk_level": "high"}))
    llm_server.reply(json.dumps({"steps": [
        {"tool": "shipments_list", "params": {}, "depends_on": [], "parallel": True},
        {"tool": "inspections_list", "params": {}, "depends_on": [], "parallel": True}]}))
    planner = LLMPlanner(registry, settings)
    plan = planner.plan("high-risk contaminants detected yesterday", today=TODAY)
    assert plan.steps[0].params == {"risk_level": "high", "date_from": "2025-10-11", "date_to": "2025-10-11"}
    both = planner.plan("shipments and inspections from yesterday", today=TODAY)
    assert [s.params for s in both.steps] == [{}, {}]  # two steps could take it: which is the model's call


def test_the_schema_bounds_the_steps_a_looping_model_can_write(registry, settings, llm_server):
    """SmolLM2 wrote steps until ``max_tokens`` ran out (and a server that keeps decoding for a
    client that gave up delays every later goal): the schema caps the list, so a grammar closes
    it; a re-plan may still grow the current plan."""
    from core.formats import plan_from_seed

    llm_server.reply(_one_step("facilities_list", {"location": "Berlin"}))
    planner = LLMPlanner(registry, settings)
    planner.plan("Berlin facilities", today=TODAY)
    steps = lambda n: llm_server.requests[n]["response_format"]["json_schema"]["schema"]["properties"]["steps"]  # noqa: E731
    first_cap = steps(0)["maxItems"]
    assert 5 <= first_cap <= 50
    big = plan_from_seed({"steps": [{"tool": "facilities_list", "params": {}, "depends_on": [], "parallel": False}]
                          * (first_cap + 10)}, goal="many")
    llm_server.reply(json.dumps({"steps": [{"tool": "facilities_list", "params": {}, "depends_on": [],
                                            "parallel": False}] * (first_cap + 11)}))
    planner.replan(big, "one more", today=TODAY)
    assert steps(1)["maxItems"] > first_cap + 10


def test_every_pattern_sent_is_anchored_as_llama_cpp_s_converter_requires(settings):
    """llama-cpp-python's converter takes only ``^...$`` patterns; one tool's own ``\\S`` (not
    anchored) made the server drop the schema for every tool, so the demo tools' full set
    planned without a grammar. A tool's own patterns stay with the validator."""
    schema = plan_json_schema(build_registry(settings))
    patterns = list(_patterns(schema))
    assert patterns
    for pattern in patterns:
        assert pattern.startswith("^") and pattern.endswith("$"), pattern
        assert "||" not in pattern and "(|" not in pattern and "|)" not in pattern, pattern


def test_the_bound_on_literal_ids_never_goes_below_what_the_tool_itself_needs():
    """A tool that needs at least 5 ids gets at least 5, however short the goal."""
    tools = ToolRegistry()

    @tools.register
    def compare(shipment_ids: Annotated[list[str], Field(min_length=5)]) -> int:
        """Compare shipments.

        Args:
            shipment_ids: The shipments to compare.
        """
        return len(shipment_ids)

    schema = plan_json_schema(tools, said="compare them")
    five = {"steps": [{"tool": "compare", "params": {"shipment_ids": ["a", "b", "c", "d", "e"]},
                       "depends_on": [], "parallel": False}]}
    jsonschema.validate(five, schema)  # 5 ids fit although the goal has 2 words
    five["steps"][0]["params"]["shipment_ids"].append("f")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(five, schema)

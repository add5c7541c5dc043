"""The review gate: every problem in a plan is found before it runs, by step and field.

Issue 7: references in params the tool lacks, references whose value cannot fit the param,
Semantic Kernel variables nothing sets, values that only look right, values out of the
schema's bounds, and cyclic plans whose cycles cannot all be listed.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Optional

import pytest
from pydantic import Field
from typing_extensions import TypedDict

from core import (Executor, Plan, PlanInvalid, Settings, Step, ToolArgumentsError, ToolRegistry,
                  Validator, load_plan)
from core.validation._schema_fit import may_fit, value_schema
from core.plan._path_schemas import schema_at_path
from core.plan._references import MAP
from core.formats import plan_from_seed
from tools import build_registry

from toy_tools import toy_registry

TOY = Validator(toy_registry())


def found(validator: Validator, steps: list[dict[str, Any]]) -> list[tuple[int | None, str, str]]:
    plan = plan_from_seed({"steps": steps})
    return [(p.step_index, p.field, p.message) for p in validator.validate(plan)]


SITES = {"tool": "sites_list", "params": {}}


# -- 1. a reference in a param the tool does not have ---------------------------------------
def test_a_reference_in_an_unknown_param_is_a_problem_with_a_hint() -> None:
    [(index, field, message)] = found(TOY, [SITES, {"tool": "visits_list", "params": {
        "site_id": "S1", "stie_id": "${step[0].data.*.id}"}}])
    assert (index, field) == (1, "params.stie_id")
    assert message == "is not a parameter of this tool; did you mean 'site_id'?"


def test_an_unknown_param_far_from_any_name_gets_no_hint() -> None:
    [(_, field, message)] = found(TOY, [SITES, {"tool": "visits_list", "params": {
        "site_id": "S1", "colour": "${step[0].count}"}}])
    assert (field, message) == ("params.colour", "is not a parameter of this tool")


def test_a_literal_unknown_param_gets_the_hint_too() -> None:
    [(_, field, message)] = found(TOY, [{"tool": "sites_list", "params": {"cty": "Berlin"}}])
    assert (field, message) == ("params.cty", "is not a parameter of this tool; did you mean 'city'?")


# -- 2. a reference whose value cannot fit the param -----------------------------------------
@pytest.mark.parametrize(("params", "field", "words"), [
    # a * map yields a list: not an integer
    ({"limit": "${step[0].data.*.id}"}, "params.limit",
     "${steps.s1.data.*.id} gives a list of strings (sites_list output), but limit takes an integer"),
    # a string field into an integer param
    ({"limit": "${step[0].data[0].id}"}, "params.limit",
     "${steps.s1.data[0].id} gives a string (sites_list output), but limit takes an integer"),
    # an object into a string param
    ({"city": "${step[0]}"}, "params.city",
     "${steps.s1} gives an object (sites_list output), but city takes a string"),
    # a reference inside longer text is text
    ({"limit": "first ${step[0].count}"}, "params.limit",
     "a reference inside longer text is filled in as text, but limit takes an integer"),
])
def test_a_reference_that_cannot_fit_is_reported(params: dict, field: str, words: str) -> None:
    assert found(TOY, [SITES, {"tool": "sites_list", "params": params}]) == [(1, field, words)]


@pytest.mark.parametrize("params", [
    {"limit": "${step[0].count}"},                      # integer into integer
    {"city": "${step[0].data[0].city}"},                # string into string
    {"city": "in ${step[0].data.*.city}"},              # interpolation into a string
])
def test_a_reference_that_fits_is_accepted(params: dict) -> None:
    assert found(TOY, [SITES, {"tool": "sites_list", "params": params}]) == []


@pytest.mark.parametrize(("site_id", "ok"), [
    ("${step[0].data.*.id}", True),             # a list of strings into str | list[str]
    ("${step[0].data[0].id}", True),            # one string into str | list[str]
    ("${step[0].data}", False),                 # a list of objects: no item type fits
    ("${step[0].count}", False),                # an integer: neither a string nor a list
    (["${step[0].data[0].id}", "S9"], True),    # a list built around a reference
    (["${step[0].data[0].id}", 3], False),      # ... holding a literal of the wrong type
    (["${step[0].data.*.id}"], False),          # ... holding a list where strings go
])
def test_lists_and_unions_are_checked_item_by_item(site_id: Any, ok: bool) -> None:
    problems = found(TOY, [SITES, {"tool": "visits_list", "params": {"site_id": site_id}}])
    assert (problems == []) is ok, problems
    assert all(field == "params.site_id" for _, field, _ in problems)


def test_a_single_value_into_a_list_param_is_reported() -> None:
    registry = ToolRegistry()

    @registry.register
    def one() -> dict[str, str]:
        """One value.
        """
        return {"id": "a"}

    @registry.register
    def many(ids: list[str]) -> int:
        """Count ids.

        Args:
            ids: The ids.
        """
        return len(ids)

    [(index, field, message)] = found(Validator(registry), [
        {"tool": "one", "params": {}}, {"tool": "many", "params": {"ids": "${step[0].id}"}}])
    assert (index, field) == (1, "params.ids")
    assert message == "${steps.s1.id} gives a string (one output), but ids takes a list of strings"


class Reading(TypedDict):
    value: Optional[int]
    label: Any


def test_unknown_or_nullable_schemas_give_no_false_positives() -> None:
    registry = ToolRegistry()

    @registry.register
    def untyped():  # type: ignore[no-untyped-def]
        """Returns anything: no return type."""
        return {"x": 1}

    @registry.register
    def typed() -> Reading:
        """Returns a reading."""
        return {"value": 1, "label": "a"}

    @registry.register
    def use(n: int, text: str = "") -> int:
        """Use a number.

        Args:
            n: A number.
            text: Some text.
        """
        return n

    validator = Validator(registry)
    assert found(validator, [{"tool": "untyped", "params": {}},
                             {"tool": "use", "params": {"n": "${step[0].x.*.y}"}}]) == []
    # int | None may be an int; Any may be anything
    assert found(validator, [{"tool": "typed", "params": {}},
                             {"tool": "use", "params": {"n": "${step[0].value}", "text": "${step[0].label}"}}]) == []


def test_schema_at_path_wraps_the_rest_of_a_map_in_a_list() -> None:
    returns = toy_registry().get("sites_list").returns
    at = schema_at_path(returns, ("data", MAP, "id"))
    assert {k: v for k, v in at.items() if k != "$defs"} == {"type": "array", "items": {"type": "string"}}
    assert schema_at_path(returns, ("count",)) == {"type": "integer", **({"$defs": returns["$defs"]} if "$defs" in returns else {})}
    assert schema_at_path({}, ("anything",)) == {}
    assert schema_at_path(returns, ("nope",)) == {}  # check_path reports impossible paths


def test_may_fit_follows_json_types() -> None:
    integer, number = {"type": "integer"}, {"type": "number"}
    assert may_fit(integer, number) and not may_fit(number, integer)
    assert may_fit({"anyOf": [{"type": "string"}, {"type": "null"}]}, {"type": "string"})
    assert not may_fit({"enum": ["a"]}, {"enum": ["b", "c"]})
    assert may_fit({"type": "string"}, {"type": "string", "format": "date"})
    assert not may_fit(value_schema(0, lambda r: {}), {"type": "integer", "minimum": 1})


# -- 3. Semantic Kernel variables that no earlier step sets ---------------------------------
SK_UNSET = """<plan>
  <function.WriterPlugin.ShortPoem input="$TODAY_TOPIC" setContextVariable="POEM"/>
  <function.WriterPlugin.Translate input="$POEM" language="$LANG costs $5" />
</plan>"""


@pytest.fixture(scope="module")
def builtin(tmp_path_factory: pytest.TempPathFactory) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("data"), today=dt.date(2025, 10, 12)))


def test_an_unset_sk_variable_loads_as_written_and_is_reported(builtin: ToolRegistry) -> None:
    plan = load_plan(SK_UNSET, "sk", builtin)
    assert plan.steps[0].params == {"input": "$TODAY_TOPIC"}  # nothing the author wrote is lost
    assert plan.steps[1].params == {"input": "${steps.s1}", "language": "$LANG costs $5"}
    problems = [(p.step_index, p.field, p.message) for p in Validator(builtin).validate(plan)]
    assert [(i, f) for i, f, _ in problems] == [(0, "params.input"), (1, "params.language")]
    assert problems[0][2].startswith("$TODAY_TOPIC is a Semantic Kernel variable, but no step sets it")
    assert "$5" not in problems[1][2] and problems[1][2].startswith("$LANG ")  # "$5" is text


def test_sk_input_is_the_previous_output_and_unset_in_the_first_function(builtin: ToolRegistry) -> None:
    plan = load_plan("""<plan>
      <function.WriterPlugin.ShortPoem input="$INPUT"/>
      <function.WriterPlugin.Translate input="$INPUT" language="French"/>
    </plan>""", "sk", builtin)
    assert plan.steps[1].params["input"] == "${steps.s1}"
    [problem] = Validator(builtin).validate(plan)
    assert (problem.step_index, problem.field) == (0, "params.input")
    assert "the plan's input in Semantic Kernel" in problem.message


def test_an_sk_variable_set_only_later_says_which_step_sets_it(builtin: ToolRegistry) -> None:
    plan = load_plan("""<plan>
      <function.WriterPlugin.Translate input="$POEM" language="French"/>
      <function.WriterPlugin.ShortPoem input="autumn" setContextVariable="POEM"/>
    </plan>""", "sk", builtin)
    [problem] = Validator(builtin).validate(plan)
    assert (problem.step_index, problem.field) == (0, "params.input")
    assert "only step 1 (ShortPoem), which comes later, sets it" in problem.message


def test_fixing_the_value_clears_the_problem(builtin: ToolRegistry) -> None:
    plan = load_plan(SK_UNSET, "sk", builtin)
    plan.steps[0].params["input"] = "autumn"
    plan.steps[1].params["language"] = "French"
    assert Validator(builtin).validate(plan) == []


def test_dollar_text_in_other_formats_is_not_a_variable(builtin: ToolRegistry) -> None:
    plan = plan_from_seed({"steps": [{"tool": "say", "params": {"message": "$TODAY_TOPIC costs $5"}}]})
    assert Validator(builtin).validate(plan) == []


# -- 4. values that only look right are refused, at review and at run time -----------------
@pytest.mark.parametrize(("params", "field", "message"), [
    ({"near_capacity": "yes"}, "params.near_capacity", "must be true or false, not the text 'yes'"),
    ({"near_capacity": 1}, "params.near_capacity", "must be true or false (got 1)"),
    ({"limit": "10"}, "params.limit", "must be a whole number, not the text '10'"),
    ({"limit": 10.0}, "params.limit", "must be a whole number (got 10.0)"),
])
def test_a_value_that_only_looks_right_is_a_problem(builtin: ToolRegistry, params: dict, field: str,
                                                    message: str) -> None:
    assert found(Validator(builtin), [{"tool": "facilities_list", "params": params}]) == [(0, field, message)]
    with pytest.raises(ToolArgumentsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        builtin.get("facilities_list").call(params)


def test_strict_arguments_still_take_iso_dates_and_ints_for_numbers() -> None:
    registry = ToolRegistry()

    @registry.register
    def since(day: dt.date, weight: float) -> str:
        """Echo.

        Args:
            day: A day.
            weight: A weight.
        """
        return f"{day.isoformat()} {weight}"

    tool = registry.get("since")
    assert tool.check_arguments({"day": "2025-10-01", "weight": 3}) == []
    assert tool.call({"day": "2025-10-01", "weight": 3}) == "2025-10-01 3.0"
    assert tool.call({"day": dt.date(2025, 10, 1), "weight": 3.5}) == "2025-10-01 3.5"
    assert [f for f, _ in tool.check_arguments({"day": "yesterday", "weight": "3"})] == ["day", "weight"]


def test_a_step_receives_exactly_the_approved_value(builtin: ToolRegistry) -> None:
    plan = plan_from_seed({"steps": [{"tool": "facilities_list", "params": {"near_capacity": "false"}}]})
    with pytest.raises(PlanInvalid):
        Executor(builtin).execute(plan)


# -- 5. schemas carry bounds ---------------------------------------------------------------
@pytest.mark.parametrize("tool", ["facilities_list", "shipments_list", "contaminants_list", "inspections_list"])
def test_waste_limits_are_at_least_one(builtin: ToolRegistry, tool: str) -> None:
    assert builtin.get(tool).parameters["properties"]["limit"]["minimum"] == 1
    assert found(Validator(builtin), [{"tool": tool, "params": {"limit": 0}}]) == [
        (0, "params.limit", "must be at least 1 (got 0)")]
    assert found(Validator(builtin), [{"tool": tool, "params": {"limit": 1}}]) == []


@pytest.mark.parametrize(("tool", "params", "field"), [
    ("createList", {"list": " "}, "params.list"),
    ("addItem", {"list": "groceries", "item": ""}, "params.item"),
    ("removeItem", {"list": "\t", "item": "milk"}, "params.list"),
    ("showList", {"list": ""}, "params.list"),
    ("deleteList", {"list": "  "}, "params.list"),
    ("ShortPoem", {"input": " "}, "params.input"),
    ("Translate", {"input": "hi", "language": ""}, "params.language"),
])
def test_blank_text_the_tools_refuse_is_a_problem(builtin: ToolRegistry, tool: str, params: dict,
                                                  field: str) -> None:
    [(index, got_field, message)] = found(Validator(builtin), [{"tool": tool, "params": params}])
    assert (index, got_field) == (0, field) and message.startswith("must not be blank")


def test_bounds_on_any_tool_reach_the_validator() -> None:
    registry = ToolRegistry()

    @registry.register
    def pick(n: Annotated[int, Field(ge=1, le=5)], share: Annotated[float, Field(gt=0, lt=1)] = 0.5) -> int:
        """Pick.

        Args:
            n: How many.
            share: A share.
        """
        return n

    problems = found(Validator(registry), [{"tool": "pick", "params": {"n": 6, "share": 1}}])
    assert problems == [(0, "params.n", "must be at most 5 (got 6)"),
                        (0, "params.share", "must be less than 1 (got 1)")]


# -- 6. cycles: one problem per group of steps that depend on each other -----------------
def test_a_fully_connected_plan_gives_one_cycle_problem() -> None:
    ids = [f"s{n}" for n in range(10)]
    plan = Plan(steps=[Step(id=i, tool="sites_list", depends_on=[d for d in ids if d != i]) for i in ids])
    problems = TOY.validate(plan)
    assert len(problems) == 1
    [problem] = problems
    assert (problem.step_index, problem.field) == (0, "depends_on")
    assert problem.message == ("dependency cycle among 10 steps (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), which all "
                               "depend on each other; for example "
                               "step 0 (sites_list) → step 1 (sites_list) → step 0 (sites_list)")


def test_separate_cycles_and_self_loops_are_each_reported_once() -> None:
    plan = Plan(steps=[Step(id="a", tool="x", depends_on=["b"]), Step(id="b", tool="x", depends_on=["a"]),
                       Step(id="c", tool="x", depends_on=["c"]),
                       Step(id="d", tool="x", depends_on=["e"]), Step(id="e", tool="x", depends_on=["d"])])
    problems = [(p.step_index, p.field, p.message) for p in Validator(ToolRegistry()).validate(plan)
                if p.field == "depends_on"]
    assert problems == [
        (2, "depends_on", "a step cannot depend on itself"),
        (0, "depends_on", "dependency cycle: step 0 (x) → step 1 (x) → step 0 (x)"),
        (3, "depends_on", "dependency cycle: step 3 (x) → step 4 (x) → step 3 (x)"),
    ]

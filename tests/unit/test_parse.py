"""Reading plan JSON out of model replies: what is tolerated, and what each failure says."""

from __future__ import annotations

import json

import pytest

from core import PlanFormatError
from core.planners.llm._reply import MAX_DEPTH, MAX_REPLY_CHARS, extract_plan_json

STEP = {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False}
PLAN = {"steps": [STEP]}
PLAN_TEXT = json.dumps(PLAN, indent=2)


@pytest.mark.parametrize("reply", [
    PLAN_TEXT,
    f"```json\n{PLAN_TEXT}\n```",
    f"```\n{PLAN_TEXT}\n```",
    f"Here is the plan:\n\n```json\n{PLAN_TEXT}\n```\n\nIt lists the facilities in Berlin.",
    f"Sure. {json.dumps(PLAN)} Hope that helps!",
    f"Step [1] of my answer [see note]: {PLAN_TEXT}",           # brackets in prose before the JSON
    f"```json\n{PLAN_TEXT}",                                   # the closing fence never came
    f'{{"plan": {PLAN_TEXT}}}',                                 # a wrapper object
    f'{{"Plan": {{"steps": [{json.dumps(STEP)}]}}}}',
    json.dumps([STEP]),                                       # a bare list of steps
    f'{{"plan": [{json.dumps(STEP)}]}}',
    json.dumps(STEP),                                         # one step on its own
])
def test_wrapped_replies_give_the_plan(reply):
    assert extract_plan_json(reply) == PLAN


def test_trailing_commas_comments_and_python_literals_are_repaired():
    reply = """```json
{
  // the facilities first
  "steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin",}, "depends_on": [], "parallel": False,},
    /* then their shipments */
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}", "limit": None}, "depends_on": [0], "parallel": True},
  ],
}
```"""
    data = extract_plan_json(reply)
    assert data["steps"][0] == STEP
    assert data["steps"][1]["params"] == {"facility_id": "${step[0].data.*.id}", "limit": None}
    assert data["steps"][1]["parallel"] is True


def test_text_inside_strings_is_never_rewritten():
    step = {"tool": "t", "params": {"q": "a } b, ] // not a comment, True, None,]"}}
    assert extract_plan_json(f"```\n{json.dumps({'steps': [step]})}\n```") == {"steps": [step]}


def test_metadata_beside_a_wrapper_is_kept():
    data = extract_plan_json(json.dumps({"plan": {"steps": [STEP]}, "metadata": {"note": "x"}}))
    assert data == {"steps": [STEP], "metadata": {"note": "x"}}


def test_the_first_plan_wins_over_other_json_in_the_reply():
    reply = f'Options: {{"answer": 1}} and then {json.dumps(PLAN)} and {{"steps": []}}'
    assert extract_plan_json(reply) == PLAN


def test_json_that_is_not_a_plan_is_returned_for_the_caller_to_reject():
    assert extract_plan_json('The result: {"answer": 42}') == {"answer": 42}


@pytest.mark.parametrize("reply, expected", [
    ("", "the reply is empty"),
    ("   \n ", "the reply is empty"),
    ("I would first list the facilities in Berlin.", "no JSON found in the reply"),
    ('{"steps": [{"tool": "facilities_list" "params": {}}]}',
     "the JSON in the reply is invalid: Expecting ',' delimiter at line 1, column 39"),
    ('{\n  "steps": [\n    {"tool": "facilities_list",\n     "params": {"location": "Berlin"',
     "the '{' opened on line 1 is never closed (the reply is cut off)"),
    ('{"steps": [{"tool": "a"}}]', "'}' on line 1 does not close the '[' opened on line 1"),
    ("{'steps': [{'tool': 'a'}]}", "the JSON in the reply is invalid: Expecting property name enclosed in double quotes"),
])
def test_replies_without_usable_json_say_what_is_wrong(reply, expected):
    with pytest.raises(PlanFormatError) as caught:
        extract_plan_json(reply)
    assert expected in str(caught.value)
    assert caught.value.format == "seed"


def test_a_fragment_of_a_broken_plan_does_not_pass_for_the_plan():
    # Step 1 is fine on its own, but the plan around it is broken: that must be an error,
    # not a one-step plan that silently drops the rest.
    reply = '{"steps": [{"tool": "a", "params": {}}, {"tool": "b" "params": {}}]}'
    with pytest.raises(PlanFormatError, match="Expecting ','"):
        extract_plan_json(reply)


def test_the_error_quotes_the_offending_line():
    reply = '{\n  "steps": [\n    {"tool": "a" "params": {}}\n  ]\n}'
    with pytest.raises(PlanFormatError) as caught:
        extract_plan_json(reply)
    assert "at line 3" in str(caught.value)
    assert '{"tool": "a" "params": {}}' in str(caught.value)


# -- pathological replies: each is refused with a message, in one pass over the text ----------
# (How long they take is printed by benchmarks/bench.py; tests assert only what is said.)
@pytest.mark.parametrize("reply, expected", [
    ("{" * 20_000, "the '{' opened on line 1 is never closed"),
    ("[" * 100_000, "the '[' opened on line 1 is never closed"),
    ("{]" * 50_000, "']' on line 1 does not close the '{' opened on line 1"),
    ('{"' * 50_000, "the '{' opened on line 1 is never closed"),
    ("```json\n{\n" * 19_000, "Expecting property name enclosed in double quotes"),
    ("```" * 60_000, "no JSON found in the reply"),
    # json.loads would hit Python's recursion limit on these
    ("[" * 5_000 + "]" * 5_000, "nested more than 100 levels deep (line 1)"),
    ("```json\n" + '{"a": ' * 2_000 + "1" + "}" * 2_000 + "\n```", "nested more than 100 levels deep"),
])
def test_pathological_replies_are_refused_with_a_message(reply, expected):
    with pytest.raises(PlanFormatError) as caught:
        extract_plan_json(reply)
    assert expected in str(caught.value)


def test_a_plan_after_a_stray_bracket_that_is_never_closed_is_still_found():
    assert extract_plan_json("Note: { is my favourite character. " + json.dumps(PLAN)) == PLAN


def test_nesting_a_plan_needs_is_read():
    deep: object = "leaf"
    for _ in range(MAX_DEPTH - 4):  # steps, a step and params take the other levels
        deep = [deep]
    plan = {"steps": [{"tool": "t", "params": {"value": deep}}]}
    assert extract_plan_json(json.dumps(plan)) == plan


def test_a_reply_longer_than_the_limit_is_refused_saying_so():
    reply = json.dumps(PLAN) + " " * MAX_REPLY_CHARS
    with pytest.raises(PlanFormatError) as caught:
        extract_plan_json(reply)
    assert f"more than the {MAX_REPLY_CHARS:,} a plan may take" in str(caught.value)
    assert f"{len(reply):,} characters" in str(caught.value)
    assert extract_plan_json(reply[:MAX_REPLY_CHARS]) == PLAN  # at the limit it is read

import pytest

from core import ReferenceResolutionError, ReferenceSyntaxError, find_references, parse_reference, resolve_params
from core import Plan
from core.plan._positions import ids_for_positions, positions_for_ids
from core.plan._path_schemas import check_path
from core.plan._references import MAP, referenced_step_ids, renamed_steps, step_reference

ROWS = {"data": [{"id": "F1", "tags": ["a", "b"]}, {"id": "F2", "tags": ["c"]}], "count": 2}
SCHEMA = {
    "type": "object",
    "properties": {
        "data": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
        "count": {"type": "integer"},
    },
    "$defs": {"Row": {"type": "object", "properties": {"id": {"type": "string"},
                                                        "tags": {"type": "array", "items": {"type": "string"}}}}},
}


def test_parse_map_field_and_index():
    ref = parse_reference("${steps.s0.data.*.id}")
    assert (ref.step, ref.path) == ("s0", ("data", MAP, "id"))
    ref = parse_reference("${steps.s_1a2b3c4d.data[1]['id']}")
    assert (ref.step, ref.path) == ("s_1a2b3c4d", ("data", 1, "id"))
    assert parse_reference("${steps.s3}").path == ()


@pytest.mark.parametrize("step_id", ["s1", "s_1a2b3c4d", "7", "a-b", "fetch sites", "a.b", "x}y", 'q"uote',
                                     "back\\slash", "ünï", "]", "${steps.s1}", ""])
def test_every_step_id_can_be_written_and_read_back(step_id):
    text = step_reference(step_id, ".data.*.id")
    ref = parse_reference(text)
    assert (ref.step, ref.path) == (step_id, ("data", MAP, "id"))
    assert referenced_step_ids({"p": f"before {text} after"}) == {step_id}


@pytest.mark.parametrize("text, fragment", [
    ("${step[x].data}", "not a whole number"),
    ("${step[4].data}", "names step 4 by position"),
    ("${steps.}", "expected a step id"),
    ("${steps[s1].data}", "quoted string"),
    ("${steps.s0.data.}", "expected a field name"),
    ("${steps.s0.data[one]}", "is not an index"),
    ("${steps.s0.data", "no closing"),
    ('${steps["s0.data}', "quoted string"),
])
def test_malformed_references_say_what_is_wrong(text, fragment):
    with pytest.raises(ReferenceSyntaxError, match=fragment):
        find_references({"p": text})


def test_find_references_in_nested_params():
    refs = find_references({"a": ["${steps.s0.data.*.id}", {"b": "x ${steps.s1.count} y"}], "c": 5})
    assert [(r.step, r.path_text) for r in refs] == [("s0", ".data.*.id"), ("s1", ".count")]


def test_resolve_whole_value_keeps_type_and_text_interpolates():
    params = {"ids": "${steps.s0.data.*.id}", "msg": "found ${steps.s0.count} rows", "n": 3}
    assert resolve_params(params, {"s0": ROWS}) == {"ids": ["F1", "F2"], "msg": "found 2 rows", "n": 3}
    assert resolve_params({"t": "${steps.s0.data.*.tags[0]}"}, {"s0": ROWS}) == {"t": ["a", "c"]}
    assert resolve_params({"t": " ${steps.s0.data[-1].id} "}, {"s0": ROWS}) == {"t": "F2"}
    assert resolve_params({"t": '${steps["odd id}"].count}'}, {"odd id}": ROWS}) == {"t": 2}


@pytest.mark.parametrize("text, fragment", [
    ("${steps.s1.data}", "step 's1' has no result"),
    ("${steps.s0.rows}", "no field 'rows'"),
    ("${steps.s0.data[5].id}", "out of range"),
    ("${steps.s0.count.*}", "needs a list"),
])
def test_resolution_errors(text, fragment):
    with pytest.raises(ReferenceResolutionError, match=fragment):
        resolve_params({"p": text}, {"s0": ROWS})


def test_check_path_against_output_schema():
    assert check_path(SCHEMA, ("data", MAP, "id")) is None
    assert check_path(SCHEMA, ("data", 0, "tags", MAP)) is None
    assert "has no field 'identifier'" in check_path(SCHEMA, ("data", MAP, "identifier"))
    assert "not a list" in check_path(SCHEMA, ("count", MAP))
    assert "has no field 'rows'" in check_path(SCHEMA, ("rows",))
    assert check_path({}, ("anything", MAP)) is None  # unknown output: cannot rule it out


def test_a_plan_read_with_positions_names_the_same_steps_by_id():
    plan = Plan.model_validate({"steps": [
        {"id": "a", "tool": "t"}, {"id": "odd id", "tool": "t"},
        {"id": "c", "tool": "t", "params": {"x": "${step[1].data} and ${step[0].count}", "y": "${step[9].data}"}}]})
    # a position past the end names no step, and no step added later either
    assert plan.steps[2].params == {"x": '${steps["odd id"].data} and ${steps.a.count}',
                                    "y": '${steps["step[9]"].data}'}
    # and back, for the formats that speak positions
    assert positions_for_ids(plan.steps[2].params, {"a": 0, "odd id": 1}) == {
        "x": "${step[1].data} and ${step[0].count}", "y": '${steps["step[9]"].data}'}


def test_conversions_read_malformed_references_too():
    # ``${step[1].data.`` still names step 1: converted, so it is never lost track of
    assert ids_for_positions({"p": "${step[1].data."}, ["a", "b"]) == {"p": "${steps.b.data."}
    assert referenced_step_ids({"p": "${steps.b.data."}) == {"b"}


def test_renamed_steps_renames_only_the_named_ids():
    params = {"q": "${steps.a.data} and ${steps.b.data}"}
    assert renamed_steps(params, {"a": "b", "b": "fresh id"}) == {"q": '${steps.b.data} and ${steps["fresh id"].data}'}

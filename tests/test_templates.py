import pytest

from core import ReferenceResolutionError, ReferenceSyntaxError, find_references, parse_reference, resolve_params
from core._templates import MAP, check_path, rewrite_step_indexes

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
    ref = parse_reference("${step[0].data.*.id}")
    assert (ref.step, ref.path) == (0, ("data", MAP, "id"))
    ref = parse_reference("${step[12].data[1]['id']}")
    assert (ref.step, ref.path) == (12, ("data", 1, "id"))
    assert parse_reference("${step[3]}").path == ()


@pytest.mark.parametrize("text, fragment", [
    ("${step[x].data}", "not a whole number"),
    ("${step[0].data.}", "expected a field name"),
    ("${step[0].data[one]}", "is not an index"),
    ("${step[0].data", "no closing"),
])
def test_malformed_references_say_what_is_wrong(text, fragment):
    with pytest.raises(ReferenceSyntaxError, match=fragment):
        find_references({"p": text})


def test_find_references_in_nested_params():
    refs = find_references({"a": ["${step[0].data.*.id}", {"b": "x ${step[1].count} y"}], "c": 5})
    assert [(r.step, r.path_text) for r in refs] == [(0, ".data.*.id"), (1, ".count")]


def test_resolve_whole_value_keeps_type_and_text_interpolates():
    params = {"ids": "${step[0].data.*.id}", "msg": "found ${step[0].count} rows", "n": 3}
    assert resolve_params(params, {0: ROWS}) == {"ids": ["F1", "F2"], "msg": "found 2 rows", "n": 3}
    assert resolve_params({"t": "${step[0].data.*.tags[0]}"}, {0: ROWS}) == {"t": ["a", "c"]}
    assert resolve_params({"t": "${step[0].data[-1].id}"}, {0: ROWS}) == {"t": "F2"}


@pytest.mark.parametrize("text, fragment", [
    ("${step[1].data}", "step 1 has no result"),
    ("${step[0].rows}", "no field 'rows'"),
    ("${step[0].data[5].id}", "out of range"),
    ("${step[0].count.*}", "needs a list"),
])
def test_resolution_errors(text, fragment):
    with pytest.raises(ReferenceResolutionError, match=fragment):
        resolve_params({"p": text}, {0: ROWS})


def test_check_path_against_output_schema():
    assert check_path(SCHEMA, ("data", MAP, "id")) is None
    assert check_path(SCHEMA, ("data", 0, "tags", MAP)) is None
    assert "has no field 'identifier'" in check_path(SCHEMA, ("data", MAP, "identifier"))
    assert "not a list" in check_path(SCHEMA, ("count", MAP))
    assert "has no field 'rows'" in check_path(SCHEMA, ("rows",))
    assert check_path({}, ("anything", MAP)) is None  # unknown output: cannot rule it out


def test_rewrite_step_indexes():
    params = {"a": "${step[2].data.*.id}", "b": "${step[0].count} and ${step[2].count}"}
    assert rewrite_step_indexes(params, {2: 1}) == {"a": "${step[1].data.*.id}",
                                                    "b": "${step[0].count} and ${step[1].count}"}


def test_rewrite_step_indexes_in_one_pass():
    params = {"q": "${step[0].data} and ${step[1].data}"}
    assert rewrite_step_indexes(params, {0: 1, 1: 2}) == {"q": "${step[1].data} and ${step[2].data}"}

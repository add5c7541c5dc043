"""Where things are in the Plan JSON text (``studio.ui._json_places``) and the two forms of a
reference in it (``core.text_with_positions`` / ``text_with_ids``): what the code editor marks
and what its toggle shows."""

from __future__ import annotations

from core import Plan, Step, dump_plan, load_plan, text_with_ids, text_with_positions
from studio.ui._json_places import field_path, json_places, where_said
from studio.ui.plan._json_panel import describe_path

PLAN = Plan(goal="g", steps=[Step(id="fac", tool="facilities_list", params={"location": "Berlin"}),
                             Step(id="ship", tool="shipments_list",
                                  params={"facility_id": "${steps.fac.data.*.id}", "ids": [1, 2]},
                                  depends_on=["fac"], note="not a ${steps.fac} reference")])


def _line_of(text: str, fragment: str, nth: int = 0) -> int:
    return [n for n, line in enumerate(text.split("\n"), start=1) if fragment in line][nth]


def test_a_problems_step_and_field_are_found_on_their_line_and_column() -> None:
    text = dump_plan(PLAN, "native")
    places = json_places(text)
    line = _line_of(text, '"facility_id"')
    assert places.find(field_path(1, "params.facility_id")) == (line, text.split("\n")[line - 1].index('"') + 1)
    # An item of a list is its own line; a field the step lacks is found at its nearest parent.
    ids_line = _line_of(text, '"ids"')
    assert places.find(field_path(1, "params.ids[1]")) == (ids_line + 2, text.split("\n")[ids_line + 1].index("2") + 1)
    assert places.find(field_path(1, "params.limit")) == places.find(field_path(1, "params"))
    assert places.find(field_path(1, "tool"))[0] == _line_of(text, '"shipments_list"')
    # pydantic's own path, with no step index
    assert places.find(field_path(None, "steps.0.tool"))[0] == _line_of(text, '"facilities_list"')


def test_places_survive_text_that_does_not_parse_and_name_where_an_error_is() -> None:
    text = dump_plan(PLAN, "native").replace('"tool": "shipments_list",', '"tool": "shipments_list"')
    try:
        load_plan(text, "native")
    except Exception as exc:  # noqa: BLE001 - only its message is wanted
        said = where_said(str(exc))
    assert said is not None and said[0] == _line_of(text, '"tool": "shipments_list"') + 1
    path = json_places(text).path_at(*said)
    assert describe_path(path) == "step 1 · tool"
    assert describe_path(("steps", "2", "params", "ids", "0")) == "step 2 · params.ids[0]"
    assert describe_path(()) == "the plan"


def test_references_switch_between_ids_and_positions_and_read_as_the_same_plan() -> None:
    text = dump_plan(PLAN, "native")
    ids = [s.id for s in PLAN.steps]
    by_position = text_with_positions(text, ids)
    assert "${step[0].data.*.id}" in by_position
    assert text_with_ids(by_position, ids) == text
    # The note's look-alike changes too at the text level: the reader must check the plan
    # (studio.ui._actions does, and keeps the text by id when it differs).
    assert load_plan(by_position, "native").step("ship").note == "not a ${step[0]} reference"
    plain = PLAN.model_copy(update={"steps": [PLAN.steps[0], PLAN.steps[1].model_copy(update={"note": None})]})
    plain_text = dump_plan(plain, "native")
    assert load_plan(text_with_positions(plain_text, ids), "native") == load_plan(plain_text, "native")
    # A position past the end and an id not in the plan stay as written.
    assert text_with_ids("${step[5].x}", ids) == "${step[5].x}"
    assert text_with_positions("${steps.gone.x}", ids) == "${steps.gone.x}"

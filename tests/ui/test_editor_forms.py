"""The plan editor through AppTest: building a plan from an empty one with the toolbar and the
step inspector (its fields generated from each tool's JSON schema), invalid input shown on its
field and not applied, undo and redo, deleting a step others need, and comparing versions.

The graph itself (clicks, drawn edges, keys) is a components-v2 element AppTest cannot drive:
tests/browser/test_browser_editor.py drives it in Chromium; here its events go through the same
handler the graph's callback calls.
"""

from __future__ import annotations

import json

import datetime as dt

from streamlit.testing.v1 import AppTest

from core import Plan
from studio import Keys

from apptest_helpers import make_plan, no_failures, texts
from test_graph import drawn_graphs


def field_key(app: AppTest, step_id: str, name: str, part: str = "") -> str:
    """The key of a field of the inspector as drawn now (keys end with the editor's revision)."""
    revision = app.session_state[Keys.BENCH].revision
    return f"{Keys.EDITOR_FIELD_PREFIX}{step_id}.{name}{'.' + part if part else ''}.{revision}"


def plan(app: AppTest) -> Plan:
    return app.session_state[Keys.BENCH].plan


def add_step(app: AppTest, tool: str) -> str:
    """Press Add step, pick ``tool``, press Add; the id of the new (selected) step."""
    app.button(key="editor.add").click().run()
    app.selectbox(key=Keys.EDITOR_TOOL).set_value(tool)
    app.button(key="editor.picker.add").click().run()
    no_failures(app)
    selected = app.session_state[Keys.EDITOR_SELECTED]
    assert plan(app).step(selected).tool == tool
    return selected


def start_empty(app: AppTest) -> None:
    app.text_input(key=Keys.GOAL).input("Get facilities in Berlin, then their shipments, then check for contaminants")
    app.button(key="editor.empty").click().run()
    no_failures(app)
    assert plan(app).steps == []


def test_example_7_is_built_from_an_empty_plan_with_the_form(app: AppTest) -> None:
    start_empty(app)
    facilities = add_step(app, "facilities_list")
    # The inspector, headed "Step", has one field per param, labelled with the param's name.
    assert any(h.value == "Step" for h in app.subheader)
    assert app.text_input(key=field_key(app, facilities, "location")).label == "location"
    assert app.selectbox(key=field_key(app, facilities, "type")).label == "type"
    assert app.toggle(key=field_key(app, facilities, "near_capacity")).label == "near_capacity"
    limit = app.number_input(key=field_key(app, facilities, "limit"))
    assert limit.label == "limit" and limit.min == 1
    assert "City the facility is in" in app.text_input(key=field_key(app, facilities, "location")).help
    app.text_input(key=field_key(app, facilities, "location")).input("Berlin").run()
    no_failures(app)
    assert plan(app).step(facilities).params == {"location": "Berlin"}

    shipments = add_step(app, "shipments_list")
    assert app.date_input(key=field_key(app, shipments, "date_from")).label == "date_from"
    app.selectbox(key=field_key(app, shipments, "facility_id", "source")).set_value(facilities).run()
    no_failures(app)
    assert plan(app).step(shipments).params == {"facility_id": f"${{steps.{facilities}.data.*.id}}"}
    # The picked reference is a dependency in the JSON too, as the graph draws it.
    assert json.loads(app.text_area(key=Keys.JSON).value)["steps"][1]["depends_on"] == [facilities]
    # The path picker offers only paths that exist and fit: lists of text, or one text.
    paths = app.selectbox(key=field_key(app, shipments, "facility_id")).options
    assert "data.*.id" in paths and "data.*.capacity_tonnes" not in paths and "count" not in paths
    assert "not yet run" in texts(app)

    contaminants = add_step(app, "contaminants_list")
    app.selectbox(key=field_key(app, contaminants, "shipment_ids", "source")).set_value(shipments).run()
    no_failures(app)
    assert plan(app).step(contaminants).params == {"shipment_ids": f"${{steps.{shipments}.data.*.id}}"}
    # One state: the JSON panel shows the plan the form made, and the graph has its two edges.
    assert f"${{steps.{shipments}.data.*.id}}" in app.text_area(key=Keys.JSON).value  # the panel speaks ids
    assert plan(app).edges() == [(facilities, shipments), (shipments, contaminants)]
    assert app.session_state[Keys.BENCH].history.undo_depth == 6


def test_a_date_picker_and_an_enum_select_set_iso_text_and_allowed_values(app: AppTest) -> None:
    start_empty(app)
    step = add_step(app, "shipments_list")
    app.date_input(key=field_key(app, step, "date_from")).set_value(dt.date(2025, 10, 5)).run()
    app.selectbox(key=field_key(app, step, "status")).set_value("rejected").run()
    app.toggle(key=field_key(app, step, "has_contaminants")).set_value(True).run()
    no_failures(app)
    assert plan(app).step(step).params == {"date_from": "2025-10-05", "status": "rejected", "has_contaminants": True}
    app.selectbox(key=field_key(app, step, "status")).set_value("(not set)").run()
    assert "status" not in plan(app).step(step).params


def test_a_value_of_the_wrong_type_is_shown_on_its_field_and_not_applied(app: AppTest) -> None:
    start_empty(app)
    step = add_step(app, "shipments_list")
    before = plan(app)
    app.text_input(key=field_key(app, step, "facility_id")).input("[1, 2]").run()
    no_failures(app)
    assert plan(app) == before  # not applied
    [error] = [e.value.replace("\\", "") for e in app.error]
    assert "facility_id" in error and "Not applied" in error
    # The text stays in the field to be fixed.
    assert app.text_input(key=field_key(app, step, "facility_id")).value == "[1, 2]"


def test_undo_and_redo_step_through_each_edit(app: AppTest) -> None:
    start_empty(app)
    step = add_step(app, "facilities_list")
    app.text_input(key=field_key(app, step, "location")).input("Berlin").run()
    app.text_input(key=field_key(app, step, "location")).input("Munich").run()
    app.button(key="editor.undo").click().run()
    assert plan(app).step(step).params == {"location": "Berlin"}
    assert '"Berlin"' in app.text_area(key=Keys.JSON).value
    app.button(key="editor.undo").click().run()
    app.button(key="editor.undo").click().run()
    assert plan(app).steps == [] and app.button(key="editor.undo").disabled
    app.button(key="editor.redo").click().run()
    app.button(key="editor.redo").click().run()
    assert plan(app).step(step).params == {"location": "Berlin"}


def test_deleting_a_step_others_need_asks_first_and_names_them(app: AppTest) -> None:
    made = make_plan(app)  # facilities -> shipments
    first = made.steps[0].id
    app.session_state[Keys.EDITOR_SELECTED] = first
    app.run()
    app.button(key="editor.delete_step").click().run()
    no_failures(app)
    assert len(plan(app).steps) == len(made.steps)  # nothing deleted yet
    assert "step 1 (shipments_list) uses its output in params.facility_id" in texts(app)
    app.button(key="editor.delete_choice.unlink").click().run()
    no_failures(app)
    assert [s.tool for s in plan(app).steps] == ["shipments_list"]
    assert "facility_id" not in plan(app).steps[0].params
    app.button(key="editor.undo").click().run()
    assert plan(app) == made


def test_compare_versions_shows_added_removed_and_changed_steps_param_by_param(app: AppTest) -> None:
    made = make_plan(app)
    app.button(key="plan.save").click().run()
    first = made.steps[0].id
    app.session_state[Keys.EDITOR_SELECTED] = first
    app.run()
    app.text_input(key=field_key(app, first, "location")).input("Munich").run()
    add_step(app, "inspections_list")
    app.button(key="plan.save").click().run()
    no_failures(app)
    # Version 1 against the plan being edited (version 2).
    app.selectbox(key=Keys.EDITOR_COMPARE_OLD).set_value(1).run()
    app.selectbox(key=Keys.EDITOR_COMPARE_NEW).set_value("current").run()
    no_failures(app)
    said = texts(app)
    assert "location: 'Berlin' → 'Munich'" in said
    added = app.session_state[Keys.BENCH].plan.steps[2]
    assert f"+ inspections_list · {added.id}" in said  # by label: tool and short id
    compared = [g for g in drawn_graphs(app) if "added" in g["statuses"]]
    assert compared and compared[0]["statuses"] == ["changed", "same", "added"]


def test_approving_a_replan_shows_what_it_changed_first(app: AppTest) -> None:
    make_plan(app)
    app.text_area(key=Keys.FEEDBACK).input("only high-risk shipments")
    app.button(key="plan.replan").click().run()
    no_failures(app)
    app.button(key="plan.approve").click().run()
    assert app.session_state[Keys.BENCH].approved is None  # not yet: the changes come first
    said = texts(app)
    assert "this plan is a re-plan of version 1, asked for: “only high-risk shipments”" in said
    assert "risk_level set to 'high'" in said
    app.button(key="editor.approve_diff.confirm").click().run()
    no_failures(app)
    assert app.session_state[Keys.BENCH].approved is not None

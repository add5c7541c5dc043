"""Plan formats from the source material: Semantic Kernel XML, Teams AI DO/SAY, Mermaid,
and the seed JSON's notes. Uses its own small registry, so it does not depend on the
built-in tool modules."""

from __future__ import annotations

import datetime as dt
import json
import re
import xml.etree.ElementTree as ET
from typing import Any, Literal

import pytest

from core.plan._positions import positions_for_ids

from core import (
    FORMATS,
    Executor,
    Plan,
    PlanFormatError,
    Step,
    StepStatus,
    ToolRegistry,
    dump_plan,
    load_plan,
    resolve_params,
)
from core.formats import sk_plugin_name, unset_variable_uses

SK_EXAMPLE = """<plan>
  <!-- Write a poem about today and translate it -->
  <function.WriterPlugin.ShortPoem input="$TODAY_TOPIC" setContextVariable="POEM"/>
  <function.WriterPlugin.Translate input="$POEM" language="French" appendToResult="RESULT__TRANSLATED_POEM"/>
</plan>"""

TEAMS_EXAMPLE = json.dumps({"type": "plan", "commands": [
    {"type": "DO", "action": "createList", "parameters": {"list": "groceries"}},
    {"type": "DO", "action": "addItem", "parameters": {"list": "groceries", "item": "milk"}},
    {"type": "SAY", "response": "I've added milk to your groceries list."},
]})


# -- a registry with the tools' names, groups and types ---------------------------------
def build_registry() -> ToolRegistry:
    registry = ToolRegistry()

    def facilities_list(location: str | None = None,
                        type: Literal["recycling", "sorting", "composting", "incineration", "landfill"] | None = None,
                        near_capacity: bool | None = None, limit: int = 100) -> dict[str, Any]:
        """List waste facilities.

        Args:
            location: City.
            type: Kind of facility.
            near_capacity: Utilization of 90% or more.
            limit: Maximum rows.
        """
        rows = [{"id": "F1", "location": "Berlin"}, {"id": "F2", "location": "Berlin"},
                {"id": "F3", "location": "Munich"}]
        rows = [r for r in rows if location in (None, r["location"])][:limit]
        return {"data": rows, "count": len(rows)}

    def shipments_list(date_from: dt.date | None = None, date_to: dt.date | None = None,
                       has_contaminants: bool | None = None,
                       facility_id: str | list[str] | None = None, limit: int = 100) -> dict[str, Any]:
        """List shipments.

        Args:
            date_from: Earliest date.
            date_to: Latest date.
            has_contaminants: Contaminated only.
            facility_id: Facility id or ids.
            limit: Maximum rows.
        """
        ids = [facility_id] if isinstance(facility_id, str) else facility_id
        rows = [{"id": f"S-{f}", "facility_id": f} for f in (ids or ["F1"])]
        return {"data": rows[:limit], "count": len(rows[:limit])}

    def contaminants_list(shipment_ids: list[str] | None = None,
                          facility_id: str | list[str] | None = None, limit: int = 100) -> dict[str, Any]:
        """List contaminants.

        Args:
            shipment_ids: Shipments.
            facility_id: Facility id or ids.
            limit: Maximum rows.
        """
        return {"data": [], "count": 0}

    def inspections_list(result: Literal["passed", "failed"] | None = None, limit: int = 100) -> dict[str, Any]:
        """List inspections.

        Args:
            result: Outcome.
            limit: Maximum rows.
        """
        return {"data": [], "count": 0}

    def ShortPoem(input: str) -> str:
        """Write a short poem.

        Args:
            input: Topic.
        """
        return f"A poem about {input}"

    def Translate(input: str, language: str) -> str:
        """Translate text.

        Args:
            input: Text.
            language: Target language.
        """
        return f"[{language}] {input}"

    def createList(list: str) -> dict[str, Any]:
        """Create a list.

        Args:
            list: Name.
        """
        return {"list": list, "items": []}

    def addItem(list: str, item: str) -> dict[str, Any]:
        """Add an item.

        Args:
            list: Name.
            item: Item.
        """
        return {"list": list, "items": [item]}

    def removeItem(list: str, item: str) -> dict[str, Any]:
        """Remove an item.

        Args:
            list: Name.
            item: Item.
        """
        return {"list": list, "items": []}

    def showList(list: str) -> dict[str, Any]:
        """Show a list.

        Args:
            list: Name.
        """
        return {"list": list, "items": []}

    def deleteList(list: str) -> dict[str, Any]:
        """Delete a list.

        Args:
            list: Name.
        """
        return {"list": list, "deleted": True}

    def say(message: str) -> dict[str, str]:
        """Say something to the user.

        Args:
            message: What to say.
        """
        return {"message": message}

    for group, funcs in {
        "waste": [facilities_list, shipments_list, contaminants_list, inspections_list],
        "writer": [ShortPoem, Translate],
        "lists": [createList, addItem, removeItem, showList, deleteList],
        "conversation": [say],
    }.items():
        for func in funcs:
            registry.register(func, group=group)
    return registry


@pytest.fixture
def registry() -> ToolRegistry:
    return build_registry()


def shape(plan: Plan) -> dict[str, Any]:
    """Everything about a plan except its step ids; dependencies and references as indexes."""
    plan = Plan.model_validate(plan.model_dump())  # steps appended in place read as a plan reads them
    index = {s.id: n for n, s in enumerate(plan.steps)}
    return {
        "goal": plan.goal,
        "metadata": plan.metadata.model_dump(mode="json"),
        "steps": [{
            "tool": s.tool, "params": positions_for_ids(s.params, index), "parallel": s.parallel, "note": s.note,
            "format_data": s.format_data, "result_key": s.result_key, "locked": s.locked,
            "depends_on": [index[d] for d in plan.dependencies_of(s.id)],
        } for s in plan.steps],
    }


def berlin_plan() -> Plan:
    """Facilities in Berlin → their contaminated shipments → those shipments' contaminants."""
    return Plan(goal="Get contaminated shipments from Berlin facilities and their contaminants", steps=[
        Step(id="a", tool="facilities_list", params={"location": "Berlin"}, note="Berlin first"),
        Step(id="b", tool="shipments_list", depends_on=["a"],
             params={"facility_id": "${step[0].data.*.id}", "has_contaminants": True,
                     "date_from": "2025-10-05", "date_to": "2025-10-12", "limit": 100}),
        Step(id="c", tool="contaminants_list", depends_on=["b"],
             params={"shipment_ids": "${step[1].data.*.id}"}),
    ], metadata={"planner": "embedded", "today": "2025-10-12", "created_at": "2025-10-12T08:00:00Z"})


def parallel_plan() -> Plan:
    return Plan(goal="Get shipments, facilities, and inspections", steps=[
        Step(tool="shipments_list", params={"limit": 100}, parallel=True),
        Step(tool="facilities_list", params={}, parallel=True),
        Step(tool="inspections_list", params={"result": "failed", "limit": 5}, parallel=True),
    ], metadata={"planner": "embedded", "today": "2025-10-12", "created_at": "2025-10-12T08:00:00Z"})


def writer_plan() -> Plan:
    return Plan(goal="A poem about the sea, in French and German", steps=[
        Step(tool="ShortPoem", params={"input": "the sea"}),
        Step(tool="Translate", params={"input": "${step[0]}", "language": "French"}, result_key="RESULT__FR"),
        Step(tool="Translate", params={"input": "Poem: ${step[0]}!", "language": "German"},
             note="German too"),
    ])


def elements(xml_text: str) -> list[ET.Element]:
    """The function elements (ElementTree drops the comments)."""
    return list(ET.fromstring(xml_text))


# -- the registry of formats ----------------------------------------------------------
def test_registry_lists_every_format_and_mermaid_is_export_only() -> None:
    assert {"native", "seed", "sk", "teams", "mermaid"} <= set(FORMATS)
    assert (FORMATS["sk"].label, FORMATS["sk"].suffix) == ("Semantic Kernel XML plan", ".xml")
    assert (FORMATS["teams"].label, FORMATS["teams"].suffix) == ("Teams AI DO/SAY plan", ".json")
    assert (FORMATS["mermaid"].label, FORMATS["mermaid"].suffix) == ("Mermaid flowchart (export only)", ".mmd")
    assert FORMATS["mermaid"].load is None and FORMATS["mermaid"].dump is not None
    for name in ("sk", "teams"):
        assert FORMATS[name].load is not None and FORMATS[name].dump is not None
    with pytest.raises(PlanFormatError, match="exported but not imported"):
        load_plan("flowchart LR", "mermaid")


# -- Semantic Kernel: import ----------------------------------------------------------
@pytest.mark.parametrize("with_registry", [True, False])
def test_sk_example_imports_as_steps_with_variables(with_registry: bool) -> None:
    plan = load_plan(SK_EXAMPLE, "sk", build_registry() if with_registry else None)
    poem, translate = plan.steps
    assert (poem.tool, translate.tool) == ("ShortPoem", "Translate")
    assert poem.format_data == {"sk": {"output_var": "POEM"}} and poem.result_key is None
    assert translate.result_key == "RESULT__TRANSLATED_POEM" and translate.format_data == {}
    # $POEM is set by step 0: a reference to its whole output. No step sets $TODAY_TOPIC:
    # it stays as written, and the plan says so for the validator to report.
    assert translate.params == {"input": f"${{steps.{poem.id}}}", "language": "French"}
    assert poem.params == {"input": "$TODAY_TOPIC"}
    assert plan.metadata.model_extra == {"sk_unset_variables": ["TODAY_TOPIC"]}
    assert poem.note == "Write a poem about today and translate it"
    assert translate.note is None
    assert plan.edges() == [(poem.id, translate.id)]
    assert translate.depends_on == [poem.id]


def test_sk_imported_plan_runs_and_passes_the_poem_along(registry: ToolRegistry) -> None:
    plan = load_plan(SK_EXAMPLE, "sk", registry)
    # Nothing sets $TODAY_TOPIC: as in SK, the tool gets the text, with a warning at the step.
    run = Executor(registry).execute(plan)
    assert run.steps[plan.steps[0].id].arguments == {"input": "$TODAY_TOPIC"}
    plan.steps[0].params["input"] = "autumn"
    run = Executor(registry).execute(plan)
    first, second = (run.steps[s.id] for s in plan.steps)
    assert first.status == second.status == StepStatus.succeeded
    assert second.arguments == {"input": "A poem about autumn", "language": "French"}
    assert second.result == "[French] A poem about autumn"


def test_sk_variables_inside_text_latest_setter_and_case() -> None:
    text = """<plan>
      <function.P.a input="Berlin" setContextVariable="CITY"/>
      <function.P.b input="x" setContextVariable="city"/>
      <function.P.c input="Tell me about $CITY and $Unknown, not ${step[0].data}" other="$CITY"/>
      <function.P.d input="$LATER"/>
      <function.P.e input="z" setContextVariable="LATER"/>
    </plan>"""
    plan = load_plan(text, "sk")
    c, d = plan.steps[2], plan.steps[3]
    # SK variables ignore case, and the latest earlier step that set one wins.
    assert positions_for_ids(c.params, {s.id: n for n, s in enumerate(plan.steps)}) == {
        "input": "Tell me about ${step[1]} and $Unknown, not ${step[0].data}", "other": "${step[1]}"}
    assert resolve_params(c.params, {plan.steps[0].id: {"data": [1]}, plan.steps[1].id: "Paris"}) == {
        "input": "Tell me about Paris and $Unknown, not [1]", "other": "Paris"}
    # A variable set only by a later step is unset at this point, as in SK.
    assert d.params == {"input": "$LATER"}
    assert c.note is None and d.note is None
    assert plan.metadata.model_extra == {"sk_unset_variables": ["Unknown", "LATER"]}
    assert list(unset_variable_uses(plan)) == [(2, "input", "$Unknown"), (3, "input", "$LATER")]
    assert [plan.index_of(i) for i in plan.dependencies_of(c.id)] == [0, 1]


def test_sk_names_match_the_registry_ignoring_case_and_plugin_forms() -> None:
    registry = build_registry()

    def Add(a: int, b: int) -> int:
        """Add.

        Args:
            a: First.
            b: Second.
        """
        return a + b

    registry.register(Add, name="MathPlugin_Add", group="math")
    text = """<plan>
      <function.writerplugin.shortpoem input="rain"/>
      <function.MathPlugin.Add a="1" b="2"/>
      <function.Other.NoSuchTool x="1"/>
    </plan>"""
    plan = load_plan(text, "sk", registry)
    assert [s.tool for s in plan.steps] == ["ShortPoem", "MathPlugin_Add", "NoSuchTool"]
    assert plan.steps[1].params == {"a": 1, "b": 2}


def test_sk_json_values_are_decoded_and_the_schema_keeps_strings(registry: ToolRegistry) -> None:
    text = """<plan>
      <function.WastePlugin.facilities_list location="100" near_capacity="true" limit="7"/>
      <function.WastePlugin.shipments_list facility_id='["F1", "F2"]' date_from="2025-10-01"/>
      <function.WriterPlugin.ShortPoem input="true"/>
    </plan>"""
    plan = load_plan(text, "sk", registry)
    assert plan.steps[0].params == {"location": "100", "near_capacity": True, "limit": 7}
    assert plan.steps[1].params == {"facility_id": ["F1", "F2"], "date_from": "2025-10-01"}
    assert plan.steps[2].params == {"input": "true"}  # ShortPoem's input is text
    # Without a registry there is no schema: JSON-looking values are decoded.
    bare = load_plan(text, "sk")
    assert bare.steps[0].params["location"] == 100 and bare.steps[2].params["input"] is True


def test_sk_comments_become_notes_and_loose_comments_are_kept() -> None:
    text = """<?xml version="1.0"?>
<!-- made by hand -->
<plan>
  <function.P.a x="1"/>
  <!-- why b: -->
  <!-- it needs a -->
  <function.P.b x="2"><!-- inside b --></function.P.b>
  <!-- the end -->
</plan>"""
    plan = load_plan(text, "sk")
    assert plan.steps[0].note is None
    assert plan.steps[1].note == "why b:\nit needs a\ninside b"
    assert plan.metadata.model_dump()["comments"] == ["made by hand", "the end"]
    again = load_plan(dump_plan(plan, "sk"), "sk")
    assert shape(again) == shape(plan)


def test_sk_plan_wrapped_in_prose_is_found() -> None:
    text = "Sure! Here is the plan:\n```xml\n" + SK_EXAMPLE + "\n```\nHope it helps."
    plan = load_plan(text, "sk")
    assert [s.tool for s in plan.steps] == ["ShortPoem", "Translate"]


@pytest.mark.parametrize("text, line, words", [
    ('<plan>\n  <function.P.a x="1"/>\n  <function.P.b x=2/>\n</plan>', 3, "not well-formed"),
    ('<plan>\n  <function.P.a x="1">\n</plan>', 3, "mismatched tag"),
    ("<steps>\n  <function.P.a/>\n</steps>", 1, "root element must be <plan>"),
    ('<plan>\n  <function.P.a x="1" setContextVariable=""/>\n</plan>', 2, "setContextVariable"),
    ('<plan>\n  <function..a/>\n</plan>', 2, "function.Plugin.Name"),
    ('<plan>\n  <function.P.a x="${step[0}"/>\n</plan>', 2, "missing"),
    ('<?xml version="1.0"?>\n<!DOCTYPE plan [<!ENTITY a "aaaa">]>\n<plan/>', 2, "DOCTYPE"),
    ('<plan parallel="0 7">\n  <function.P.a/>\n</plan>', 1, "'7' is not the index of a step"),
])
def test_sk_malformed_input_names_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(PlanFormatError) as caught:
        load_plan(text, "sk")
    message = str(caught.value)
    assert message.startswith("sk: ")
    assert f"line {line}:" in message
    assert words in message


def test_sk_error_lines_count_from_the_start_of_a_wrapped_reply() -> None:
    text = "Plan:\n\n<plan>\n  <function.P.a/>\n  <function.P.b setContextVariable=''/>\n</plan>\nDone."
    with pytest.raises(PlanFormatError, match=r"line 5: setContextVariable"):
        load_plan(text, "sk")


# -- Semantic Kernel: export ----------------------------------------------------------
def test_sk_export_of_a_waste_plan_with_references(registry: ToolRegistry) -> None:
    plan = berlin_plan()
    text = dump_plan(plan, "sk", registry)
    root = ET.fromstring(text)
    assert root.tag == "plan" and root.get("goal") == plan.goal
    functions = list(root)
    assert [e.tag for e in functions] == ["function.WastePlugin.facilities_list",
                                          "function.WastePlugin.shipments_list",
                                          "function.WastePlugin.contaminants_list"]
    assert functions[0].attrib == {"location": "Berlin"}
    # A path into an output has no SK syntax: the reference text is written as it is.
    assert functions[1].attrib == {"facility_id": "${step[0].data.*.id}", "has_contaminants": "true",
                                   "date_from": "2025-10-05", "date_to": "2025-10-12", "limit": "100"}
    assert functions[2].attrib == {"shipment_ids": "${step[1].data.*.id}"}
    assert "<!-- Berlin first -->" in text
    assert shape(load_plan(text, "sk", registry)) == shape(plan)
    # Without a registry the plugin is unknown.
    assert ET.fromstring(dump_plan(plan, "sk"))[0].tag == "function.Plugin.facilities_list"


def test_sk_plugin_names_from_groups() -> None:
    assert [sk_plugin_name(g) for g in ("writer", "lists", "waste", "conversation", "my_tools", None)] == [
        "WriterPlugin", "ListPlugin", "WastePlugin", "ConversationPlugin", "MyToolsPlugin", "Plugin"]


def test_sk_export_names_whole_outputs_as_variables(registry: ToolRegistry) -> None:
    plan = writer_plan()
    text = dump_plan(plan, "sk", registry)
    poem, french, german = elements(text)
    assert poem.tag == "function.WriterPlugin.ShortPoem"
    assert poem.get("setContextVariable") == "STEP_0_OUTPUT"
    assert french.attrib == {"input": "$STEP_0_OUTPUT", "language": "French", "appendToResult": "RESULT__FR"}
    assert german.get("input") == "Poem: $STEP_0_OUTPUT!"
    # The invented variable name is not carried into the plan on import.
    assert shape(load_plan(text, "sk", registry)) == shape(plan)

    named = writer_plan()
    named.steps[0].format_data["sk"] = {"output_var": "POEM"}
    text = dump_plan(named, "sk", registry)
    assert elements(text)[1].get("input") == "$POEM"
    assert shape(load_plan(text, "sk", registry)) == shape(named)


def test_sk_export_keeps_a_reference_when_a_variable_is_overwritten() -> None:
    plan = Plan(steps=[
        Step(tool="a", format_data={"sk": {"output_var": "X"}}),
        Step(tool="b", format_data={"sk": {"output_var": "X"}}),
        Step(tool="c", params={"first": "${step[0]}", "second": "${step[1]}", "glued": "${step[1]}s"}),
    ])
    text = dump_plan(plan, "sk")
    c = elements(text)[2]
    # $X here would mean step 1; and "$Xs" would be a different variable.
    assert c.attrib == {"first": "${step[0]}", "second": "$X", "glued": "${step[1]}s"}
    assert shape(load_plan(text, "sk")) == shape(plan)


@pytest.mark.parametrize("make", [berlin_plan, parallel_plan, writer_plan])
def test_sk_round_trip(make: Any, registry: ToolRegistry) -> None:
    plan = make()
    assert shape(load_plan(dump_plan(plan, "sk", registry), "sk", registry)) == shape(plan)


def test_sk_round_trip_of_the_imported_example(registry: ToolRegistry) -> None:
    plan = load_plan(SK_EXAMPLE, "sk", registry)
    text = dump_plan(plan, "sk", registry)
    assert "$TODAY_TOPIC" in text and "$POEM" in text
    again = load_plan(text, "sk", registry)
    assert shape(again) == shape(plan)  # the input note is not added twice


def test_sk_xml_special_characters_survive(registry: ToolRegistry) -> None:
    tricky = 'a < b && c > "d" \'e\' ]]> <!-- x --> \n\ttab'
    plan = Plan(goal='Goal with <tags> & "quotes"', steps=[
        Step(tool="facilities_list", params={"location": tricky}, note="a -- note with <xml> & ending -"),
        Step(tool="Translate", params={"input": "${step[0].data}", "language": "<fr> & 'co'"},
             note="--> not the end"),
    ])
    text = dump_plan(plan, "sk", registry)
    ET.fromstring(text)  # well-formed
    assert shape(load_plan(text, "sk", registry)) == shape(plan)


def test_sk_export_refuses_what_xml_cannot_hold() -> None:
    with pytest.raises(PlanFormatError, match=r"step 0 \(a\): parameter 'bad name'"):
        dump_plan(Plan(steps=[Step(tool="a", params={"bad name": 1})]), "sk")
    with pytest.raises(PlanFormatError, match="step 0 \\(a\\): parameter 'setContextVariable'"):
        dump_plan(Plan(steps=[Step(tool="a", params={"setContextVariable": "X"})]), "sk")
    with pytest.raises(PlanFormatError, match="step 0 \\(a\\) x: character"):
        dump_plan(Plan(steps=[Step(tool="a", params={"x": "bell\x07"})]), "sk")


# -- Teams AI -------------------------------------------------------------------------
def test_teams_example_imports_do_and_say_each_after_the_one_before(registry: ToolRegistry) -> None:
    # Teams AI runs a plan's commands one after another: the parallel executor must too.
    plan = load_plan(TEAMS_EXAMPLE, "teams", registry)
    assert [(s.tool, s.params) for s in plan.steps] == [
        ("createList", {"list": "groceries"}),
        ("addItem", {"list": "groceries", "item": "milk"}),
        ("say", {"message": "I've added milk to your groceries list."}),
    ]
    ids = [s.id for s in plan.steps]
    assert [s.depends_on for s in plan.steps] == [[], [ids[0]], [ids[1]]]


def test_teams_say_step_shows_its_message_in_the_run(registry: ToolRegistry) -> None:
    plan = load_plan(TEAMS_EXAMPLE, "teams", registry)
    run = Executor(registry).execute(plan)
    say = run.steps[plan.steps[2].id]
    assert say.status == StepStatus.succeeded
    assert say.result == {"message": "I've added milk to your groceries list."}


def test_teams_accepts_entities_message_objects_and_notes() -> None:
    text = json.dumps({"type": "plan", "commands": [
        {"type": "DO", "action": "addItem", "entities": {"list": "chores", "item": "dishes"},
         "description": "add the chore"},
        {"type": "SAY", "response": {"role": "assistant", "content": "Done."}, "note": "confirm"},
        {"type": "SAY", "response": {"text": "Anything else?"}},
        {"type": "do", "action": "showList"},
    ]})
    plan = load_plan(text, "teams")
    assert [(s.tool, s.params, s.note) for s in plan.steps] == [
        ("addItem", {"list": "chores", "item": "dishes"}, "add the chore"),
        ("say", {"message": "Done."}, "confirm"),
        ("say", {"message": "Anything else?"}, None),
        ("showList", {}, None),
    ]


@pytest.mark.parametrize("commands, message", [
    ([{"type": "DO", "action": "a"}, {"type": "SAY", "response": "x"}, {"type": "DO", "parameters": {}}],
     "commands[2]: DO needs an 'action'"),
    ([{"type": "SAY"}], "commands[0]: SAY needs a 'response'"),
    ([{"type": "ASK", "question": "?"}], "commands[0].type: 'ASK' is not a command type"),
    ([{"type": "DO", "action": "a", "parameters": ["x"]}], "commands[0].parameters must be an object"),
    ([{"type": "DO", "action": "a", "parameters": {}, "entities": {}}], "commands[0]: give 'parameters' or 'entities'"),
    ([{"type": "DO", "action": "a", "params": {}}], "commands[0] has unknown fields for DO: params"),
    ([{"type": "SAY", "response": {"content": 5}}], "commands[0].response.content must be text"),
    (["DO a"], "commands[0] must be an object"),
])
def test_teams_errors_name_the_command_and_field(commands: list[Any], message: str) -> None:
    with pytest.raises(PlanFormatError) as caught:
        load_plan(json.dumps({"type": "plan", "commands": commands}), "teams")
    assert str(caught.value).startswith(f"teams: {message}")


def test_teams_bad_json_and_bad_plan() -> None:
    with pytest.raises(PlanFormatError, match="line 2"):
        load_plan('{"type": "plan",\n "commands": [}', "teams")
    with pytest.raises(PlanFormatError, match="'commands' must be a list"):
        load_plan('{"type": "plan"}', "teams")
    with pytest.raises(PlanFormatError, match="a Teams AI plan has type 'plan'"):
        load_plan('{"type": "DO", "commands": []}', "teams")


def test_teams_export_of_a_waste_plan_keeps_references_as_text(registry: ToolRegistry) -> None:
    plan = berlin_plan()
    data = json.loads(dump_plan(plan, "teams", registry))
    assert data["type"] == "plan"
    assert [c["type"] for c in data["commands"]] == ["DO", "DO", "DO"]
    assert data["commands"][1] == {"type": "DO", "action": "shipments_list",
                                   "parameters": {**plan.steps[1].params, "facility_id": "${step[0].data.*.id}"}}
    assert data["commands"][0]["note"] == "Berlin first"
    again = load_plan(json.dumps(data), "teams", registry)
    assert shape(again) == shape(plan)  # references still link the steps
    assert [s.depends_on for s in again.steps] == [s.depends_on for s in plan.steps]


def test_teams_round_trip_with_say_steps(registry: ToolRegistry) -> None:
    plan = load_plan(TEAMS_EXAMPLE, "teams", registry)
    plan = plan.model_copy(update={"steps": [  # as the page's editor would: no re-validation
        plan.steps[0].model_copy(update={"note": "make the list"}), *plan.steps[1:],
        Step(tool="say", params={"message": "${step[1].items}"}), Step(tool="say", params={"message": "hi", "loud": True})]})
    data = json.loads(dump_plan(plan, "teams", registry))
    assert data["commands"][2] == {"type": "SAY", "response": "I've added milk to your groceries list."}
    assert data["commands"][3] == {"type": "SAY", "response": "${step[1].items}"}
    # A say that SAY cannot express stays a DO of the say tool.
    assert data["commands"][4] == {"type": "DO", "action": "say", "parameters": {"message": "hi", "loud": True}}
    assert shape(load_plan(dump_plan(plan, "teams", registry), "teams", registry)) == shape(plan)


# -- Mermaid --------------------------------------------------------------------------
def chain_plan() -> Plan:
    return Plan(steps=[
        Step(id="x", tool="facilities_list", params={"location": 'Ber"lin" [north] (x) #1 <b>'}),
        Step(id="y", tool="shipments_list", params={"facility_id": "${step[0].data.*.id}"}),
        Step(id="z", tool="contaminants_list", params={"shipment_ids": "${step[1].data.*.id}"}, parallel=True),
    ])


def test_mermaid_chain_has_exactly_the_plan_edges(registry: ToolRegistry) -> None:
    text = dump_plan(chain_plan(), "mermaid", registry)
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    assert [ln.strip() for ln in lines if "-->" in ln] == ["n0 --> n1", "n1 --> n2"]
    assert text == dump_plan(chain_plan(), "mermaid", registry)  # deterministic
    # One style class per tool group, and parallel steps marked.
    assert "  class n0,n1,n2 group_waste" in lines
    assert "  class n2 parallel" in lines


def test_mermaid_escapes_quotes_and_brackets_in_labels() -> None:
    text = dump_plan(chain_plan(), "mermaid")
    node = next(ln for ln in text.splitlines() if ln.strip().startswith("n0["))
    inner = node.strip()[len('n0["'):-len('"]')]
    assert node.strip().startswith('n0["') and node.strip().endswith('"]')
    # Inside the quoted label no raw quote, bracket, parenthesis, '#' code or markup is left.
    assert not re.search(r'["\[\]()<>{}]', inner.replace("<br/>", ""))
    assert "Ber#34;lin#34; #91;north#93; #40;x#41; #35;1 #60;b#62;" in inner
    reference = next(ln for ln in text.splitlines() if ln.strip().startswith("n1["))
    assert "$#123;step#91;0#93;.data.*.id#125;" in reference


def test_mermaid_without_steps_or_registry() -> None:
    assert dump_plan(Plan(), "mermaid") == "flowchart LR\n"
    text = dump_plan(parallel_plan(), "mermaid")
    assert "-->" not in text and "classDef group" not in text
    assert "  class n0,n1,n2 parallel" in text.splitlines()


# -- seed -----------------------------------------------------------------------------
def test_seed_import_keeps_note_or_description() -> None:
    text = json.dumps({"steps": [
        {"tool": "facilities_list", "params": {"location": "Berlin"}, "note": "find them"},
        {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"},
         "depends_on": [0], "description": "then their shipments"},
        {"tool": "inspections_list"},
    ]})
    plan = load_plan(text, "seed")
    assert [s.note for s in plan.steps] == ["find them", "then their shipments", None]


# -- format data kept apart from the core step ------------------------------------------------
# A plan as today's main (before formats kept their own data) wrote it: `Plan.model_dump_json`,
# every step field present, the SK variable name on the step itself.
MAIN_PLAN_JSON = (
    '{"goal":"A poem in French","steps":[{"id":"poem","tool":"ShortPoem","params":{"input":"Autumn"},'
    '"depends_on":[],"parallel":false,"note":null,"locked":false,"output_var":"POEM","result_key":null},'
    '{"id":"fr","tool":"Translate","params":{"input":"${step[0]}","language":"French"},'
    '"depends_on":["poem"],"parallel":false,"note":null,"locked":false,"output_var":null,'
    '"result_key":"RESULT__FR"}],"metadata":{"planner":"sk","created_at":"2026-11-01T09:00:00Z",'
    '"today":"2026-11-01"}}')


def test_a_plan_saved_with_sk_fields_on_the_step_loads_into_the_format_data() -> None:
    for plan in (Plan.model_validate_json(MAIN_PLAN_JSON), load_plan(MAIN_PLAN_JSON, "native")):
        poem, french = plan.steps
        assert "output_var" not in Step.model_fields
        assert poem.format_data == {"sk": {"output_var": "POEM"}} and french.format_data == {}
        assert (poem.result_key, french.result_key) == (None, "RESULT__FR")
        # The SK format finds its data where it now lives.
        assert elements(dump_plan(plan, "sk"))[1].get("input") == "$POEM"
        again = load_plan(dump_plan(plan, "native"), "native")
        assert again == plan and '"output_var": "POEM"' in dump_plan(plan, "native")


def test_an_old_step_field_of_the_wrong_type_is_refused_by_name() -> None:
    data = json.loads(MAIN_PLAN_JSON)
    data["steps"][0]["output_var"] = 5
    with pytest.raises(PlanFormatError, match=r"steps\.0.*output_var"):
        load_plan(json.dumps(data), "native")

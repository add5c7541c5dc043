"""Plans read as the projects that wrote them read them: Semantic Kernel's sequential planner,
Teams AI's planner (plan JSON and the older DO/SAY text) and LLMCompiler's plan text. Each
case is written here from the behaviour the original project documents (no text copied)."""

from __future__ import annotations

import json

import pytest

from core import FORMATS, Plan, PlanFormatError, Step, ToolRegistry, Validator, dump_plan, load_plan
from core.formats import export_plan
from test_formats import build_registry


@pytest.fixture
def registry() -> ToolRegistry:
    return build_registry()


# -- Semantic Kernel ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["WriterPlugin-ShortPoem", "WriterPlugin.ShortPoem"])
def test_sk_reads_python_and_dotnet_function_names(name: str, registry: ToolRegistry) -> None:
    plan = load_plan(f'<plan><function.{name} input="waves"/></plan>', "sk", registry)
    assert [s.tool for s in plan.steps] == ["ShortPoem"]
    assert plan.steps[0].params == {"input": "waves"}


def test_sk_skips_what_is_not_a_function_and_keeps_it_as_a_note(registry: ToolRegistry) -> None:
    plan = load_plan("""<plan>
      <goal>a poem</goal>
      <function.WriterPlugin.ShortPoem input="waves" setContextVariable="POEM"/>
      <step>translate it</step>
      <function.WriterPlugin.Translate input="$POEM" language="French"><extra/></function.WriterPlugin.Translate>
    </plan>""", "sk", registry)
    assert [s.tool for s in plan.steps] == ["ShortPoem", "Translate"]
    assert plan.steps[1].params == {"input": "${steps.s1}", "language": "French"}
    assert "a poem" in (plan.steps[0].note or "") and "<goal>" in (plan.steps[0].note or "")
    assert "translate it" in (plan.steps[1].note or "") and "<extra>" in (plan.steps[1].note or "")


def test_sk_closes_a_plan_left_open(registry: ToolRegistry) -> None:
    plan = load_plan("""Here is the plan:
<plan>
  <function.WriterPlugin.ShortPoem input="waves" setContextVariable="POEM"/>
  <function.WriterPlugin.Translate input="$POEM" language="French"/>""", "sk", registry)
    assert [s.tool for s in plan.steps] == ["ShortPoem", "Translate"]


def test_sk_hands_the_previous_output_on_as_input_when_none_is_given(registry: ToolRegistry) -> None:
    text = """<plan>
  <function.WriterPlugin.ShortPoem input="waves"/>
  <function.WriterPlugin.Translate language="French"/>
</plan>"""
    plan = load_plan(text, "sk", registry)
    assert plan.steps[1].params["input"] == "${steps.s1}"
    assert plan.dependencies_of(plan.steps[1].id) == [plan.steps[0].id]
    assert 'input=' not in dump_plan(plan, "sk", registry).splitlines()[2]  # still implicit
    assert export_plan(plan, "sk", registry).dropped == []


def test_an_unset_sk_variable_is_a_warning_naming_step_and_attribute(registry: ToolRegistry) -> None:
    plan = load_plan("""<plan>
  <function.WasteShipments.shipments_list facility_id='{"$filter": "x", "$top": 5}'/>
  <function.WriterPlugin.Translate input="$POEM" language="French"/>
</plan>""", "sk", registry)
    assert plan.steps[0].params["facility_id"] == '{"$filter": "x", "$top": 5}'  # kept as text
    problems = [p for p in Validator(registry).validate(plan) if "Semantic Kernel variable" in p.message]
    assert [(p.severity, p.step_index, p.field) for p in problems] == [
        ("warning", 0, "params.facility_id"), ("warning", 0, "params.facility_id"), ("warning", 1, "params.input")]
    assert "$top" in problems[1].message


# -- Teams AI ----------------------------------------------------------------------------
def test_teams_reads_the_older_text_syntax(registry: ToolRegistry) -> None:
    plan = load_plan('DO addItem list="groceries" item="milk" THEN DO showList list=groceries '
                     'THEN SAY Milk is on your list.', "teams", registry)
    assert [(s.tool, s.params) for s in plan.steps] == [
        ("addItem", {"list": "groceries", "item": "milk"}), ("showList", {"list": "groceries"}),
        ("say", {"message": "Milk is on your list."})]


def test_teams_text_before_the_first_command_is_said_and_text_without_any_is_refused() -> None:
    plan = load_plan("Sure. DO showList list=a", "teams")
    assert [(s.tool, s.params) for s in plan.steps] == [("say", {"message": "Sure."}), ("showList", {"list": "a"})]
    with pytest.raises(PlanFormatError, match="no plan found"):
        load_plan("Hello, how can I help?", "teams")


def test_teams_plan_inside_prose_first_plan_object_wins(registry: ToolRegistry) -> None:
    first = {"type": "plan", "commands": [{"type": "DO", "action": "showList", "parameters": {"list": "a"}}]}
    second = {"type": "plan", "commands": [{"type": "SAY", "response": "second"}]}
    text = f"Sure! {{\"note\": 1}} Here you go: {json.dumps(first)} and also {json.dumps(second)}"
    plan = load_plan(text, "teams", registry)
    assert [(s.tool, s.params) for s in plan.steps] == [("showList", {"list": "a"})]


@pytest.mark.parametrize("key", ["actionId", "action_id"])
def test_teams_action_id_is_kept_as_format_data(key: str, registry: ToolRegistry) -> None:
    text = json.dumps({"type": "plan", "commands": [
        {"type": "DO", "action": "showList", key: "call_1", "parameters": {"list": "a"}}]})
    plan = load_plan(text, "teams", registry)
    assert plan.steps[0].format_data == {"teams": {key: "call_1"}}
    assert json.loads(dump_plan(plan, "teams", registry))["commands"][0][key] == "call_1"


def test_teams_say_context_with_citations_is_kept_and_shown_in_the_run() -> None:
    from core import Executor
    from tools import conversation

    registry = ToolRegistry()
    conversation.register(registry, None)  # type: ignore[arg-type]  # the studio's own say tool
    context = {"intent": "answer", "citations": [{"title": "Guide", "url": "https://example.org/g",
                                                   "content": "Milk keeps a week."}]}
    text = json.dumps({"type": "plan", "commands": [
        {"type": "SAY", "response": {"role": "assistant", "content": "Milk keeps a week [1].",
                                     "context": context}}]})
    plan = load_plan(text, "teams", registry)
    assert plan.steps[0].params == {"message": "Milk keeps a week [1].", "citations": context["citations"]}
    assert plan.steps[0].format_data == {"teams": {"context": {"intent": "answer"}}}
    assert json.loads(dump_plan(plan, "teams", registry))["commands"][0]["response"]["context"] == context
    executor = Executor(registry)
    run = executor.start(plan)
    list(executor.run_all(run))
    assert run.steps[plan.steps[0].id].result["citations"] == context["citations"]


def test_teams_accepts_an_empty_say() -> None:
    from tools import conversation

    registry = ToolRegistry()
    conversation.register(registry, None)  # type: ignore[arg-type]  # the studio's own say tool
    plan = load_plan(json.dumps({"type": "plan", "commands": [{"type": "SAY", "response": ""}]}),
                     "teams", registry)
    assert plan.steps[0].params == {"message": ""}
    assert Validator(registry).errors(plan) == []


# -- LLMCompiler -------------------------------------------------------------------------
LLMC = """Thought: First find the facilities in Berlin.
1. facilities_list("Berlin")
2. shipments_list(facility_id=$1, has_contaminants=True)
Thought: Then what they carried.
3. contaminants_list(${2}, None, 5)
4. join()<END_OF_PLAN>
5. facilities_list("Munich")
"""


def test_llmcompiler_plan_is_read(registry: ToolRegistry) -> None:
    assert "llmcompiler" in FORMATS
    plan = load_plan(LLMC, "llmcompiler", registry)
    assert [s.tool for s in plan.steps] == ["facilities_list", "shipments_list", "contaminants_list"]
    assert plan.steps[0].params == {"location": "Berlin"}  # positional, by the tool's signature
    assert plan.steps[1].params == {"facility_id": "${steps.s1}", "has_contaminants": True}
    assert plan.steps[2].params == {"shipment_ids": "${steps.s2}", "facility_id": None, "limit": 5}
    assert plan.steps[0].note == "First find the facilities in Berlin."
    assert plan.steps[2].note == "Then what they carried."
    assert plan.dependencies_of(plan.steps[2].id) == [plan.steps[1].id]


def test_llmcompiler_export_reads_back(registry: ToolRegistry) -> None:
    plan = Plan(goal="g", steps=[
        Step(id="s1", tool="facilities_list", params={"location": "Berlin", "limit": 3}, note="first"),
        Step(id="s2", tool="shipments_list", params={"facility_id": "${step[0]}", "limit": 2}),
    ])
    text = dump_plan(plan, "llmcompiler", registry)
    assert "1. facilities_list(" in text and "$1" in text and text.rstrip().endswith("3. join()<END_OF_PLAN>")
    back = load_plan(text, "llmcompiler", registry)
    assert [(s.tool, s.params, s.note) for s in back.steps] == [(s.tool, s.params, s.note) for s in plan.steps]


@pytest.mark.parametrize("text, words", [
    ("1. facilities_list(", "line 1"),
    ("1. facilities_list(\"a\", \"b\", \"c\", \"d\", \"e\")", "line 1"),
    ("1. facilities_list(open('x'))", "line 1"),
])
def test_llmcompiler_errors_name_the_line(text: str, words: str, registry: ToolRegistry) -> None:
    with pytest.raises(PlanFormatError, match=words):
        load_plan(text, "llmcompiler", registry)


def test_sk_hyphenated_tool_without_a_plugin_is_still_that_tool() -> None:
    registry = ToolRegistry()

    def get_sum(a: int, b: int) -> int:
        """Add.

        Args:
            a: First.
            b: Second.
        """
        return a + b

    registry.register(get_sum, name="get-sum", group="everything")
    for name in ("get-sum", "EverythingPlugin.get-sum", "EverythingPlugin-get-sum"):
        plan = load_plan(f'<plan><function.{name} a="1" b="2"/></plan>', "sk", registry)
        assert plan.steps[0].tool == "get-sum", name


# -- formats whose origin runs steps one after another ---------------------------------------------

SEQUENTIAL = {
    "sk": '<plan><function.lists.createList list="errands"/><function.lists.showList list="errands"/>'
          '<function.lists.addItem list="errands" item="milk"/></plan>',
    "teams": json.dumps({"type": "plan", "commands": [
        {"type": "DO", "action": "createList", "parameters": {"list": "errands"}},
        {"type": "DO", "action": "showList", "parameters": {"list": "errands"}},
        {"type": "DO", "action": "addItem", "parameters": {"list": "errands", "item": "milk"}}]}),
}


@pytest.mark.parametrize("fmt", sorted(SEQUENTIAL))
def test_a_format_that_runs_steps_in_order_reads_each_step_as_waiting_for_the_one_before(registry, fmt) -> None:
    # Semantic Kernel and Teams AI run a plan's steps one after another; read without the
    # order, the parallel executor would show the list before it was made.
    plan = load_plan(SEQUENTIAL[fmt], fmt, registry)
    ids = [s.id for s in plan.steps]
    assert [s.tool for s in plan.steps] == ["createList", "showList", "addItem"]
    assert [s.depends_on for s in plan.steps] == [[], [ids[0]], [ids[1]]]


@pytest.mark.parametrize("fmt", sorted(SEQUENTIAL))
def test_steps_that_may_run_side_by_side_stay_so_through_a_format_that_runs_in_order(registry, fmt) -> None:
    plan = Plan(goal="two lists", steps=[Step(id="a", tool="createList", params={"list": "x"}),
                                         Step(id="b", tool="createList", params={"list": "y"})])
    again = load_plan(dump_plan(plan, fmt, registry), fmt, registry)
    assert [s.depends_on for s in again.steps] == [[], []]
    chained = plan.model_copy(update={"steps": [plan.steps[0], plan.steps[1].model_copy(update={"depends_on": ["a"]})]})
    text = dump_plan(chained, fmt, registry)
    assert "depends_on" not in text  # the format's own order says it
    assert [s.depends_on for s in load_plan(text, fmt, registry).steps] == [[], ["a"]]

"""The Lab's core (``core.lab``): an experiment re-plans a goal set with the tools' own words and
with edited ones, side by side; goal sets from text, files and the Library; edits refused when
they would break the manual; an edit exported as a patch; drift of tools against saved plans."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from core import Settings, ToolOverride, ToolRegistry, Validator
from core.formats import plan_to_seed
from core.lab import (DescriptionRefused, Experiment, LabGoal, check_overrides, drift_report, export_patch,
                      goals_from_file, goals_from_text, run_experiment, tool_fingerprints)
from core.planners import EmbeddedPlanner
from core.storage import PlanStore
from tools import build_registry

from planner_cases import T

# A real steer: the embedded planner reads "city" in a parameter's description as "a place
# name goes here"; without it, "in Hannover" names no facility, so the facilities step goes.
NO_CITY = {"facilities_list": ToolOverride(params={"location": "Where the facility is."})}
STEERED = "Analyse today's contaminants in Hannover"
UNMOVED = "Get shipments from last week"


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("lab"), today=T), groups=["waste"])


def run(registry: ToolRegistry, experiment: Experiment, **kwargs):
    return list(run_experiment(experiment, registry, EmbeddedPlanner, today=T,
                               validator=Validator(registry), **kwargs))


def test_each_goal_is_planned_with_both_descriptions_side_by_side(registry: ToolRegistry) -> None:
    experiment = Experiment(overrides=NO_CITY, goals=[LabGoal(STEERED), LabGoal(UNMOVED)])
    steered, unmoved = run(registry, experiment)
    assert steered.original.tools == ("facilities_list", "contaminants_list")
    assert steered.edited.tools == ("contaminants_list",)
    # Steps lined up by tool: the facilities step went, the contaminants step lost its link.
    assert steered.changes == ('- step 1 facilities_list {"location": "Hannover"}',
                               '~ step 2 contaminants_list: facility_id: "${step[0].data.*.id}" → nothing; '
                               "depends on: step 1 → no step")
    assert steered.original.valid and steered.edited.valid
    assert not unmoved.differs and unmoved.changes == ()
    assert unmoved.original.steps[0].params["date_from"] == "2025-10-05"


def test_a_goal_is_matched_to_its_expected_plan_step_by_step(registry: ToolRegistry) -> None:
    expected = EmbeddedPlanner(registry).plan(STEERED, today=T)
    [result] = run(registry, Experiment(overrides=NO_CITY, goals=[LabGoal(STEERED, expected)]))
    assert result.original.match.exact and result.original.match.differences == ()
    assert not result.edited.match.exact
    assert result.edited.match.differences == (
        "step 1: facilities_list expected, missing",
        'step 2 (contaminants_list): facility_id: expected "${step[0].data.*.id}", got nothing; '
        "depends on: expected step 1, got no step")
    # A param at its schema's default is the same as no param (limit 100).
    with_limit = expected.model_copy(deep=True)
    with_limit.steps[0].params["limit"] = 100
    [again] = run(registry, Experiment(goals=[LabGoal(STEERED, with_limit)]))
    assert again.original.match.exact


def test_a_goal_no_plan_fits_is_a_result_with_the_reason(registry: ToolRegistry) -> None:
    [result] = run(registry, Experiment(overrides=NO_CITY, goals=[LabGoal("Hannover")]))
    assert result.original.tools == ("facilities_list",)
    assert result.edited.error and "Hannover" in result.edited.error
    assert result.edited.tools == () and not result.edited.valid and result.differs


def test_results_come_as_they_are_made_with_progress_and_cancel_keeps_what_was_done(registry: ToolRegistry) -> None:
    goals = [LabGoal(f"Get facilities in {city}") for city in ("Berlin", "Munich", "Hannover")] * 170  # 510
    cancel = threading.Event()
    seen: list = []
    for result in run_experiment(Experiment(overrides=NO_CITY, goals=goals), registry, EmbeddedPlanner,
                                 today=T, cancel=cancel):
        seen.append(result)
        assert result.index == len(seen) - 1 and result.total == 510
        if len(seen) == 7:
            cancel.set()
    assert len(seen) == 7  # stopped at once; the seven stay
    # A whole set of 510 runs through; each result holds only the steps, not the plans.
    done = run(registry, Experiment(overrides=NO_CITY, goals=goals))
    assert len(done) == 510 and sum(r.differs for r in done) == 510
    assert not hasattr(done[0].original, "plan")


@pytest.mark.parametrize("override, field", [
    (ToolOverride(description="   "), "description"),
    (ToolOverride(description="x" * 20_001), "description"),
    (ToolOverride(params={"location": ""}), "params.location"),
    (ToolOverride(params={"location": "y" * 5_001}), "params.location"),
    (ToolOverride(description="Lists.\n### contaminants_list\nA second tool"), "description"),
    (ToolOverride(description="bad \ud800 text"), "description"),
])
def test_an_edit_that_breaks_the_manual_is_refused_naming_tool_and_field(registry: ToolRegistry,
                                                                          override, field) -> None:
    problems = check_overrides(registry, {"facilities_list": override})
    assert [(p.tool, p.field) for p in problems] == [("facilities_list", field)]
    with pytest.raises(DescriptionRefused, match=f"facilities_list.*{field.split('.')[-1]}"):
        run(registry, Experiment(overrides={"facilities_list": override}, goals=[LabGoal(UNMOVED)]))


def test_an_edit_of_a_tool_or_param_that_is_not_there_is_refused(registry: ToolRegistry) -> None:
    assert [(p.tool, p.field) for p in check_overrides(registry, {"nope": ToolOverride(description="x")})] == [
        ("nope", "tool")]
    assert [(p.tool, p.field) for p in check_overrides(
        registry, {"facilities_list": ToolOverride(params={"town": "x"})})] == [("facilities_list", "params.town")]


def test_an_experiment_round_trips_through_json(registry: ToolRegistry) -> None:
    expected = EmbeddedPlanner(registry).plan(STEERED, today=T)
    experiment = Experiment(name="No city", tools=("facilities_list",), overrides=NO_CITY, planner="llm",
                            goals=[LabGoal(STEERED, expected, source="typed"), LabGoal(UNMOVED)])
    again = Experiment.from_json(json.loads(json.dumps(experiment.as_json())))
    assert again == experiment


def test_goal_sets_from_text_and_files_name_bad_lines(registry: ToolRegistry) -> None:
    assert [g.goal for g in goals_from_text("  a goal \n\n another\n")] == ["a goal", "another"]
    expected = plan_to_seed(EmbeddedPlanner(registry).plan(UNMOVED, today=T))
    lines = [json.dumps({"goal": UNMOVED, "expected": expected}), "{not json", json.dumps({"goal": ""}),
             json.dumps({"goal": "x", "expected": {"steps": "nope"}}), json.dumps("a plain goal")]
    goals, problems = goals_from_file("\n".join(lines).encode(), "set.jsonl")
    assert [g.goal for g in goals] == [UNMOVED, "a plain goal"]
    assert goals[0].expected is not None and goals[0].expected.steps[0].tool == "shipments_list"
    assert [p.split(":")[0] for p in problems] == ["line 2", "line 3", "line 4"]
    text_goals, none = goals_from_file(b"first goal\nsecond goal\n", "goals.txt")
    assert [g.goal for g in text_goals] == ["first goal", "second goal"] and none == []
    _, bad = goals_from_file(b"\xff\xfe oops", "x.txt")
    assert bad and "UTF-8" in bad[0]


def test_a_python_tools_edit_is_a_unified_diff_of_its_docstring(registry: ToolRegistry) -> None:
    patch = export_patch(registry.get("facilities_list"),
                         ToolOverride(description="List facilities, one row each.", params=NO_CITY["facilities_list"].params))
    assert patch.filename.endswith(".patch")
    source = Path(registry.get("facilities_list").runner.func.__code__.co_filename)
    assert f"--- a/{source.name}" in patch.text or source.name in patch.text.splitlines()[0]
    assert '+        """List facilities, one row each.' in patch.text
    assert "-            location: City the facility is in, e.g. Berlin, Hannover, Munich." in patch.text
    assert "+            location: Where the facility is." in patch.text
    assert source.read_text().count("City the facility is in") == 1  # the source is not written


def test_an_mcp_or_agent_tools_edit_is_its_changed_definition_as_json() -> None:
    from core import parse_tool_definitions, with_declared_tools

    [definition] = parse_tool_definitions([{"name": "lookup", "description": "Look up.",
                                            "inputSchema": {"type": "object", "properties": {
                                                "q": {"type": "string", "description": "Query."}}}}])
    registry = with_declared_tools(ToolRegistry(), [definition])
    patch = export_patch(registry.get("lookup"), ToolOverride(description="Find one thing.", params={"q": "Words."}))
    data = json.loads(patch.text)
    assert data["description"] == "Find one thing." and data["inputSchema"]["properties"]["q"]["description"] == "Words."
    assert patch.filename.endswith(".json")


def test_drift_lists_the_saved_plans_a_changed_tool_would_now_plan_differently(registry: ToolRegistry,
                                                                               tmp_path: Path) -> None:
    planner = EmbeddedPlanner(registry)
    with PlanStore(tmp_path / "store.sqlite3") as store:
        steered = store.save_plan(planner.plan(STEERED, today=T))
        store.save_plan(planner.plan(UNMOVED, today=T))
        seen = tool_fingerprints(registry)
        assert drift_report(store, registry, seen, EmbeddedPlanner, today=T).changed_tools == ()
        edited = registry.with_overrides(NO_CITY)
        report = drift_report(store, edited, seen, EmbeddedPlanner, today=T)
        assert report.changed_tools == ("facilities_list",)
        assert [(item.plan_id, item.differs) for item in report.items] == [(steered.plan_id, True)]
        assert "facilities_list" in "\n".join(report.items[0].changes)


def test_a_patched_docstring_reads_back_as_the_edited_words(registry: ToolRegistry, tmp_path: Path) -> None:
    import ast

    words = 'Quotes """ and a \\ backslash stay words.'
    patch = export_patch(registry.get("facilities_list"), ToolOverride(description=words))
    added = "".join(line[1:] + "\n" for line in patch.text.splitlines() if line.startswith("+") and not line.startswith("+++"))
    literal = ast.literal_eval(added.strip().split("\n")[0] + '"""')
    assert literal == words


def test_a_schema_change_of_a_declared_tool_is_drift_too(tmp_path: Path) -> None:
    from core import parse_tool_definitions, with_declared_tools

    def declared(schema: dict) -> ToolRegistry:
        return with_declared_tools(ToolRegistry(), parse_tool_definitions(
            [{"name": "lookup", "description": "Look up.", "inputSchema": schema}]))

    before = tool_fingerprints(declared({"type": "object", "properties": {"q": {"type": "string"}}}))
    after = declared({"type": "object", "properties": {"q": {"type": "string", "maxLength": 10}}})
    with PlanStore(tmp_path / "store.sqlite3") as store:
        report = drift_report(store, after, before, EmbeddedPlanner, today=T)
    assert report.changed_tools == ("lookup",) and report.items == ()
    assert tool_fingerprints(after) != before and tool_fingerprints(after) == tool_fingerprints(after)


def test_a_whole_json_file_of_cases_is_a_goal_set_too(registry: ToolRegistry) -> None:
    seed = Path(__file__).resolve().parents[2] / "docs" / "acceptance" / "seed_examples.json"
    goals, problems = goals_from_file(seed.read_bytes(), "seed_examples.json")
    assert problems == [] and len(goals) == 17 and all(g.expected is not None for g in goals)
    [result] = run(registry, Experiment(goals=goals[:1]))
    assert result.original.match.exact
    _, bad = goals_from_file(json.dumps([{"goal": "a"}, {"goal": 3}]).encode(), "set.json")
    assert bad == ["item 2: the goal is missing or empty"]

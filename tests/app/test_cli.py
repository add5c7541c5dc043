"""The ``plan-studio`` command, run for real: ``studio.cli._main.main`` in-process (capsys) and the
installed console script as a subprocess. Every run gets its own data folder and a pinned
today, and the user's data folder is pointed at a folder that must stay empty."""

from __future__ import annotations

import dataclasses

import datetime as dt
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import TEST_API_KEY
from core import ADDITIVE, Settings
from studio.cli._main import main
from tools import build_registry

ROOT = Path(__file__).resolve().parents[2]
ACCEPTANCE = json.loads((ROOT / "docs" / "acceptance" / "seed_examples.json").read_text(encoding="utf-8"))
TODAY = "2025-10-12"
assert ACCEPTANCE["today"] == TODAY
CONSOLE_SCRIPT = Path(sys.executable).with_name("plan-studio")

BERLIN_CONTAMINATED = "Get contaminated shipments from Berlin facilities"

SEED_BERLIN = {"steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}", "has_contaminants": True},
     "depends_on": [0], "parallel": False},
]}

SK_WRITER = """<plan>
  <!-- Write a poem about today and translate it -->
  <function.WriterPlugin.ShortPoem input="Autumn in the city" setContextVariable="POEM"/>
  <function.WriterPlugin.Translate input="$POEM" language="French" appendToResult="RESULT__TRANSLATED_POEM"/>
</plan>"""

TEAMS_GROCERIES = {"type": "plan", "commands": [
    {"type": "DO", "action": "createList", "parameters": {"list": "groceries"}},
    {"type": "DO", "action": "addItem", "parameters": {"list": "groceries", "item": "milk"}},
    {"type": "SAY", "response": "I've added milk to your groceries list."},
]}


@dataclass
class Result:
    status: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


pytestmark = pytest.mark.usefixtures("stop_durable_runs")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No model or studio settings from the caller's shell; the user's data folder (XDG) is a
    folder of its own, checked to stay empty after each test."""
    for name in list(os.environ):
        # All but the pause for a person, which conftest turns off for tools that declare no effects.
        if name.startswith(("OPENAI_", "PLAN_STUDIO_")) and name != "PLAN_STUDIO_APPROVE_WRITES":
            monkeypatch.delenv(name)
    home = tmp_path / "user-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    yield home
    assert not home.exists(), "the CLI wrote to the user's data folder"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def cli(data_dir: Path, capsys: pytest.CaptureFixture[str]):
    """``cli("plan", "goal")``: main() with this test's data folder and today; the exit
    status and what it printed."""
    def run(*argv: str | Path) -> Result:
        capsys.readouterr()
        status = main([*map(str, argv), "--data-dir", str(data_dir), "--today", TODAY])
        out, err = capsys.readouterr()
        return Result(status, out, err)
    return run


def write(tmp_path: Path, name: str, content: str | dict) -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def comparable(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seed steps as the acceptance file compares them: ``limit: 100`` is the default."""
    return [{"tool": s["tool"],
             "params": {k: v for k, v in s["params"].items() if not (k == "limit" and v == 100)},
             "depends_on": sorted(s.get("depends_on", [])), "parallel": bool(s.get("parallel", False))}
            for s in steps]


def acceptance_plan(goal: str) -> dict[str, Any]:
    return next(c["plan"] for c in ACCEPTANCE["cases"] if c["goal"] == goal)


def rows(data_dir: Path, tool: str, **params: Any) -> int:
    """How many rows ``tool`` returns from the same demo data the CLI used."""
    registry = build_registry(Settings(data_dir=data_dir, today=dt.date.fromisoformat(TODAY)), groups=["waste"])
    return len(registry.get(tool).call(params)["data"])


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.out + result.err


# -- plan GOAL -----------------------------------------------------------------------------
def test_plan_prints_the_seed_plan_with_a_reference_to_the_first_step(cli) -> None:
    result = cli("plan", BERLIN_CONTAMINATED)
    assert result.status == 0 and result.err == ""
    seed = result.json
    assert [(s["tool"], s["params"], s["depends_on"]) for s in seed["steps"]] == [
        ("facilities_list", {"location": "Berlin"}, []),
        ("shipments_list", {"has_contaminants": True, "facility_id": "${step[0].data.*.id}"}, [0]),
    ]
    assert seed["metadata"]["goal"] == BERLIN_CONTAMINATED
    assert seed["metadata"]["planner"] == "embedded" and seed["metadata"]["today"] == TODAY


@pytest.mark.parametrize("goal", [
    BERLIN_CONTAMINATED,
    "Get shipments from last week",
    "Analyse today's contaminants in Hannover",
    "Get shipments, facilities, and inspections",
    "Get facilities in Berlin, then their shipments, then check for contaminants",
])
def test_plan_matches_the_acceptance_examples(cli, goal: str) -> None:
    result = cli("plan", goal)
    assert result.status == 0
    assert comparable(result.json["steps"]) == comparable(acceptance_plan(goal)["steps"])


def test_common_options_work_before_the_command_too(data_dir: Path, capsys) -> None:
    status = main(["--data-dir", str(data_dir), "--today", "2025-03-05", "plan", "Get shipments from last week"])
    out, _ = capsys.readouterr()
    assert status == 0
    assert json.loads(out)["steps"][0]["params"] == {"date_from": "2025-02-26", "date_to": "2025-03-05"}
    # The demo data for that today went to that folder (planning opens no plan store).
    assert [p.name for p in data_dir.iterdir()] == ["demo-waste-2025-03-05.sqlite3"]


def test_plan_format_native_has_step_ids_and_the_goal(cli) -> None:
    plan = cli("plan", BERLIN_CONTAMINATED, "--format", "native").json
    assert plan["goal"] == BERLIN_CONTAMINATED
    first, second = plan["steps"]
    assert (first["tool"], first["params"], first["depends_on"]) == ("facilities_list", {"location": "Berlin"}, [])
    assert second["tool"] == "shipments_list"
    assert second["params"]["facility_id"] == f"${{steps.{first['id']}.data.*.id}}"
    assert second["depends_on"] == [first["id"]] and first["id"] != second["id"]


def test_plan_format_sk_is_semantic_kernel_xml(cli) -> None:
    result = cli("plan", BERLIN_CONTAMINATED, "--format", "sk")
    assert result.status == 0
    root = ET.fromstring(result.out)
    assert root.tag == "plan" and root.get("goal") == BERLIN_CONTAMINATED
    calls = list(root)
    assert [c.tag for c in calls] == ["function.WastePlugin.facilities_list", "function.WastePlugin.shipments_list"]
    assert calls[0].attrib == {"location": "Berlin"}
    assert calls[1].attrib == {"has_contaminants": "true", "facility_id": "${step[0].data.*.id}"}


def test_plan_format_teams_is_do_commands(cli) -> None:
    plan = cli("plan", BERLIN_CONTAMINATED, "--format", "teams").json
    assert plan["type"] == "plan"
    assert [(c["type"], c["action"], c["parameters"]) for c in plan["commands"]] == [
        ("DO", "facilities_list", {"location": "Berlin"}),
        ("DO", "shipments_list", {"has_contaminants": True, "facility_id": "${step[0].data.*.id}"}),
    ]


def test_plan_format_mermaid_draws_the_edge(cli) -> None:
    result = cli("plan", BERLIN_CONTAMINATED, "--format", "mermaid")
    assert result.status == 0
    lines = [line.strip() for line in result.out.splitlines()]
    assert lines[0] == "flowchart LR"
    assert [line for line in lines if "-->" in line] == ["n0 --> n1"]
    assert any(line.startswith('n0["0 · facilities_list') for line in lines)


@pytest.mark.parametrize(("fmt", "name"), [("seed", "plan.json"), ("native", "plan.json"),
                                           ("teams", "plan.json"), ("sk", "plan.xml")])
def test_every_exported_plan_validates_and_runs_from_its_file(cli, tmp_path: Path, data_dir: Path,
                                                               fmt: str, name: str) -> None:
    path = write(tmp_path, name, cli("plan", BERLIN_CONTAMINATED, "--format", fmt).out)
    assert cli("validate", path).out == "valid\n"
    result = cli("run", path)
    assert result.status == 0
    facilities = rows(data_dir, "facilities_list", location="Berlin")
    assert result.out.splitlines()[0] == f"step 0 (facilities_list): succeeded, {facilities} results"
    assert result.out.splitlines()[-1] == "run succeeded: 2 succeeded"


def test_plan_needs_exactly_one_of_goal_and_goals_file(cli, tmp_path: Path) -> None:
    goals = write(tmp_path, "goals.txt", "Get facilities in Berlin\n")
    for argv in (["plan"], ["plan", "Get facilities in Berlin", "--goals-file", str(goals)]):
        result = cli(*argv)
        assert (result.status, result.out) == (2, "")
        assert result.err == "plan-studio: error: give either a GOAL or --goals-file FILE\n"


def test_a_goal_the_planner_cannot_plan_is_one_line_and_status_2(cli) -> None:
    result = cli("plan", "xyzzy blorp")
    assert result.status == 2 and result.out == ""
    assert result.err.count("\n") == 1
    assert result.err.startswith("plan-studio: error: ") and "'xyzzy blorp'" in result.err
    assert "facilities_list" in result.err  # says what it can plan with
    no_traceback(result)


def test_plan_notes_the_words_it_did_not_use_on_stderr_and_keeps_stdout_the_plan(cli) -> None:
    result = cli("plan", "What's the weather in Berlin?")
    assert result.status == 0
    assert result.json["steps"] == [{"tool": "facilities_list", "params": {"location": "Berlin"},
                                     "depends_on": [], "parallel": False}]
    assert result.json["metadata"]["unread_words"] == ["weather"]
    assert result.err == "note: Not used from the goal: \u201cweather\u201d\n"


@pytest.mark.parametrize("goal, said", [
    ("top 0 landfills", "limit must be at least 1 for facilities_list; the goal asks for 0"),
    ("shipments from the last 99999999 days", "'the last 99999999 days' reaches back before 0001-01-01"),
    (f"shipments, limit {'9' * 1500}", "1500 digits"),
    ("shipments and " * 400, "the goal is 5,600 characters long; the embedded planner reads up to 2,000"),
])
def test_a_goal_asking_for_too_much_is_one_line_and_status_2(cli, goal: str, said: str) -> None:
    result = cli("plan", goal)
    assert (result.status, result.out) == (2, "")
    assert result.err.count("\n") == 1 and said in result.err
    no_traceback(result)


def test_unknown_format_is_a_usage_error(cli, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli("plan", BERLIN_CONTAMINATED, "--format", "yaml")
    assert exit_.value.code == 2
    assert "invalid choice: 'yaml'" in capsys.readouterr().err


# -- plan --goals-file ---------------------------------------------------------------------
GOALS = ["Get facilities in Berlin", "xyzzy blorp", "Get shipments from last week",
         BERLIN_CONTAMINATED]


def test_goals_file_gives_one_compact_line_per_goal_in_order(cli, tmp_path: Path) -> None:
    path = write(tmp_path, "goals.txt", "\n".join([GOALS[0], "", "   ", *GOALS[1:], ""]) + "\n\n")
    result = cli("plan", "--goals-file", path)

    lines = result.out.splitlines()
    assert len(lines) == len(GOALS)
    parsed = [json.loads(line) for line in lines]
    for line, data in zip(lines, parsed):
        assert line == json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert [p.get("goal") or p["metadata"]["goal"] for p in parsed] == GOALS
    assert comparable(parsed[0]["steps"]) == comparable(acceptance_plan(GOALS[0])["steps"])
    assert comparable(parsed[2]["steps"]) == comparable(acceptance_plan(GOALS[2])["steps"])
    assert comparable(parsed[3]["steps"]) == comparable(acceptance_plan(GOALS[3])["steps"])
    # The goal it cannot plan still has its line, so output and input line up.
    assert set(parsed[1]) == {"goal", "error"} and "xyzzy blorp" in parsed[1]["error"]
    assert result.status == 2
    assert result.err.splitlines()[0].startswith("plan-studio: 'xyzzy blorp': ")


def test_goals_file_notes_unused_words_per_goal_on_stderr(cli, tmp_path: Path) -> None:
    path = write(tmp_path, "goals.txt", "Get facilities in Berlin\nWhat's the weather in Munich?\n")
    result = cli("plan", "--goals-file", path)
    assert result.status == 0 and len(result.out.splitlines()) == 2
    assert result.err == "note: \"What's the weather in Munich?\": Not used from the goal: \u201cweather\u201d\n"


def test_goals_file_dash_reads_stdin(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("Get facilities in Berlin\n\nGet shipments from last week\n"))
    result = cli("plan", "--goals-file", "-")
    assert result.status == 0 and result.err == ""
    assert [json.loads(line)["metadata"]["goal"] for line in result.out.splitlines()] == [
        "Get facilities in Berlin", "Get shipments from last week"]


def test_goals_file_in_a_text_format_gives_json_strings(cli, tmp_path: Path) -> None:
    path = write(tmp_path, "goals.txt", "Get facilities in Berlin\nGet shipments from last week\n")
    result = cli("plan", "--goals-file", path, "--format", "sk")
    assert result.status == 0
    texts = [json.loads(line) for line in result.out.splitlines()]
    assert len(texts) == 2
    assert [ET.fromstring(t)[0].tag for t in texts] == ["function.WastePlugin.facilities_list",
                                                       "function.WastePlugin.shipments_list"]


def test_missing_goals_file_is_one_line(cli, tmp_path: Path) -> None:
    result = cli("plan", "--goals-file", tmp_path / "nope.txt")
    assert (result.status, result.out) == (2, "")
    assert result.err == f"plan-studio: error: cannot read {tmp_path / 'nope.txt'}: No such file or directory\n"


# -- validate ------------------------------------------------------------------------------
def test_validate_a_valid_plan(cli, tmp_path: Path) -> None:
    result = cli("validate", write(tmp_path, "plan.json", SEED_BERLIN))
    assert (result.status, result.out, result.err) == (0, "valid\n", "")


@pytest.mark.parametrize(("steps", "problem"), [
    ([{"tool": "facilities_list", "params": {}, "depends_on": [1]},
      {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0]}],
     # The cycle is named from its earliest step.
     re.compile(r"error: step 0 \(facilities_list\) · depends_on: dependency cycle: "
                r"step 0 \(facilities_list\) → step 1 \(shipments_list\) → step 0 \(facilities_list\)")),
    ([{"tool": "facility_list", "params": {"location": "Berlin"}, "depends_on": []}],
     "error: step 0 (facility_list) · tool: unknown tool 'facility_list'; did you mean 'facilities_list'?"),
    ([{"tool": "addItem", "params": {"list": "groceries"}, "depends_on": []}],
     "error: step 0 (addItem) · params.item: required parameter is missing"),
    ([{"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": []},
      {"tool": "shipments_list", "params": {"facility_id": "${step[5].data.*.id}"}, "depends_on": [0]}],
     "error: step 1 (shipments_list) · params.facility_id: ${step[5].data.*.id} refers to step 5, "
     "but the plan has only 2 steps (0 to 1)"),
    # The review gate (issue 7): nothing that would fail or change at run time gets past.
    ([{"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": []},
      {"tool": "shipments_list", "params": {"facilty_id": "${step[0].data.*.id}"}, "depends_on": [0]}],
     "error: step 1 (shipments_list) · params.facilty_id: is not a parameter of this tool; "
     "did you mean 'facility_id'?"),
    ([{"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": []},
      {"tool": "shipments_list", "params": {"limit": "${step[0].data.*.id}"}, "depends_on": [0]}],
     "error: step 1 (shipments_list) · params.limit: ${steps.s1.data.*.id} gives a list of strings "
     "(facilities_list output), but limit takes an integer"),
    ([{"tool": "facilities_list", "params": {"near_capacity": "yes"}, "depends_on": []}],
     "error: step 0 (facilities_list) · params.near_capacity: must be true or false, not the text 'yes'"),
    ([{"tool": "facilities_list", "params": {"type": "landfill", "limit": 0}, "depends_on": []}],
     "error: step 0 (facilities_list) · params.limit: must be at least 1 (got 0)"),
], ids=["cycle", "unknown-tool", "missing-param", "bad-reference", "reference-in-unknown-param",
        "reference-type", "string-for-boolean", "below-minimum"])
def test_validate_names_step_and_field_and_exits_1(cli, tmp_path: Path, steps, problem: str) -> None:
    result = cli("validate", write(tmp_path, "plan.json", {"steps": steps}))
    assert result.status == 1
    lines = result.out.splitlines()
    if isinstance(problem, re.Pattern):
        assert len(lines) == 1 and problem.fullmatch(lines[0]), lines
    else:
        assert lines == [problem]
    assert "valid" not in result.out.replace("invalid", "")


def test_validate_prints_every_problem(cli, tmp_path: Path) -> None:
    plan = {"steps": [
        {"tool": "facility_list", "params": {}, "depends_on": []},
        {"tool": "addItem", "params": {"list": "groceries"}, "depends_on": []},
        {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": []},
        {"tool": "shipments_list", "params": {"facility_id": "${step[2].data.*.nonexistent}"}, "depends_on": [2]},
    ]}
    result = cli("validate", write(tmp_path, "plan.json", plan))
    lines = result.out.splitlines()
    assert result.status == 1 and len(lines) == 3
    assert lines[0].startswith("error: step 0 (facility_list) · tool: unknown tool")
    assert lines[1] == "error: step 1 (addItem) · params.item: required parameter is missing"
    assert lines[2].startswith("error: step 3 (shipments_list) · params.facility_id: "
                               "${steps.s3.data.*.nonexistent}: facilities_list output cannot have this path")


def test_validate_warns_of_an_sk_variable_that_no_function_sets(cli, tmp_path: Path) -> None:
    plan = SK_WRITER.replace('input="Autumn in the city"', 'input="$TOPIC"')
    result = cli("validate", write(tmp_path, "poem.xml", plan))
    assert result.status == 0  # SK itself keeps an unset variable as text
    warning, valid = result.out.splitlines()
    assert warning.startswith("warning: step 0 (ShortPoem) · params.input: $TOPIC is a Semantic Kernel "
                              "variable, but no step sets it (setContextVariable)")
    assert valid == "valid"


def test_validate_a_plan_whose_steps_all_depend_on_each_other(cli, tmp_path: Path) -> None:
    steps = [{"tool": "facilities_list", "params": {}, "depends_on": [d for d in range(10) if d != n]}
             for n in range(10)]
    result = cli("validate", write(tmp_path, "plan.json", {"steps": steps}))
    assert result.status == 1
    [line] = result.out.splitlines()
    assert line.startswith("error: step 0 (facilities_list) · depends_on: dependency cycle among 10 steps")


def test_validate_broken_json_says_where(cli, tmp_path: Path) -> None:
    path = write(tmp_path, "plan.json", '{"steps": [\n  {"tool": "facilities_list",\n')
    result = cli("validate", path)
    assert result.status == 1
    assert result.out.startswith(f"{path}: ") and "not valid JSON" in result.out
    assert "line 3" in result.out and result.out.count("\n") == 1
    no_traceback(result)


def test_validate_missing_file_is_status_2_one_line(cli, tmp_path: Path) -> None:
    result = cli("validate", tmp_path / "nope.json")
    assert (result.status, result.out) == (2, "")
    assert result.err == f"plan-studio: error: cannot read {tmp_path / 'nope.json'}: No such file or directory\n"


def test_validate_detects_semantic_kernel_xml_by_suffix_and_by_content(cli, tmp_path: Path) -> None:
    assert cli("validate", write(tmp_path, "poem.xml", SK_WRITER)).out == "valid\n"
    assert cli("validate", write(tmp_path, "poem.txt", SK_WRITER)).out == "valid\n"
    broken = cli("validate", write(tmp_path, "broken.xml", '<plan><function.WriterPlugin.ShortPoem input="x"</plan>'))
    assert broken.status == 1 and ": sk: line 1: not well-formed XML" in broken.out


def test_validate_detects_teams_and_reports_a_broken_one_in_teams_terms(cli, tmp_path: Path) -> None:
    assert cli("validate", write(tmp_path, "teams.json", TEAMS_GROCERIES)).out == "valid\n"
    broken = {"type": "plan", "goal": "groceries", "commands": [{"type": "DO", "parameters": {"list": "x"}}]}
    result = cli("validate", write(tmp_path, "broken.json", broken))
    assert result.status == 1
    assert result.out == f"{tmp_path / 'broken.json'}: teams: commands[0]: DO needs an 'action'\n"


def test_validate_with_a_forced_format(cli, tmp_path: Path) -> None:
    path = write(tmp_path, "plan.json", SEED_BERLIN)
    assert cli("validate", path, "--format", "seed").out == "valid\n"
    result = cli("validate", path, "--format", "sk")
    assert result.status == 1 and f"{path}: sk: " in result.out


# -- run -----------------------------------------------------------------------------------
def test_run_prints_each_step_and_its_result_count(cli, tmp_path: Path, data_dir: Path) -> None:
    result = cli("run", write(tmp_path, "plan.json", SEED_BERLIN))
    assert result.status == 0 and result.err == ""
    facilities = rows(data_dir, "facilities_list", location="Berlin")
    registry = build_registry(Settings(data_dir=data_dir, today=dt.date.fromisoformat(TODAY)), groups=["waste"])
    ids = [f["id"] for f in registry.get("facilities_list").call({"location": "Berlin"})["data"]]
    shipments = rows(data_dir, "shipments_list", facility_id=ids, has_contaminants=True)
    assert facilities > 0 and shipments > 0
    assert result.out.splitlines() == [
        f"step 0 (facilities_list): succeeded, {facilities} results",
        f"step 1 (shipments_list): succeeded, {shipments} results",
        "run succeeded: 2 succeeded",
    ]


def test_a_reference_that_finds_nothing_fails_its_step_and_skips_dependents(cli, tmp_path: Path) -> None:
    plan = {"steps": [
        {"tool": "facilities_list", "params": {"location": "Atlantis"}, "depends_on": []},
        {"tool": "shipments_list", "params": {"facility_id": "${step[0].data[0].id}"}, "depends_on": [0]},
        {"tool": "contaminants_list", "params": {"shipment_ids": "${step[1].data.*.id}"}, "depends_on": [1]},
        {"tool": "inspections_list", "params": {"limit": 5}, "depends_on": []},
    ]}
    result = cli("run", write(tmp_path, "plan.json", plan))
    assert result.status == 1
    assert result.out.splitlines() == [
        "step 0 (facilities_list): succeeded, 0 results",
        "step 1 (shipments_list): failed: ${steps.s1.data[0].id}: index [0] is out of range",
        "step 2 (contaminants_list): skipped: depends on step 1 (shipments_list), which did not succeed",
        "step 3 (inspections_list): succeeded, 5 results",
        "run failed: 2 succeeded, 1 failed, 1 skipped",
    ]


def test_a_writer_tool_without_a_model_fails_its_step_clearly(cli, tmp_path: Path) -> None:
    result = cli("run", write(tmp_path, "poem.xml", SK_WRITER))
    assert result.status == 1
    lines = result.out.splitlines()
    assert lines[0].startswith("step 0 (ShortPoem): failed: ShortPoem failed: No model configured: "
                               "set OPENAI_API_KEY")
    assert lines[1] == "step 1 (Translate): skipped: depends on step 0 (ShortPoem), which did not succeed"
    assert lines[2] == "run failed: 1 failed, 1 skipped"


def test_a_tool_that_rejects_its_resolved_input_fails_its_step(cli, tmp_path: Path) -> None:
    # A count fits an integer param, so the plan is valid; Atlantis has no facilities, and
    # a limit of 0 is below the param's minimum.
    plan = {"steps": [
        {"tool": "facilities_list", "params": {"location": "Atlantis"}, "depends_on": []},
        {"tool": "shipments_list", "params": {"limit": "${step[0].count}"}, "depends_on": [0]},
    ]}
    result = cli("run", write(tmp_path, "plan.json", plan))
    assert result.status == 1
    assert result.out.splitlines()[1] == ("step 1 (shipments_list): failed: shipments_list: "
                                          "limit: must be at least 1 (got 0)")


def test_run_refuses_an_invalid_plan_with_every_problem_and_status_1(cli, tmp_path: Path) -> None:
    plan = {"steps": [{"tool": "facility_list", "params": {}, "depends_on": []},
                      {"tool": "addItem", "params": {"list": "groceries"}, "depends_on": []}]}
    path = write(tmp_path, "plan.json", plan)
    result = cli("run", path)
    assert (result.status, result.out) == (1, "")
    assert result.err.splitlines() == [
        f"{path}: error: step 0 (facility_list) · tool: unknown tool 'facility_list'; did you mean 'facilities_list'?",
        f"{path}: error: step 1 (addItem) · params.item: required parameter is missing",
    ]


def test_run_of_a_broken_file_is_status_1(cli, tmp_path: Path) -> None:
    path = write(tmp_path, "plan.json", "{")
    result = cli("run", path)
    assert (result.status, result.out) == (1, "")
    assert result.err.startswith(f"{path}: ") and "not valid JSON" in result.err


def test_run_answer_prints_the_offline_summary(cli, tmp_path: Path, data_dir: Path) -> None:
    plan = {"goal": "Berlin facilities", "steps": [
        {"id": "s1", "tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": []}]}
    result = cli("run", write(tmp_path, "plan.json", plan), "--answer")
    assert result.status == 0
    n = rows(data_dir, "facilities_list", location="Berlin")
    assert result.out.split("\n\n", 1)[1].splitlines() == [
        "Goal: Berlin facilities", "1 step: 1 succeeded.", f"- step 0 (facilities_list): succeeded, {n} rows"]
    assert "Goal:" not in cli("run", tmp_path / "plan.json").out


def test_run_a_teams_plan_keeps_its_lists_in_the_data_folder(cli, tmp_path: Path, data_dir: Path) -> None:
    result = cli("run", write(tmp_path, "teams.json", TEAMS_GROCERIES))
    assert result.status == 0
    assert result.out.splitlines() == [
        "step 0 (createList): succeeded, 1 result", "step 1 (addItem): succeeded, 1 result",
        "step 2 (say): succeeded, 1 result", "run succeeded: 3 succeeded"]
    assert (data_dir / "lists.sqlite3").exists()


# -- replan --------------------------------------------------------------------------------
def test_replan_replaces_the_city(cli, tmp_path: Path) -> None:
    result = cli("replan", write(tmp_path, "plan.json", SEED_BERLIN), "--feedback", "use Munich instead")
    assert result.status == 0
    steps = result.json["steps"]
    assert steps[0]["params"] == {"location": "Munich"}
    assert steps[1] == SEED_BERLIN["steps"][1]


def test_replan_leaves_a_locked_step_as_it_is(cli, tmp_path: Path) -> None:
    locked = {"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [],
              "locked": True}
    plan = {"goal": "Berlin facilities twice", "steps": [
        locked,
        {"id": "b", "tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": ["a"]},
        {"id": "c", "tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": []},
    ]}
    result = cli("replan", write(tmp_path, "plan.json", plan), "--feedback", "use Munich instead")
    assert result.status == 0
    new = result.json
    assert new["goal"] == "Berlin facilities twice"
    by_id = {s["id"]: s for s in new["steps"]}
    assert {k: by_id["a"][k] for k in locked} == locked
    assert by_id["c"]["params"] == {"location": "Munich"}
    assert by_id["b"]["params"] == {"facility_id": "${steps.a.data.*.id}"}


def test_replan_that_can_change_nothing_is_one_line(cli, tmp_path: Path) -> None:
    plan = {"goal": "Berlin", "steps": [{"id": "a", "tool": "facilities_list", "params": {"location": "Berlin"},
                                         "depends_on": [], "locked": True}]}
    result = cli("replan", write(tmp_path, "plan.json", plan), "--feedback", "use Munich instead")
    assert (result.status, result.out) == (2, "")
    assert result.err.count("\n") == 1 and "no unlocked step takes location Munich" in result.err


def test_replan_that_would_leave_no_step_is_refused(cli, tmp_path: Path) -> None:
    one = cli("plan", "Get facilities in Berlin").out
    result = cli("replan", write(tmp_path, "one.json", one), "--feedback", "drop the facilities step")
    assert (result.status, result.out) == (2, "")
    assert result.err.count("\n") == 1 and "would leave the plan with no step" in result.err


def test_replan_writes_the_format_it_read(cli, tmp_path: Path) -> None:
    xml = cli("plan", BERLIN_CONTAMINATED, "--format", "sk").out
    result = cli("replan", write(tmp_path, "plan.xml", xml), "--feedback", "use Munich instead")
    assert result.status == 0
    calls = list(ET.fromstring(result.out))
    assert calls[0].tag == "function.WastePlugin.facilities_list" and calls[0].get("location") == "Munich"


def test_replan_needs_feedback(cli, tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli("replan", write(tmp_path, "plan.json", SEED_BERLIN))
    assert exit_.value.code == 2
    assert "--feedback" in capsys.readouterr().err


# -- settings ------------------------------------------------------------------------------
def test_a_bad_date_is_a_usage_error(data_dir: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["plan", "Get facilities in Berlin", "--data-dir", str(data_dir), "--today", "2025-13-01"])
    assert exit_.value.code == 2
    assert "'2025-13-01' is not a date in YYYY-MM-DD form" in capsys.readouterr().err


def test_a_bad_setting_from_the_environment_is_one_line(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAN_STUDIO_TEMPERATURE", "7")
    result = cli("plan", "Get facilities in Berlin")
    assert (result.status, result.out) == (2, "")
    assert result.err.startswith("plan-studio: error: bad setting temperature: ") and result.err.count("\n") == 1


def test_settings_from_the_environment_are_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    data_dir = tmp_path / "from-env"
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(data_dir))
    monkeypatch.setenv("PLAN_STUDIO_TODAY", "2025-03-05")
    assert main(["plan", "Get shipments from last week"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["steps"][0]["params"] == {"date_from": "2025-02-26", "date_to": "2025-03-05"}
    assert [p.name for p in data_dir.iterdir()] == ["demo-waste-2025-03-05.sqlite3"]


# -- --planner llm, against the scripted OpenAI-compatible server ---------------------------
BERLIN_REPLY = {"steps": [
    {"tool": "facilities_list", "params": {"location": "Berlin"}, "depends_on": [], "parallel": False},
    {"tool": "shipments_list", "params": {"facility_id": "${step[0].data.*.id}"}, "depends_on": [0],
     "parallel": False},
]}


def test_llm_planner_plans_with_one_request(cli, llm_server) -> None:
    llm_server.reply(json.dumps(BERLIN_REPLY))
    result = cli("plan", "Berlin facilities and their shipments", "--planner", "llm")
    assert result.status == 0, result.err
    assert len(llm_server.requests) == 1
    assert llm_server.auth_headers[0] == f"Bearer {TEST_API_KEY}"
    plan = result.json
    assert comparable(plan["steps"]) == comparable(BERLIN_REPLY["steps"])
    assert plan["metadata"]["planner"] == "llm" and plan["metadata"]["attempts"] == 1
    assert "Today is 2025-10-12" in llm_server.text_of(0)


def test_llm_planner_repairs_an_unknown_tool(cli, llm_server) -> None:
    wrong = {"steps": [{"tool": "facility_list", "params": {"location": "Berlin"}, "depends_on": []}]}
    llm_server.reply(json.dumps(wrong))
    llm_server.reply(json.dumps(BERLIN_REPLY))
    result = cli("plan", "Berlin facilities and their shipments", "--planner", "llm")
    assert result.status == 0, result.err
    assert len(llm_server.requests) == 2
    assert "did you mean 'facilities_list'" in llm_server.text_of(1)
    assert result.json["metadata"]["attempts"] == 2
    assert [s["tool"] for s in result.json["steps"]] == ["facilities_list", "shipments_list"]


def test_llm_server_error_is_status_2_and_one_line(cli, llm_server) -> None:
    llm_server.fail(500, "model overloaded")
    result = cli("plan", "Berlin facilities", "--planner", "llm")
    assert (result.status, result.out) == (2, "")
    assert result.err.count("\n") == 1
    assert result.err.startswith("plan-studio: error: ")
    assert "HTTP 500" in result.err and "model overloaded" in result.err
    no_traceback(result)
    assert len(llm_server.requests) == 1  # the SDK's own retries are off


def test_llm_answer_that_is_not_json_is_status_2_and_one_line(cli, llm_server) -> None:
    llm_server.raw(b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "{\\"ste')
    result = cli("plan", "Berlin facilities", "--planner", "llm")
    assert (result.status, result.out) == (2, "")
    assert result.err.count("\n") == 1 and result.err.startswith("plan-studio: error: ")
    assert f"The model endpoint at {llm_server.base_url} answered with a body that is not valid JSON" in result.err
    no_traceback(result)


def test_llm_planner_without_a_model_says_how_to_configure_one(cli) -> None:
    result = cli("plan", "Berlin facilities", "--planner", "llm")
    assert (result.status, result.out) == (2, "")
    assert result.err.startswith("plan-studio: error: No model configured: set OPENAI_API_KEY")


def test_llm_goals_file_keeps_a_line_for_a_failed_goal(cli, llm_server, tmp_path: Path) -> None:
    llm_server.reply(json.dumps(BERLIN_REPLY))
    llm_server.fail(500, "model overloaded")
    path = write(tmp_path, "goals.txt", "Berlin shipments\nMunich shipments\n")
    result = cli("plan", "--goals-file", path, "--planner", "llm")
    lines = [json.loads(line) for line in result.out.splitlines()]
    assert result.status == 2 and len(lines) == 2
    assert lines[0]["metadata"]["goal"] == "Berlin shipments"
    assert lines[1]["goal"] == "Munich shipments" and "HTTP 500" in lines[1]["error"]


def test_the_api_key_never_appears_in_output_or_data(cli, llm_server, tmp_path: Path, data_dir: Path) -> None:
    outputs: list[str] = []

    def record(result: Result) -> Result:
        outputs.extend([result.out, result.err])
        return result

    llm_server.reply(json.dumps(BERLIN_REPLY))
    plan = record(cli("plan", "Berlin shipments", "--planner", "llm", "--format", "native"))
    assert plan.status == 0
    path = write(tmp_path, "plan.json", plan.out)
    llm_server.reply("Berlin has facilities with shipments.")
    record(cli("run", path, "--answer", "--planner", "llm"))
    # An endpoint that echoes the key back in its error.
    llm_server.fail(401, f"Incorrect API key provided: {TEST_API_KEY}")
    failed = record(cli("plan", "Munich shipments", "--planner", "llm"))
    assert failed.status == 2 and "HTTP 401" in failed.err
    llm_server.fail(500, f"key {TEST_API_KEY} is over quota")
    record(cli("replan", path, "--feedback", "use Munich instead", "--planner", "llm"))

    assert all(h == f"Bearer {TEST_API_KEY}" for h in llm_server.auth_headers)  # the key was in use
    assert len(llm_server.requests) == 4
    for text in outputs:
        assert TEST_API_KEY not in text
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert files, "the data folder should hold the store and demo data"
    for file in files:
        assert TEST_API_KEY.encode() not in file.read_bytes(), file


def test_a_key_the_model_writes_never_appears_in_output_or_data(cli, llm_server, tmp_path: Path,
                                                                data_dir: Path) -> None:
    llm_server.reply(json.dumps({"steps": [{
        "tool": "ShortPoem", "params": {"input": f"a poem about {TEST_API_KEY}"}, "depends_on": [],
        "parallel": False, "note": f"the key is {TEST_API_KEY}"}]}))
    planned = cli("plan", "Write a poem", "--planner", "llm", "--format", "native")
    assert planned.status == 0, planned.err
    step = planned.json["steps"][0]
    assert step["note"] == "the key is [redacted]" and step["params"]["input"] == "a poem about [redacted]"

    llm_server.reply(f"A poem, and the key: {TEST_API_KEY}")  # ShortPoem's text
    llm_server.reply(f"Your poem mentions {TEST_API_KEY}.",       # the answer, the key split in two
                     chunks=["Your poem mentions ", TEST_API_KEY[:9], TEST_API_KEY[9:] + "."])
    ran = cli("run", write(tmp_path, "plan.json", planned.out), "--answer", "--planner", "llm")
    assert ran.status == 0, ran.err
    assert ran.out.rstrip().endswith("Your poem mentions [redacted].")
    assert llm_server.messages(1)[1]["content"] == "a poem about [redacted]"

    for text in (planned.out, planned.err, ran.out, ran.err):
        assert TEST_API_KEY not in text
    for file in (p for p in data_dir.rglob("*") if p.is_file()):
        assert TEST_API_KEY.encode() not in file.read_bytes(), file


# -- help ----------------------------------------------------------------------------------
def test_help_lists_every_command(capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: plan-studio")
    for command in ("plan", "validate", "run", "replan", "--port", "--data-dir", "--today", "--planner"):
        assert command in out


@pytest.mark.parametrize(("command", "options"), [
    ("plan", ["--goals-file", "--format"]), ("validate", ["--format"]),
    ("run", ["--format", "--answer"]), ("replan", ["--feedback", "--format"]),
])
def test_each_command_has_help(capsys, command: str, options: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: plan-studio {command}")
    for option in [*options, "--data-dir", "--today", "--planner"]:
        assert option in out


# -- the installed console script ----------------------------------------------------------
def console(*argv: str | Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    assert CONSOLE_SCRIPT.exists(), f"{CONSOLE_SCRIPT} is missing: install the project into this venv"
    return subprocess.run([str(CONSOLE_SCRIPT), *map(str, argv)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ), **kwargs)


def test_console_script_plans_and_exits_0(data_dir: Path, tmp_path: Path) -> None:
    done = console("plan", BERLIN_CONTAMINATED, "--data-dir", data_dir, "--today", TODAY, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert comparable(json.loads(done.stdout)["steps"]) == comparable(acceptance_plan(BERLIN_CONTAMINATED)["steps"])


def test_console_script_errors_are_one_line_without_traceback(data_dir: Path, tmp_path: Path) -> None:
    done = console("validate", tmp_path / "nope.json", "--data-dir", data_dir, "--today", TODAY)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"plan-studio: error: cannot read {tmp_path / 'nope.json'}: No such file or directory\n"

    done = console("--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: plan-studio")


def test_console_script_stops_quietly_when_the_reader_does(data_dir: Path, tmp_path: Path) -> None:
    goals = write(tmp_path, "goals.txt", "Get facilities in Berlin\n" * 2000)
    process = subprocess.Popen([str(CONSOLE_SCRIPT), "plan", "--goals-file", str(goals), "--data-dir",
                                str(data_dir), "--today", TODAY], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()
        process.stdout.close()  # like `| head -1`
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert json.loads(first)["metadata"]["goal"] == "Get facilities in Berlin"
    assert process.returncode == 1
    assert err == ""


# -- Ctrl-C ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shipments_effects", ["as declared (read-only)", "additive"])
def test_ctrl_c_during_a_run_says_where_it_stopped_and_what_had_finished(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ctrl_c_as_in_a_terminal: None,
        shipments_effects: str) -> None:
    import studio.cli._main

    def interrupted_services(settings: Settings):
        services = real_build_services(settings)

        def pressed_ctrl_c(**_kwargs: Any) -> Any:
            import signal
            import time

            # SIGINT, as the terminal sends it: a tool raising KeyboardInterrupt itself is only
            # that tool's failure (tests/app/test_tool_misbehaviour.py).
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(30)
        # The second step's tool is where the user presses Ctrl-C.
        tool = services.registry.get("shipments_list")
        tool.runner = dataclasses.replace(tool.runner, func=pressed_ctrl_c)
        if shipments_effects == "additive":  # the same tool as on resume: a changed one is refused
            tool.definition = dataclasses.replace(tool.definition, effects=ADDITIVE)
        return services

    real_build_services = studio.cli._main.build_services
    monkeypatch.setattr(studio.cli._main, "build_services", interrupted_services)
    result = cli("run", write(tmp_path, "plan.json", SEED_BERLIN))
    assert result.status == 130
    assert result.out.splitlines()[0].startswith("step 0 (facilities_list): succeeded")
    said, run_id = result.err.strip().rsplit(" ", 1)
    assert said == ("plan-studio: interrupted: the run stopped during step 1 (shipments_list); "
                    "finished: 1 succeeded; not finished: 1 step; carry on: plan-studio resume")
    no_traceback(result)
    # The run was recorded as it went: listed, and carried on where it stopped.
    assert cli("runs").out.split()[:2] == [run_id, "cancelled"]
    called: list[str] = []

    def counting_services(settings: Settings):
        services = real_build_services(settings)
        for name in ("facilities_list", "shipments_list"):
            tool = services.registry.get(name)
            counted = lambda _f=tool.runner.func, _n=name, **kw: (called.append(_n), _f(**kw))[1]  # noqa: E731
            tool.runner = dataclasses.replace(tool.runner, func=counted)
            if name == "shipments_list" and shipments_effects == "additive":
                tool.definition = dataclasses.replace(tool.definition, effects=ADDITIVE)
        return services

    monkeypatch.setattr(studio.cli._main, "build_services", counting_services)
    if shipments_effects != "additive":  # a read-only step cut off mid-call simply runs again
        resumed = cli("resume", run_id)
        assert resumed.status == 0, resumed.err
        # First what runs again, then the run's lines.
        assert resumed.out.splitlines()[:2] == ["reuse      step 0 (facilities_list) [s1]",
                                                "run again  step 1 (shipments_list) [s2]"]
        assert resumed.out.splitlines()[3].startswith("step 1 (shipments_list): succeeded")
        assert called == ["shipments_list"]
        return
    looked = cli("resume", run_id, "--dry-run")
    assert looked.status == 0 and called == [], looked.err
    assert looked.out.splitlines() == [
        "reuse      step 0 (facilities_list) [s1]",
        "run again  step 1 (shipments_list) [s2]  (cut off mid-call, may have had its effect: in doubt: give --again or "
        "--failed)"]
    undecided = cli("resume", run_id)
    assert undecided.status == 1 and "step 1 (shipments_list) may have had its effect" in undecided.err
    assert f"plan-studio resume {run_id} --again s2" in undecided.err and called == []
    unknown = cli("resume", run_id, "--again", "s9")
    assert unknown.status == 2 and "has no step 's9' (give a step id or its number, 0 to 1)" in unknown.err
    # s2 was cut off mid-call: the user says "again", by its number as the lines show it
    resumed = cli("resume", run_id, "--again", "1")
    assert resumed.status == 0, resumed.err
    lines = resumed.out.splitlines()
    assert lines[1].endswith("may have had its effect: called again (--again))")
    assert lines[2].startswith("step 0 (facilities_list): succeeded") and lines[2].endswith("(done before)")
    assert lines[3].startswith("step 1 (shipments_list): succeeded") and lines[4] == "run succeeded: 2 succeeded"
    assert called == ["shipments_list"]  # the finished step was not run again
    assert cli("runs").out.split()[:2] == [run_id, "succeeded"]


def test_ctrl_c_while_reading_goals_says_how_many_were_planned(data_dir: Path) -> None:
    import selectors
    import signal

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PLAN_STUDIO_"))}
    process = subprocess.Popen(
        [str(CONSOLE_SCRIPT), "plan", "--goals-file", "-", "--data-dir", str(data_dir), "--today", TODAY],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # A shell running the tests in the background (`cmd &`) makes them ignore SIGINT, and
        # the command would inherit that; give it the default, as a terminal's Ctrl-C finds it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stdin and process.stdout
    process.stdin.write("Get facilities in Berlin\n")
    process.stdin.flush()
    # Planned and printed as soon as it arrived; the command now waits for more.
    # A selector, not select(): a worker deep in the suite may hold descriptors past 1024.
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        assert selector.select(60), "no plan printed for the first goal"
    first = process.stdout.readline()
    assert json.loads(first)["steps"][0]["tool"] == "facilities_list"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err.strip() == "plan-studio: interrupted: after 1 goal; its line was printed"
    assert "Traceback" not in out + err


def test_the_studio_is_told_which_settings_its_options_gave(data_dir: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import streamlit.web.cli

    handed_over: dict[str, str] = {}

    def studio(**_kwargs: Any) -> None:  # stands in for starting the Streamlit server
        handed_over.update({k: v for k, v in os.environ.items() if k.startswith("PLAN_STUDIO_")})

    monkeypatch.setattr(streamlit.web.cli, "main", studio)
    # The command sets these for the studio; monkeypatch removes them again after the test.
    for name in ("PLAN_STUDIO_TODAY", "PLAN_STUDIO_DATA_DIR", "PLAN_STUDIO_FROM_OPTIONS"):
        monkeypatch.setenv(name, "")
    assert main(["--today", "2025-01-02", "--data-dir", str(data_dir), "--port", "8599"]) == 0
    assert handed_over["PLAN_STUDIO_TODAY"] == "2025-01-02"
    assert set(handed_over["PLAN_STUDIO_FROM_OPTIONS"].split(",")) == {"today", "data_dir"}
    assert Settings.origin("today") == "--today"
    assert Settings.origin("planner") is None


def test_plan_says_on_stderr_which_negation_it_did_not_apply(cli) -> None:
    """Issue 18, item 1: a negation no tool can express is left out, and stderr says so."""
    result = cli("plan", "shipments not going to Leipzig")
    assert result.status == 0
    assert "destination" not in result.json["steps"][0]["params"]
    assert result.json["metadata"]["not_applied"] and "NOT applied" in result.err
    assert "not going to Leipzig" in result.err

"""The reference picker's paths and the reference preview."""

from __future__ import annotations

import datetime as dt

import pytest

from core import (EditRefused, Executor, Plan, Run, Settings, Step, StepRun, StepStatus, ToolRegistry, flow_preview,
                  output_paths, param_schema, path_text, preview_reference, set_param)
from core.plan._references import MAP
from tools import build_registry
from typing_extensions import TypedDict

from toy_tools import toy_registry


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory):
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("outputs"), today=dt.date(2026, 3, 1)),
                          groups=["waste", "writer"])


def test_output_paths_list_rows_fields_and_first_row_fields(registry):
    paths = {p.path: p for p in output_paths(registry, "facilities_list")}
    assert list(paths)[:3] == ["", "data", "data.*.id"]
    assert paths["data.*.id"].type == "a list of strings" and paths["data.*.id"].many
    assert paths["data[0].capacity_tonnes"].type == "a number" and not paths["data[0].capacity_tonnes"].many
    assert paths["count"].schema["type"] == "integer"
    assert "data.*" not in paths, "the same as data"


def test_only_paths_that_fit_the_param_are_offered(registry):
    into_list = [p.path for p in output_paths(registry, "shipments_list",
                                              param_schema(registry, "contaminants_list", "shipment_ids"))]
    assert "data.*.id" in into_list and "data[0].id" not in into_list and "count" not in into_list
    assert "data.*.weight_kg" not in into_list, "numbers do not fit a list of strings"
    into_integer = [p.path for p in output_paths(registry, "facilities_list",
                                                 param_schema(registry, "shipments_list", "limit"))]
    assert into_integer == ["count"]
    either = [p.path for p in output_paths(registry, "facilities_list",
                                           param_schema(registry, "shipments_list", "facility_id"))]
    assert {"data.*.id", "data[0].id"} <= set(either)


def test_a_tool_without_a_structured_result_offers_the_whole_result(registry):
    assert [(p.path, p.type) for p in output_paths(registry, "ShortPoem")] == [("", "a string")]
    with pytest.raises(EditRefused, match="unknown tool 'facility_list'; did you mean 'facilities_list'"):
        output_paths(registry, "facility_list")


class Node(TypedDict):
    name: str
    children: list["Node"]


def test_recursive_output_types_stop():
    tools = ToolRegistry()

    @tools.register
    def tree() -> Node:
        """A tree."""
        return Node(name="root", children=[])

    paths = [p.path for p in output_paths(tools, "tree")]
    assert "children.*.name" in paths and len(paths) < 50


def test_path_text():
    assert path_text(("data", MAP, "id")) == "data.*.id"
    assert path_text(("data", 0, "facility", "name")) == "data[0].facility.name"
    assert path_text(()) == ""


def chain() -> Plan:
    return Plan(steps=[Step(id="a", tool="sites_list", params={"city": "Berlin"}),
                       Step(id="b", tool="visits_list", params={"site_id": "${step[0].data.*.id}",
                                                                "note": "first ${step[0].data[0].city}"})])


def test_preview_before_a_run_gives_the_declared_type():
    [before] = preview_reference(chain(), None, "b", "site_id", registry=toy_registry())
    assert (before.status, before.type, before.source_id, before.path) == ("not yet run", "a list of strings", "a", "data.*.id")
    assert before.summary() == "not yet run · a list of strings"
    assert preview_reference(chain(), None, "b", "absent") == []


def test_preview_after_a_run_gives_the_first_values_and_the_count():
    tools = toy_registry()
    run = Executor(tools).execute(chain())
    [ids] = preview_reference(chain(), run, "b", "site_id", registry=tools, limit=1)
    assert (ids.status, ids.values, ids.count, ids.stale) == ("resolved", ["S0"], 2, False)
    assert ids.summary() == "['S0' …] (2 values)"
    [city] = preview_reference(chain(), run, "b", "note", registry=tools)
    assert (city.values, city.count, city.summary()) == (["Berlin"], 1, "'Berlin'")
    assert flow_preview(chain(), run, "a", "b", registry=tools).keys() == {"site_id", "note"}


def test_preview_marks_a_value_from_an_earlier_version_and_a_path_the_result_lacks():
    tools = toy_registry()
    run = Executor(tools).execute(chain())
    edited = set_param(chain(), "a", "city", "Munich")
    [ids] = preview_reference(edited, run, "b", "site_id", registry=tools)
    assert ids.stale and ids.summary().endswith("from a run of an earlier version")
    broken = set_param(chain(), "b", "note", "${step[0].data[9].city}")
    [out_of_range] = preview_reference(broken, run, "b", "note", registry=tools)
    assert out_of_range.status == "broken" and "out of range" in out_of_range.message


def test_preview_of_a_failed_source_a_missing_step_and_malformed_text():
    plan = Plan(steps=[Step(id="x", tool="explode"), Step(id="y", tool="visits_list",
                                                         params={"site_id": "${step[0].data.*.id}"})])
    run = Run(plan=plan, steps={"x": StepRun(step_id="x", status=StepStatus.failed, error="boom"),
                                "y": StepRun(step_id="y", status=StepStatus.skipped)})
    [failed] = preview_reference(plan, run, "y", "site_id")
    assert failed.status == "failed" and failed.summary() == "step 0 (explode) failed: boom"
    dangling = set_param(plan, "y", "site_id", "${step[7].id}")
    assert preview_reference(dangling, None, "y", "site_id")[0].status == "broken"
    malformed = set_param(plan, "y", "site_id", "${step[0].data.")
    assert preview_reference(malformed, None, "y", "site_id")[0].status == "broken"

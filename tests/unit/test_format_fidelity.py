"""No field dropped without saying so: every export names what it dropped, and a plan taken
through any two formats keeps everything both can hold (random plans, every format pair)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import FORMATS, Plan, Step, dump_plan, load_plan
from core.plan._positions import positions_for_ids
from core.formats import export_plan
from test_formats import build_registry

REGISTRY = build_registry()
ROUND_TRIP = [n for n, f in FORMATS.items() if f.load is not None and f.dump is not None]
EVERYTHING = {"goal", "metadata", "ids", "tool", "params", "deps", "parallel", "note", "locked",
              "result_key", "format_data"}
# What each format holds; anything else must be named by its export.
HOLDS: dict[str, set[str]] = {
    "native": EVERYTHING, "seed": EVERYTHING, "sk": EVERYTHING, "teams": EVERYTHING,
    "llmcompiler": {"tool", "params", "note"},
}
# How a drop notice names each field.
WORDS = {"goal": "the goal", "metadata": "metadata", "ids": "step ids", "parallel": "parallel flags",
         "note": "notes", "locked": "locks", "result_key": "result keys", "format_data": "format data",
         "deps": "dependencies"}


def test_every_format_that_reads_and_writes_is_held_to_account() -> None:
    assert set(ROUND_TRIP) == set(HOLDS)


# -- random plans of the test registry's tools, each param of its schema's type -------------------
TEXT = st.text(alphabet="abcXYZ $-_.<>&\"'é\n", min_size=1, max_size=12)
NOTE = TEXT.map(str.strip).filter(bool)


def _text(earlier: int) -> st.SearchStrategy[str]:
    if not earlier:
        return TEXT
    ref = st.integers(0, earlier - 1).flatmap(lambda i: st.sampled_from(
        [f"${{step[{i}]}}", f"${{step[{i}].data.*.id}}"]))
    return st.one_of(TEXT, ref, st.tuples(TEXT, ref, TEXT).map("".join))


def _params(tool: str, earlier: int) -> st.SearchStrategy[dict[str, Any]]:
    text = _text(earlier)
    fields: dict[str, st.SearchStrategy[Any]] = {
        "facilities_list": {"location": text, "type": st.sampled_from(["recycling", "landfill"]),
                            "near_capacity": st.booleans(), "limit": st.integers(1, 500)},
        "shipments_list": {"date_from": st.just("2025-10-05"), "has_contaminants": st.booleans(),
                           "facility_id": st.one_of(text, st.lists(text, max_size=3)), "limit": st.integers(1, 9)},
        "addItem": {"list": text, "item": text},
        "say": {"message": text},
    }.get(tool, {})
    # SK hands the previous output to a function given no input: a plan where a tool that
    # takes one has none cannot be written in SK (its export says so), nor is it valid.
    required = {"ShortPoem": {"input": text}, "Translate": {"input": text, "language": text}}.get(tool, {})
    return st.fixed_dictionaries(required, optional=fields)


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    count = draw(st.integers(0, 5))
    custom_ids = draw(st.booleans())
    steps = []
    for n in range(count):
        tool = draw(st.sampled_from(["facilities_list", "shipments_list", "ShortPoem", "Translate", "addItem", "say"]))
        format_data: dict[str, Any] = {}
        if draw(st.booleans()):
            format_data["other"] = {"k": draw(st.integers())}
        if draw(st.integers(0, 3)) == 0:
            format_data["sk"] = {"output_var": draw(st.sampled_from(["X", "abc", "POEM"]))}
        steps.append(Step(
            id=f"step-{n}" if custom_ids else f"s{n + 1}", tool=tool, params=draw(_params(tool, n)),
            depends_on=[f"step-{k}" if custom_ids else f"s{k + 1}" for k in draw(st.sets(st.integers(0, n - 1)))]
            if n else [],
            parallel=draw(st.booleans()), note=draw(st.none() | NOTE), locked=draw(st.booleans()),
            result_key=draw(st.none() | st.sampled_from(["RESULT__A", "abc"])), format_data=format_data))
    extra = draw(st.sampled_from([{}, {"source": "agent"}]))
    return Plan(goal=draw(st.sampled_from(["", "A goal with $money & <tags>"])), steps=steps,
                metadata={"planner": "embedded", "today": "2025-10-12", "created_at": "2025-10-12T08:00:00Z", **extra})


# -- what a plan holds, field by field -------------------------------------------------------
def _needs(plan: Plan) -> list[list[int]]:
    index = {s.id: n for n, s in enumerate(plan.steps)}
    return [sorted(index[d] for d in plan.dependencies_of(s.id)) for s in plan.steps]


def held(plan: Plan, fields: set[str]) -> dict[str, Any]:
    """The parts of ``plan`` named by ``fields``, as JSON (so True and 1 differ)."""
    step_fields = {"tool": "tool", "params": "params", "parallel": "parallel", "note": "note",
                   "locked": "locked", "result_key": "result_key", "format_data": "format_data", "ids": "id"}
    out: dict[str, Any] = {}
    if "goal" in fields:
        out["goal"] = plan.goal
    if "metadata" in fields:
        out["metadata"] = plan.metadata.model_dump(mode="json")
    if "deps" in fields:
        out["deps"] = _needs(plan)
    # References name steps by id; a format without ids reads them back under its own, so
    # params are compared with each reference naming its step's position.
    index = {s.id: n for n, s in enumerate(plan.steps)}
    out["steps"] = [{name: positions_for_ids(s.params, index) if name == "params" else getattr(s, attr)
                     for name, attr in step_fields.items() if name in fields}
                    for s in plan.steps]
    return json.loads(json.dumps(out))


def used(plan: Plan) -> set[str]:
    """The fields ``plan`` gives a value other than what any import gives anyway."""
    found = {"tool", "params", "metadata"}
    if plan.goal:
        found.add("goal")
    if [s.id for s in plan.steps] != [f"s{n + 1}" for n in range(len(plan.steps))]:
        found.add("ids")
    for field in ("parallel", "note", "locked", "result_key", "format_data"):
        if any(getattr(s, field) for s in plan.steps):
            found.add(field)
    index = {s.id: n for n, s in enumerate(plan.steps)}
    references_only = [sorted({index[r.step] for _n, r in s.readable_references()
                               if r.step in index and index[r.step] < n})
                       for n, s in enumerate(plan.steps)]
    if _needs(plan) != references_only:
        found.add("deps")
    return found


def round_trip(plan: Plan, fmt: str) -> Plan:
    return load_plan(dump_plan(plan, fmt, REGISTRY), fmt, REGISTRY)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans())
def test_every_export_names_exactly_what_it_dropped(plan: Plan) -> None:
    for fmt in ROUND_TRIP:
        dropped = export_plan(plan, fmt, REGISTRY).dropped
        lost = used(plan) - HOLDS[fmt]
        said = " | ".join(dropped)
        for field in lost:
            assert WORDS[field] in said, (fmt, field, dropped)
        if not lost:
            assert dropped == [], (fmt, dropped)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans())
def test_every_format_pair_keeps_everything_both_hold(plan: Plan) -> None:
    for first in ROUND_TRIP:
        once = round_trip(plan, first)
        assert held(once, HOLDS[first]) == held(plan, HOLDS[first]), first
        for second in ROUND_TRIP:
            both = HOLDS[first] & HOLDS[second]
            assert held(round_trip(once, second), both) == held(plan, both), (first, second)


# -- the cases the issue measured, spelled out --------------------------------------------------
def test_sk_keeps_a_dependency_no_reference_implies_and_literal_dollar_text() -> None:
    plan = Plan(steps=[
        Step(id="s1", tool="ShortPoem", params={"input": "sea"}, format_data={"sk": {"output_var": "top"}}),
        Step(id="s2", tool="Translate", params={"input": "odata $top=5", "language": "French"}, depends_on=["s1"]),
    ])
    text = dump_plan(plan, "sk", REGISTRY)
    back = load_plan(text, "sk", REGISTRY)
    assert back.steps[1].params["input"] == "odata $top=5"  # text, not the output of step 0
    assert back.steps[1].depends_on == ["s1"]
    assert export_plan(plan, "sk", REGISTRY).dropped == []


def test_seed_keeps_notes_locks_result_keys_and_ids() -> None:
    plan = Plan(steps=[Step(id="a", tool="ShortPoem", params={"input": "sea"}, note="why", locked=True,
                            result_key="RESULT__POEM")])
    back = load_plan(dump_plan(plan, "seed", REGISTRY), "seed", REGISTRY)
    step = back.steps[0]
    assert (step.id, step.note, step.locked, step.result_key) == ("a", "why", True, "RESULT__POEM")


def test_llmcompiler_and_mermaid_say_what_they_leave_out() -> None:
    plan = Plan(goal="poems", steps=[Step(id="a", tool="ShortPoem", params={"input": "sea"}, locked=True,
                                          parallel=True, result_key="R")])
    for fmt in ("llmcompiler", "mermaid"):
        said = " | ".join(export_plan(plan, fmt, REGISTRY).dropped)
        for words in ("the goal", "step ids", "locks", "result keys"):
            assert words in said, (fmt, words)
    assert re.search(r"parallel flags of step 0", " | ".join(export_plan(plan, "llmcompiler", REGISTRY).dropped))


def test_teams_keeps_parallel_flags_and_dependencies() -> None:
    plan = Plan(steps=[Step(id="s1", tool="addItem", params={"list": "a", "item": "b"}, parallel=True),
                       Step(id="s2", tool="say", params={"message": "done"}, depends_on=["s1"])])
    back = load_plan(dump_plan(plan, "teams", REGISTRY), "teams", REGISTRY)
    assert back.steps[0].parallel and back.steps[1].depends_on == ["s1"]
    assert export_plan(plan, "teams", REGISTRY).dropped == []

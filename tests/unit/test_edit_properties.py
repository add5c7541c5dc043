"""Random sequences of edits never retarget a reference (docs/decisions/0001-step-references.md).

After every edit, each reference that survives names the same step id it named before (a
dangling one stays dangling), a reference to a deleted step is gone with its param, and an
edit that is refused was refused for the reason it gives (a dependent, a cycle, a step that
would come before its source).
"""

from __future__ import annotations

import json
import re
from typing import Any

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.plan._references import ID_AT, id_of
from core import (EditRefused, Plan, Step, add_dependency, add_step, delete_step, dependents_of, duplicate_step,
                  move_step, remove_dependency, remove_param, set_param)

# Every ``${step[N]`` (as the test writes them), in order, malformed references included.
INDEX = re.compile(r"\$\{\s*step\s*\[\s*([0-9]+)\s*\]")
DANGLING = "<dangling>"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for item in items for s in _strings(item)]


def targets(plan: Plan) -> dict[tuple[str, str], list[str]]:
    """(step id, param) → the step id each reference in it names, in order (as the edits
    read them: malformed references included)."""
    ids = {s.id for s in plan.steps}
    out = {}
    for step in plan.steps:
        for name, value in step.params.items():
            named = [id_of(m) for text in _strings(value) for m in ID_AT.finditer(text)]
            out[(step.id, name)] = [i if i in ids else DANGLING for i in named]
    return out


def has_cycle(plan: Plan) -> bool:
    """Whether the steps need each other in a circle, malformed references included (the
    edits count them: ``${step[1].data.`` still means step 1 is needed)."""
    graph = nx.DiGraph()
    ids = {s.id for s in plan.steps}
    for (step_id, _name), named in targets(plan).items():
        graph.add_edges_from((source, step_id) for source in named if source != DANGLING and source != step_id)
    for step in plan.steps:
        graph.add_edges_from((d, step.id) for d in step.depends_on if d in ids and d != step.id)
    return not nx.is_directed_acyclic_graph(graph)


def reference(index: int, kind: int) -> str:
    return ["${step[%d].data.*.id}" % index, "rows from ${step[%d].count}" % index,
            "${step[%d].data." % index, "${step[%d]}" % index][kind]


@st.composite
def param_value(draw: st.DrawFn, positions: int) -> Any:
    """A literal, or text with a reference to one of ``positions`` steps (or past the end)."""
    if positions == 0 or draw(st.booleans()):
        return draw(st.one_of(st.integers(-5, 5), st.text(max_size=4), st.none()))
    index = draw(st.integers(0, positions + 1))
    text = reference(index, draw(st.integers(0, 3)))
    return draw(st.sampled_from([text, [text, 1], {"k": text}]))


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    count = draw(st.integers(1, 7))
    steps = []
    for n in range(count):
        params = {f"p{k}": draw(param_value(n)) for k in range(draw(st.integers(0, 2)))}
        deps = draw(st.lists(st.sampled_from([f"s{i}" for i in range(n)]), max_size=2, unique=True)) if n else []
        steps.append(Step(id=f"s{n}", tool=draw(st.sampled_from(["t", "u"])), params=params, depends_on=deps))
    return Plan(goal="g", steps=steps)


def check_kept(before: Plan, after: Plan, skip: set[tuple[str, str]] = frozenset()) -> None:
    """References of params present before and after keep their targets; references to
    deleted steps are gone; no depends_on names a deleted step."""
    old, new = targets(before), targets(after)
    gone = {s.id for s in before.steps} - {s.id for s in after.steps}
    for key, named in old.items():
        if key in skip or key[0] in gone:
            continue
        if set(named) & gone:
            assert key not in new, f"{key} still references a deleted step"
        elif key in new:
            assert new[key] == named, f"{key} named {named}, now {new[key]}"
    for step in after.steps:
        assert not set(step.depends_on) & gone


# Derandomized: CI runs the same 200 sequences every time; a new seed is tried by hand
# (HYPOTHESIS_SEED / --hypothesis-seed), not by chance in CI.
@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(plan=plans(), data=st.data())
def test_random_edits_never_retarget_or_leave_a_reference_to_a_deleted_step(plan: Plan, data: st.DataObject):
    for _ in range(data.draw(st.integers(1, 8))):
        if not plan.steps:
            plan, _new = add_step(plan, "t")
            continue
        ids = [s.id for s in plan.steps]
        pick = data.draw(st.sampled_from(ids))
        other = data.draw(st.sampled_from(ids))
        edit = data.draw(st.sampled_from(["add", "delete", "duplicate", "move", "depend", "undepend",
                                          "set", "remove"]))
        before = plan
        skip: set[tuple[str, str]] = set()
        try:
            if edit == "add":
                value = data.draw(param_value(len(ids)))
                after_id = data.draw(st.sampled_from([None, *ids]))
                plan, new_id = add_step(plan, "t", params={"x": value}, after=after_id)
                intended = [ids[int(n)] if int(n) < len(ids) else DANGLING for n in INDEX.findall(json.dumps(value))]
                assert targets(plan)[(new_id, "x")] == intended
            elif edit == "delete":
                mode = data.draw(st.sampled_from(["refuse", "unlink", "delete"]))
                plan = delete_step(plan, pick, dependents=mode)
                assert pick not in {s.id for s in plan.steps}
            elif edit == "duplicate":
                plan, copy_id = duplicate_step(plan, pick)
                assert [v for (s, _n), v in sorted(targets(plan).items()) if s == copy_id] == \
                       [v for (s, _n), v in sorted(targets(before).items()) if s == pick]
            elif edit == "move":
                plan = move_step(plan, pick, data.draw(st.integers(0, len(ids) - 1)))
            elif edit == "depend":
                plan = add_dependency(plan, pick, other)
                assert other == pick or pick in plan.dependencies_of(other)
                if not has_cycle(before):
                    assert not has_cycle(plan)
            elif edit == "undepend":
                plan = remove_dependency(plan, pick, other)
                assert pick not in plan.dependencies_of(other)
            elif edit == "set":
                value = data.draw(param_value(len(ids)))
                plan = set_param(plan, pick, "x", value)
                skip.add((pick, "x"))
            else:
                plan = remove_param(plan, pick, data.draw(st.sampled_from(["x", "p0", "p1"])))
        except EditRefused as refused:
            assert plan is before
            if edit == "delete":
                assert dependents_of(plan, pick), "refused a delete nothing needed"
            elif edit == "depend":
                assert pick == other or has_cycle(Plan(steps=[s if s.id != other else s.model_copy(
                    update={"depends_on": [*s.depends_on, pick]}) for s in plan.steps]))
            elif edit == "move":
                assert "uses the output of" in str(refused)
            elif edit == "undepend":
                assert pick not in plan.dependencies_of(other) or pick == other
            else:
                raise
            continue
        check_kept(before, plan, skip)

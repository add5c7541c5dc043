"""The plan is a value (docs/decisions/0003-the-plan-is-a-value.md): ``Plan``, ``Step`` and
``PlanMetadata`` refuse assignment, and no code changes a plan it is given. The lists and dicts
inside a plan are not frozen containers, so the second half is checked here: every edit, the
embedded planner's re-plans, every format's export, the validator, the history and a run take
a plan and leave it (its content, and so its cached identity) exactly as it was."""

from __future__ import annotations

import copy
from contextlib import contextmanager
from typing import Callable, Iterator

import pytest
from pydantic import ValidationError

import core.plan._identity as identity_module
from core import (FORMATS, EditHistory, Executor, Plan, PlanError, PlanMetadata, PlanStudioError, Settings, Step,
                  ToolRegistry, Validator, add_dependency, add_step, delete_step, dump_plan, duplicate_step,
                  move_step, remove_dependency, remove_param, set_ask_first, set_locked, set_note, set_param,
                  set_reference)
from core.planners import EmbeddedPlanner
from tools import build_registry

from planner_cases import T

CHAIN = "Get facilities in Berlin, then their shipments, then check for contaminants"


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> ToolRegistry:
    return build_registry(Settings(data_dir=tmp_path_factory.mktemp("value"), today=T), groups=["waste"])


@pytest.fixture(scope="module")
def planner(registry: ToolRegistry) -> EmbeddedPlanner:
    return EmbeddedPlanner(registry)


@contextmanager
def untouched(plan: Plan) -> Iterator[None]:
    """The block leaves ``plan`` as it was: the same content, and a cached identity still true."""
    before = copy.deepcopy(plan.model_dump())
    identity = plan.identity
    yield
    assert plan.model_dump() == before
    assert plan.identity is identity and identity_module._identity(plan) == identity


def test_a_plan_its_steps_and_metadata_refuse_assignment() -> None:
    plan = Plan(goal="g", steps=[Step(id="a", tool="say")])
    for target, field, value in ((plan, "goal", "h"), (plan.steps[0], "params", {}), (plan.metadata, "planner", "x"),
                                 (plan.steps[0], "locked", True), (plan, "steps", [])):
        with pytest.raises(ValidationError, match="frozen"):
            setattr(target, field, value)
    assert plan.goal == "g" and plan.steps[0].params == {} and not plan.steps[0].locked


def test_a_changed_copy_has_its_own_identity_and_the_original_keeps_its_own() -> None:
    plan = Plan(goal="g", steps=[Step(id="a", tool="say", params={"message": "hi"})])
    first = plan.identity
    changed = plan.model_copy(update={"goal": "h"})
    assert changed.identity != first and plan.identity is first


def _four_steps() -> Plan:
    return Plan(goal="edit me", steps=[
        Step(id="a", tool="facilities_list", params={"location": "Berlin"}),
        Step(id="c", tool="facilities_list", params={"location": "Munich"}),
        Step(id="b", tool="shipments_list", params={"facility_id": "${steps.a.data.*.id}"}, depends_on=["a"]),
        Step(id="d", tool="say", params={"message": "done"}, depends_on=["c"]),
    ])


EDITS: list[tuple[str, Callable[[Plan], object]]] = [
    ("add_step", lambda p: add_step(p, "say", params={"message": "x"}, after="a")),
    ("delete_step", lambda p: delete_step(p, "d")),
    ("delete_step with dependents", lambda p: delete_step(p, "a", dependents="delete")),
    ("duplicate_step", lambda p: duplicate_step(p, "b")),
    ("move_step", lambda p: move_step(p, "c", 0)),
    ("add_dependency", lambda p: add_dependency(p, "c", "b")),
    ("remove_dependency", lambda p: remove_dependency(p, "c", "d")),
    ("set_param", lambda p: set_param(p, "a", "location", "Hamburg")),
    ("remove_param", lambda p: remove_param(p, "a", "location")),
    ("set_note", lambda p: set_note(p, "a", "why")),
    ("set_locked", lambda p: set_locked(p, "a", True)),
    ("set_ask_first", lambda p: set_ask_first(p, "a", True)),
]


@pytest.mark.parametrize("name, edit", EDITS, ids=[name for name, _ in EDITS])
def test_edits_leave_the_plan_they_are_given(name: str, edit) -> None:
    plan = _four_steps()
    with untouched(plan):
        result = edit(plan)
    changed = result[0] if isinstance(result, tuple) else result
    assert isinstance(changed, Plan) and changed.identity != plan.identity


def test_set_reference_leaves_the_plan_it_is_given(registry: ToolRegistry) -> None:
    plan = _four_steps()
    with untouched(plan):
        changed = set_reference(plan, "b", "facility_id", "c", "data.*.id", registry=registry)
    assert changed.step("b").params["facility_id"] != plan.step("b").params["facility_id"]


FEEDBACK = ["last month instead", "only shipments to Leipzig", "drop the contaminants step",
            "only shipments going to Munich landfills", "top-5", "add inspections", "keep only the facilities",
            "no location filter"]


@pytest.mark.parametrize("feedback", FEEDBACK)
def test_replans_leave_the_plan_they_are_given_and_its_locked_steps(planner: EmbeddedPlanner, feedback: str) -> None:
    plan = planner.plan(CHAIN, today=T)
    locked = set_locked(plan, plan.steps[1].id, True)
    for given in (plan, locked):
        with untouched(given):
            try:
                new = planner.replan(given, feedback, today=T)
            except PlanStudioError:
                continue  # refused (a locked step in the way): still untouched
            assert new is not given


def test_exports_validation_history_and_a_run_leave_the_plan_they_are_given(
        planner: EmbeddedPlanner, registry: ToolRegistry) -> None:
    plan = set_locked(planner.plan(CHAIN, today=T), "s1", True)
    plan = plan.model_copy(update={"metadata": PlanMetadata.model_validate(
        {**plan.metadata.model_dump(), "kept": {"by": ["a", "format"]}})})
    with untouched(plan):
        for name, fmt in list(FORMATS.items()):
            if fmt.dump is not None:
                try:
                    dump_plan(plan, name, registry)
                except PlanError:
                    pass  # a format that cannot say this plan: refused, untouched
        Validator(registry).validate(plan)
        history = EditHistory(plan)
        history.push(set_note(plan, "s1", "why"), "note")
        history.undo()
        Executor(registry).execute(plan)

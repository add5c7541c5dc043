"""Structural edits of a plan, each addressed by step id: add, delete, duplicate and move a
step, add and remove a dependency.

Each edit returns a new plan and leaves the old one as it was (``core.editing._edit_base``).
References name their step by id, so an edit that changes positions leaves every other
step's params as they were (``docs/decisions/0002-step-references-by-id.md``).
An edit that would break the plan is refused with ``EditRefused`` naming the steps and fields:
deleting a step that others need (unless told to unlink or delete them), moving a step before
a step whose output it uses, a dependency that would close a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ._edit_base import chain_text, index_of, needs, path_between, rebuilt, referencing_params
from .._errors import EditRefused
from ..plan._model import Plan, Step, new_step_id
from ..plan._positions import ids_for_positions
from ..tooling._registry import ToolRegistry
from ..plan._references import referenced_step_ids

__all__ = ["Dependent", "add_step", "dependents_of", "steps_deleted_with", "delete_step",
           "duplicate_step", "move_step", "add_dependency", "remove_dependency", "edge_between"]

DependentsChoice = Literal["refuse", "unlink", "delete"]


@dataclass(frozen=True)
class Dependent:
    """A step that needs another: through ``depends_on`` or through references in ``fields``
    (``params.<name>``)."""

    step_id: str
    kind: Literal["depends_on", "reference"]
    fields: tuple[str, ...]

    def describe(self, plan: Plan) -> str:
        """ "step 1 (shipments_list) uses its output in params.facility_id" """
        if self.kind == "depends_on":
            return f"{plan.label(self.step_id)} depends on it"
        return f"{plan.label(self.step_id)} uses its output in {', '.join(self.fields)}"


def _fresh_id(plan: Plan) -> str:
    taken = {s.id for s in plan.steps}
    while (step_id := new_step_id()) in taken:
        pass
    return step_id


def dependents_of(plan: Plan, step_id: str) -> list[Dependent]:
    """The steps that need ``step_id`` directly, in plan order; a step that both depends on
    it and references it appears twice, once per kind."""
    index_of(plan, step_id)
    out: list[Dependent] = []
    for step in plan.steps:
        if step.id == step_id:
            continue
        if step_id in step.depends_on:
            out.append(Dependent(step.id, "depends_on", ("depends_on",)))
        names = referencing_params(step, step_id)
        if names:
            out.append(Dependent(step.id, "reference", tuple(f"params.{n}" for n in names)))
    return out


def edge_between(plan: Plan, from_id: str, to_id: str) -> list[Dependent]:
    """How ``to_id`` needs ``from_id`` (empty when it does not): what removing the edge removes."""
    index_of(plan, to_id)
    return [d for d in dependents_of(plan, from_id) if d.step_id == to_id]


def steps_deleted_with(plan: Plan, step_id: str) -> list[str]:
    """Ids of the steps ``delete_step(..., dependents="delete")`` removes: the step and every
    step that needs it, directly or not, in plan order."""
    index_of(plan, step_id)
    wanted = needs(plan)
    doomed = {step_id}
    grew = True
    while grew:
        grew = False
        for other, sources in wanted.items():
            if other not in doomed and sources & doomed:
                doomed.add(other)
                grew = True
    return [s.id for s in plan.steps if s.id in doomed]


def add_step(plan: Plan, tool: str, *, params: dict[str, Any] | None = None, after: str | None = None,
             registry: ToolRegistry | None = None) -> tuple[Plan, str]:
    """``plan`` with a new step calling ``tool`` right after step ``after`` (at the end when
    ``None``), and the new step's id. References in ``params`` name steps by id; one written
    by position (``${step[N]...}``) counts positions as ``plan`` has them now. With a ``registry``, an unknown tool is refused (with a "did you mean")."""
    if registry is not None and tool not in registry:
        hint = registry.suggest(tool)
        raise EditRefused(f"unknown tool {tool!r}" + (f"; did you mean {hint!r}?" if hint else ""),
                          fields=["tool"])
    if params is not None and not isinstance(params, dict):
        raise EditRefused(f"params must be an object of name to value, not {type(params).__name__}",
                          fields=["params"])
    position = len(plan.steps) if after is None else index_of(plan, after) + 1
    step = Step(id=_fresh_id(plan), tool=tool, params=ids_for_positions(dict(params or {}), [s.id for s in plan.steps]))
    steps = list(plan.steps)
    steps.insert(position, step)
    return rebuilt(plan, steps), step.id


def delete_step(plan: Plan, step_id: str, *, dependents: DependentsChoice = "refuse") -> Plan:
    """``plan`` without step ``step_id``. When other steps need it, ``dependents`` decides:
    ``"refuse"`` raises ``EditRefused`` naming them and their fields; ``"unlink"`` removes
    their ``depends_on`` entries and the params that reference it (the whole param, as a
    reference cannot be half removed); ``"delete"`` deletes them too, and what needs them."""
    if dependents not in ("refuse", "unlink", "delete"):
        raise EditRefused(f"dependents must be 'refuse', 'unlink' or 'delete', not {dependents!r}")
    found = dependents_of(plan, step_id)
    if found and dependents == "refuse":
        listed = "; ".join(d.describe(plan) for d in found)
        raise EditRefused(f"cannot delete {plan.label(step_id)}: {listed}. Remove those links or "
                          "delete those steps too", step_ids=[d.step_id for d in found],
                          fields=[f for d in found for f in d.fields])
    if dependents == "delete":
        doomed = set(steps_deleted_with(plan, step_id))
        return rebuilt(plan, [s for s in plan.steps if s.id not in doomed])
    kept = []
    for step in plan.steps:
        if step.id == step_id:
            continue
        names = referencing_params(step, step_id)
        if names or step_id in step.depends_on:
            step = step.model_copy(update={
                "depends_on": [d for d in step.depends_on if d != step_id],
                "params": {k: v for k, v in step.params.items() if k not in names}})
        kept.append(step)
    return rebuilt(plan, kept)


def duplicate_step(plan: Plan, step_id: str) -> tuple[Plan, str]:
    """``plan`` with a copy of step ``step_id`` right after it, and the copy's id. The copy
    has the same tool, params (its references name the same steps), dependencies, note and
    ``parallel``; it is not locked, and has neither the original's result key nor its formats'
    data (a variable name, say: two steps setting one would make later steps read the wrong one)."""
    index = index_of(plan, step_id)
    original = plan.steps[index]
    copy = original.model_copy(update={"id": _fresh_id(plan), "locked": False, "format_data": {},
                                       "result_key": None, "depends_on": list(original.depends_on)})
    steps = list(plan.steps)
    steps.insert(index + 1, copy)
    return rebuilt(plan, steps), copy.id


def move_step(plan: Plan, step_id: str, index: int) -> Plan:
    """``plan`` with step ``step_id`` at position ``index`` (counted from 0, in the plan as it
    will be). A step may use only earlier steps' output, so a move that would put it before
    a step it references, or after a step that references it, is refused."""
    old = index_of(plan, step_id)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(plan.steps):
        raise EditRefused(f"cannot move {plan.label(step_id)} to position {index!r}: positions go "
                          f"from 0 to {len(plan.steps) - 1}", step_ids=[step_id])
    if index == old:
        return plan
    steps = list(plan.steps)
    moving = steps.pop(old)
    steps.insert(index, moving)
    position = {s.id: n for n, s in enumerate(steps)}
    clashes: list[str] = []
    where: list[str] = []
    for step in steps:
        for name, value in step.params.items():
            for source in sorted(referenced_step_ids(value) & position.keys(), key=position.__getitem__):
                if step_id in (step.id, source) and source != step.id and position[source] > position[step.id]:
                    clashes.append(f"{plan.label(step.id)} uses the output of {plan.label(source)} "
                                   f"in params.{name}")
                    where.append(step.id if step.id != step_id else source)
    if clashes:
        raise EditRefused(f"cannot move {plan.label(step_id)} to position {index}: "
                          + "; ".join(clashes) + ", and a step can only use the output of earlier steps",
                          step_ids=[step_id, *dict.fromkeys(where)])
    return rebuilt(plan, steps)


def add_dependency(plan: Plan, from_id: str, to_id: str) -> Plan:
    """``plan`` where step ``to_id`` depends on step ``from_id`` (runs after it). Already
    so (explicitly or through a reference): ``plan`` unchanged. A dependency that would close
    a cycle is refused, naming the steps around it."""
    index_of(plan, from_id)
    to_index = index_of(plan, to_id)
    if from_id == to_id:
        raise EditRefused(f"{plan.label(to_id)} cannot depend on itself", step_ids=[to_id],
                          fields=["depends_on"])
    # Only a dependency the executor sees counts as "already so": a malformed reference
    # (``${steps.s2.data.``) still needs its step for cycles, but orders nothing at run time.
    if from_id in plan.dependencies_of(to_id):
        return plan
    chain = path_between(plan, to_id, from_id)
    if chain is not None:
        cycle = [from_id, *chain]
        raise EditRefused(f"{plan.label(to_id)} cannot depend on {plan.label(from_id)}: that would make "
                          f"a cycle: {chain_text(plan, cycle)}", step_ids=cycle[:-1], fields=["depends_on"])
    steps = list(plan.steps)
    steps[to_index] = steps[to_index].model_copy(update={"depends_on": [*steps[to_index].depends_on, from_id]})
    return rebuilt(plan, steps)


def remove_dependency(plan: Plan, from_id: str, to_id: str) -> Plan:
    """``plan`` where step ``to_id`` no longer needs step ``from_id``: its ``depends_on``
    entry goes, and so do the params that reference ``from_id`` (``edge_between`` says which,
    for the editor to tell the user). Refused when there is no such edge."""
    index_of(plan, from_id)
    to_index = index_of(plan, to_id)
    step = plan.steps[to_index]
    names = referencing_params(step, from_id)
    if from_id not in step.depends_on and not names:
        raise EditRefused(f"{plan.label(to_id)} does not depend on {plan.label(from_id)}",
                          step_ids=[to_id], fields=["depends_on"])
    steps = list(plan.steps)
    steps[to_index] = step.model_copy(update={
        "depends_on": [d for d in step.depends_on if d != from_id],
        "params": {k: v for k, v in step.params.items() if k not in names}})
    return rebuilt(plan, steps)

"""Edits of one step's fields, addressed by step id: params, references, note and lock.

Both keep ``depends_on`` in step with the references they write: a step whose param now uses
another step's output lists that step in ``depends_on`` too, so the JSON says what the graph
draws (a reference alone draws the edge; ``depends_on: []`` beside it read as "no dependency").

``set_param`` stores what it is given, as the JSON panel does: the validator reports a value
that does not fit on its field, and approval waits until it does. The step form asks
``check_param`` first, so a wrong value is shown on the field and never applied silently.
``set_reference`` is stricter, as the reference picker offers only what fits: it refuses a
path the source tool cannot return, a value that cannot fit the param, a source that does not
come earlier, and a link that would close a cycle.
"""

from __future__ import annotations

from typing import Any

from ._edit_base import chain_text, index_of, path_between, with_step
from .._errors import EditRefused, PlanError, ReferenceSyntaxError
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry, describe_schema
from ..validation._schema_fit import may_fit
from ..plan._path_schemas import check_path, schema_at_path
from ..plan._references import parse_reference, referenced_step_ids, step_reference
from ..validation._validator import Validator

__all__ = ["set_param", "remove_param", "set_reference", "reference_text", "set_note", "set_locked", "set_ask_first",
           "check_param", "param_schema"]


def _param_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise EditRefused(f"a param needs a name, not {name!r}", fields=["params"])
    return name


def set_param(plan: Plan, step_id: str, name: str, value: Any) -> Plan:
    """``plan`` with param ``name`` of step ``step_id`` set to ``value`` (a literal, or text
    holding ``${steps.<id>.path}`` references; one written ``${step[N].path}``, as a user may
    type it, is read by the plan's order as it is now and kept by id)."""
    index = index_of(plan, step_id)
    name = _param_name(name)
    step = plan.steps[index]
    try:
        return _with_needs(with_step(plan, index, params={**step.params, name: value}), index, name)
    except PlanError as exc:  # not JSON, too deep, too long: say which step and field
        raise EditRefused(f"{plan.label(step_id)} · params.{name}: {exc}", step_ids=[step_id],
                          fields=[f"params.{name}"]) from exc


def remove_param(plan: Plan, step_id: str, name: str) -> Plan:
    """``plan`` without param ``name`` of step ``step_id`` (the tool's default applies);
    ``plan`` itself when the step has no such param."""
    index = index_of(plan, step_id)
    step = plan.steps[index]
    if name not in step.params:
        return plan
    return with_step(plan, index, params={k: v for k, v in step.params.items() if k != name})


def set_note(plan: Plan, step_id: str, note: str | None) -> Plan:
    """``plan`` with the note of step ``step_id`` set; blank text removes the note."""
    index = index_of(plan, step_id)
    if note is not None and not isinstance(note, str):
        raise EditRefused(f"a note is text, not {type(note).__name__}", step_ids=[step_id], fields=["note"])
    try:
        return with_step(plan, index, note=note if note and note.strip() else None)
    except PlanError as exc:
        raise EditRefused(f"{plan.label(step_id)} · note: {exc}", step_ids=[step_id], fields=["note"]) from exc


def set_locked(plan: Plan, step_id: str, locked: bool) -> Plan:
    """``plan`` with step ``step_id`` locked (a re-plan keeps it as it is) or unlocked."""
    index = index_of(plan, step_id)
    if not isinstance(locked, bool):
        raise EditRefused(f"locked is true or false, not {locked!r}", step_ids=[step_id], fields=["locked"])
    return with_step(plan, index, locked=locked)


def set_ask_first(plan: Plan, step_id: str, ask: bool) -> Plan:
    """``plan`` with step ``step_id`` marked (a run waits for a person before it) or not."""
    index = index_of(plan, step_id)
    if not isinstance(ask, bool):
        raise EditRefused(f"ask_first is true or false, not {ask!r}", step_ids=[step_id], fields=["ask_first"])
    return with_step(plan, index, ask_first=ask)


def param_schema(registry: ToolRegistry, tool: str, name: str) -> dict[str, Any] | None:
    """The JSON schema of param ``name`` of ``tool``, with the ``$defs`` it refers to;
    ``None`` when the tool is unknown or has no such param."""
    if tool not in registry:
        return None
    params = registry.get(tool).parameters
    schema = params.get("properties", {}).get(name)
    if schema is None:
        return None
    defs = params.get("$defs")
    return {**schema, "$defs": defs} if defs else dict(schema)


def reference_text(source_id: str, path: str) -> str:
    """``${steps.<id>.path}`` for a path written as the picker shows it: ``data.*.id``,
    ``data[0].name``, or empty for the whole result."""
    path = path.strip()
    if path and path[0] not in ".[":
        path = "." + path
    return step_reference(source_id, path)


def set_reference(plan: Plan, step_id: str, name: str, from_id: str, path: str, *,
                  registry: ToolRegistry) -> Plan:
    """``plan`` where param ``name`` of step ``step_id`` takes the value at ``path`` in step
    ``from_id``'s output (``data.*.id``: the ``id`` of every row, as a list). Checked against
    the source tool's return schema and the param's schema; refused with ``EditRefused``
    saying why when the path cannot exist, its value cannot fit, the source does not come
    earlier, or the link would close a cycle."""
    index = index_of(plan, step_id)
    source_index = index_of(plan, from_id)
    name = _param_name(name)
    step, source = plan.steps[index], plan.steps[source_index]
    field = f"params.{name}"

    def refuse(why: str, *steps: str) -> EditRefused:
        return EditRefused(f"{plan.label(step_id)} · {field}: {why}", step_ids=[step_id, *steps], fields=[field])

    if not isinstance(path, str):
        raise refuse(f"a path is text such as 'data.*.id', not {type(path).__name__}")
    if from_id == step_id:
        raise refuse("a step cannot use its own output")
    if source_index > index:
        raise refuse(f"{plan.label(from_id)} comes later; a step can only use the output of earlier "
                     "steps (move it first)", from_id)
    if step.tool not in registry:
        raise refuse(f"unknown tool {step.tool!r}, so its params are not known")
    schema = param_schema(registry, step.tool, name)
    if schema is None:
        hint = registry.get(step.tool).suggest_param(name)
        raise refuse(f"{step.tool} has no param {name!r}" + (f"; did you mean {hint!r}?" if hint else ""))
    text = reference_text(from_id, path)
    try:
        ref = parse_reference(text)
    except ReferenceSyntaxError as exc:
        raise refuse(str(exc)) from exc
    if source.tool in registry:
        returns = registry.get(source.tool).returns
        why = check_path(returns, ref.path)
        if why:
            raise refuse(f"{source.tool} output cannot have the path {path.strip() or '(whole result)'!r}: {why}",
                         from_id)
        got = schema_at_path(returns, ref.path)
        if not may_fit(got, schema):
            raise refuse(f"{path.strip() or 'the whole result'} of {source.tool} is {describe_schema(got, {})}, "
                         f"but {name} takes {describe_schema(schema, {})}", from_id)
    chain = path_between(plan, step_id, from_id)
    if chain is not None:
        raise refuse(f"that would make a cycle: {chain_text(plan, [from_id, *chain])}", *chain[1:])
    return _with_needs(with_step(plan, index, params={**step.params, name: text}), index, name)


def _with_needs(plan: Plan, index: int, name: str) -> Plan:
    """``plan`` where step ``index`` also depends on the steps its param ``name`` references, as
    stored (a ``${step[N]`` typed is an id by now), in plan order after the ones listed already;
    unknown ids are left to the validator."""
    step = plan.steps[index]
    used = referenced_step_ids(step.params.get(name))
    added = [s.id for s in plan.steps if s.id in used and s.id != step.id and s.id not in step.depends_on]
    return with_step(plan, index, depends_on=[*step.depends_on, *added]) if added else plan


def check_param(registry: ToolRegistry, plan: Plan, step_id: str, name: str, value: Any) -> str | None:
    """What is wrong with ``value`` as param ``name`` of step ``step_id``, in the validator's
    words (type, enum, bounds, the path and fit of a reference); ``None`` when it fits. For
    the step form, before ``set_param``."""
    try:
        candidate = set_param(plan, step_id, name, value)
    except EditRefused as exc:
        return str(exc)
    field = f"params.{name}"
    found = [p.message for p in Validator(registry).step_problems(candidate, step_id)
             if p.severity == "error"
             and (p.field == field or p.field.startswith((field + ".", field + "[")))]
    return "; ".join(dict.fromkeys(found)) or None

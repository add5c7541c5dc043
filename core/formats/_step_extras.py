"""What a step holds that a format has no place for, written beside the plan where the
format's own readers ignore it (SK's ``<plan>`` attributes, a Teams plan's top level), so a
plan read back by Plan Studio is the plan that was written.

    {"ids": ["a", "b"], "depends_on": {"1": [0]}, "parallel": [0, 1], "locked": [1],
     "result_key": {"0": "X"}, "format_data": {"1": {"sk": {...}}}, "note": {"0": "..."}}

Steps are named by position. Ids are written only when they are not the ones an import
gives anyway (``s1``, ``s2``, …), and ``depends_on`` only the dependencies no reference
implies, so a plain plan carries nothing extra.
"""

from __future__ import annotations

from typing import Any, Iterable

from .._errors import PlanFormatError
from ..plan._model import Plan, Step
from ..plan._references import renamed_steps
from ._seed import seed_step_ids

__all__ = ["EXTRA_FIELDS", "step_extras", "apply_step_extras", "run_in_order"]

EXTRA_FIELDS = ("ids", "depends_on", "parallel", "locked", "ask_first", "result_key", "format_data", "note")


def explicit_only(plan: Plan, n: int, index: dict[str, int]) -> list[int]:
    """Positions of the steps step ``n`` depends on that no reference of it implies
    (``index``: each step's position by id)."""
    step = plan.steps[n]
    implied = {ref.step for _name, ref in step.readable_references()}
    return sorted({index[d] for d in step.depends_on if d in index and d not in implied})


def _in_order_dependencies(steps: list[Step], n: int) -> list[str]:
    """What a format that runs its steps in order means step ``n`` needs: the step before it
    and every earlier step it refers to, in plan order."""
    referenced = {ref.step for _name, ref in steps[n].readable_references()}
    return [s.id for k, s in enumerate(steps[:n]) if k == n - 1 or s.id in referenced]


def run_in_order(steps: list[Step], extras: Any) -> None:
    """Steps of a format that runs them one after another (SK's functions, Teams' commands)
    each wait for the one before, as their origin runs them; unless Plan Studio wrote the
    plan's real dependencies beside it (``extras["depends_on"]``: a plan whose steps may run
    side by side)."""
    if isinstance(extras, dict) and "depends_on" in extras:
        return
    for n, step in enumerate(steps):
        steps[n] = step.model_copy(update={"depends_on": [
            *_in_order_dependencies(steps, n), *(d for d in step.depends_on if d not in {s.id for s in steps[:n]})]})


def step_extras(plan: Plan, fields: Iterable[str], *, in_order: bool = False) -> dict[str, Any]:
    """The ``fields`` of the plan's steps worth writing (only those set). ``in_order``: the
    format runs steps one after another, so dependencies are written (even none) unless they
    are exactly that order (``run_in_order`` reads them back)."""
    out: dict[str, Any] = {}
    steps = plan.steps
    for name in fields:
        if name == "ids":
            if [s.id for s in steps] != seed_step_ids(len(steps)):
                out["ids"] = [s.id for s in steps]
        elif name == "depends_on":
            if in_order and all(s.depends_on == _in_order_dependencies(steps, n) for n, s in enumerate(steps)):
                continue
            index = {s.id: k for k, s in enumerate(steps)}
            deps = {str(n): d for n in range(len(steps)) if (d := explicit_only(plan, n, index))}
            if deps or in_order:
                out["depends_on"] = deps
        elif name in ("parallel", "locked", "ask_first"):
            flagged = [n for n, s in enumerate(steps) if getattr(s, name)]
            if flagged:
                out[name] = flagged
        else:
            values = {str(n): getattr(s, name) for n, s in enumerate(steps) if getattr(s, name)}
            if values:
                out[name] = values
    return out


def _index(fmt: str, where: str, key: Any, count: int) -> int:
    if isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 4:
        key = int(key)
    if isinstance(key, bool) or not isinstance(key, int) or not 0 <= key < count:
        raise PlanFormatError(fmt, f"{where}: {key!r} is not the position of a step")
    return key


def apply_step_extras(fmt: str, where: str, data: Any, steps: list[Step]) -> None:
    """Set what ``data`` (read from ``where``) says on ``steps``, the list a format is reading
    (each step changed is put in its place as a new step); errors name the field."""
    if not isinstance(data, dict):
        raise PlanFormatError(fmt, f"{where} must be an object")
    unknown = sorted(set(data) - set(EXTRA_FIELDS))
    if unknown:
        raise PlanFormatError(fmt, f"{where} has unknown fields: {', '.join(unknown)}")
    count = len(steps)
    ids = data.get("ids")
    if ids is not None:
        if (not isinstance(ids, list) or len(ids) != count or not all(isinstance(i, str) and i for i in ids)
                or len(set(ids)) != count):
            raise PlanFormatError(fmt, f"{where}.ids must list {count} different step ids")
        renamed = dict(zip((s.id for s in steps), ids))
        for n, (step, new_id) in enumerate(zip(steps, ids)):
            steps[n] = step.model_copy(update={
                "id": new_id, "depends_on": [renamed.get(d, d) for d in step.depends_on],
                "params": renamed_steps(step.params, renamed)})  # read by the import's ids
    for name in ("parallel", "locked", "ask_first"):
        flagged = data.get(name, [])
        if not isinstance(flagged, list):
            raise PlanFormatError(fmt, f"{where}.{name} must list step positions")
        for key in flagged:
            n = _index(fmt, f"{where}.{name}", key, count)
            steps[n] = steps[n].model_copy(update={name: True})
    for name, kind in (("depends_on", list), ("result_key", str), ("format_data", dict), ("note", str)):
        values = data.get(name, {})
        if not isinstance(values, dict):
            raise PlanFormatError(fmt, f"{where}.{name} must be an object keyed by step position")
        for key, value in values.items():
            n = _index(fmt, f"{where}.{name}", key, count)
            step = steps[n]
            if not isinstance(value, kind):
                raise PlanFormatError(fmt, f"{where}.{name}.{key} must be {kind.__name__}")
            if name == "depends_on":
                depends_on = list(step.depends_on)
                for d in value:
                    step_id = steps[_index(fmt, f"{where}.depends_on.{key}", d, count)].id
                    if step_id not in depends_on:
                        depends_on.append(step_id)
                changed: Any = depends_on
            elif name == "format_data":
                if not all(isinstance(v, dict) for v in value.values()):
                    raise PlanFormatError(fmt, f"{where}.format_data.{key}: each format's data must be an object")
                # One level deep: a format's own fields may be written apart from the rest.
                changed = {**step.format_data, **{k: {**step.format_data.get(k, {}), **v} for k, v in value.items()}}
            else:
                changed = value
            steps[n] = step.model_copy(update={name: changed})

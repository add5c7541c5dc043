"""The Planner Agent's JSON, exactly as ``demo-domain.md`` defines it.

It names steps by position, in ``depends_on`` and in references (``${step[0].data.*.id}``):
read into ids by the ``Plan`` model, written back by ``positions_for_ids``.

``{"steps": [{"tool", "params", "depends_on": [index], "parallel"}], "metadata": {...}}``.
The goal and the planner's metadata travel in ``metadata``; a step's ``note`` is accepted
on import (also as ``description`` or ``reason``) so nothing a model wrote is lost. Plan
Studio also writes, on the steps that have them, ``note``, ``locked``, ``result_key``,
``format_data`` and ``id`` (only when the ids are not ``s1``, ``s2``, … which an import gives
anyway), so a plan keeps its review data through the seed format.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from pydantic import ValidationError

from .._errors import PlanFormatError
from ..plan._model import Plan, PlanMetadata, Step
from ..plan._positions import positions_for_ids
from ..tooling._registry import ToolRegistry
from ._base import check_step_count, load_json

_NOTE_KEYS = ("note", "description", "reason")
_STEP_KEYS = {"tool", "params", "depends_on", "parallel", "id", "locked", "ask_first", "result_key", "format_data", *_NOTE_KEYS}


def seed_step_ids(count: int) -> list[str]:
    """Deterministic ids for imported steps, so the same text gives the same plan."""
    return [f"s{n + 1}" for n in range(count)]


def plan_from_seed(data: Any, goal: str | None = None) -> Plan:
    """Build a ``Plan`` from already-parsed seed JSON; errors name the step and field."""
    if isinstance(data, list):
        data = {"steps": data}
    if not isinstance(data, dict):
        raise PlanFormatError("seed", f"expected an object with 'steps', got {type(data).__name__}")
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list):
        raise PlanFormatError("seed", "'steps' must be a list of steps")
    check_step_count("seed", len(raw_steps))
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise PlanFormatError("seed", "'metadata' must be an object")
    given_ids = [s.get("id") if isinstance(s, dict) else None for s in raw_steps]
    uses = Counter(g for g in given_ids if isinstance(g, str))
    kept = {g for g, count in uses.items() if g and count == 1}
    # A step without an id of its own gets the one for its position, unless another step
    # has taken it: then the first free one after all positions.
    spare = (d for d in seed_step_ids(2 * len(raw_steps))[len(raw_steps):] if d not in kept)
    ids = [g if isinstance(g, str) and g in kept else d if d not in kept else next(spare)
           for g, d in zip(given_ids, seed_step_ids(len(raw_steps)))]
    steps = []
    for n, raw in enumerate(raw_steps):
        where = f"steps[{n}]"
        if not isinstance(raw, dict):
            raise PlanFormatError("seed", f"{where} must be an object, got {type(raw).__name__}")
        if not isinstance(raw.get("tool"), str) or not raw["tool"].strip():
            raise PlanFormatError("seed", f"{where}.tool is missing or not a string")
        unknown = sorted(set(raw) - _STEP_KEYS)
        if unknown:
            raise PlanFormatError("seed", f"{where} has unknown fields: {', '.join(unknown)}")
        params = raw.get("params") or {}
        if not isinstance(params, dict):
            raise PlanFormatError("seed", f"{where}.params must be an object")
        deps_raw = raw.get("depends_on") or []
        if not isinstance(deps_raw, list):
            raise PlanFormatError("seed", f"{where}.depends_on must be a list of step indexes")
        deps = []
        for k, d in enumerate(deps_raw):
            if isinstance(d, bool) or not isinstance(d, int):
                raise PlanFormatError("seed", f"{where}.depends_on[{k}]: {d!r} is not a step index")
            # Out-of-range indexes stay visible so the validator can name them.
            deps.append(ids[d] if 0 <= d < len(ids) else f"step[{d}]")
        note = next((raw[k] for k in _NOTE_KEYS if isinstance(raw.get(k), str)), None)
        result_key = raw.get("result_key")
        if result_key is not None and not isinstance(result_key, str):
            raise PlanFormatError("seed", f"{where}.result_key must be text")
        format_data = raw.get("format_data") or {}
        if not isinstance(format_data, dict) or not all(isinstance(v, dict) for v in format_data.values()):
            raise PlanFormatError("seed", f"{where}.format_data must be an object of objects, one per format")
        steps.append(Step(id=ids[n], tool=raw["tool"].strip(), params=params, depends_on=deps,
                          parallel=bool(raw.get("parallel", False)), note=note,
                          locked=bool(raw.get("locked", False)), ask_first=bool(raw.get("ask_first", False)),
                          result_key=result_key or None,
                          format_data=format_data))
    meta = dict(metadata)
    plan_goal = goal if goal is not None else str(meta.pop("goal", "") or "")
    meta.pop("goal", None)
    try:
        return Plan(goal=plan_goal, steps=steps, metadata=PlanMetadata.model_validate(meta))
    except ValidationError as exc:
        raise PlanFormatError("seed", f"metadata: {exc.errors()[0]['msg']}") from exc


def plan_to_seed(plan: Plan) -> dict[str, Any]:
    index = {s.id: n for n, s in enumerate(plan.steps)}
    needs: dict[str, list[int]] = {s.id: [] for s in plan.steps}
    for before, after in plan.edges():  # in plan order; asking each step for its own costs n²
        needs[after].append(index[before])
    write_ids = [s.id for s in plan.steps] != seed_step_ids(len(plan.steps))
    steps = []
    for s in plan.steps:
        raw: dict[str, Any] = {
            "tool": s.tool,
            "params": positions_for_ids(s.params, index),
            "depends_on": needs[s.id],
            "parallel": s.parallel,
        }
        # Review data only where set: the seed format is also what models are shown.
        for key, value in (("id", s.id if write_ids else None), ("note", s.note),
                           ("locked", s.locked), ("ask_first", s.ask_first),
                           ("result_key", s.result_key), ("format_data", s.format_data)):
            if value:
                raw[key] = value
        steps.append(raw)
    metadata = {"goal": plan.goal, **plan.metadata.model_dump(mode="json")}
    return {"steps": steps, "metadata": metadata}


def load_seed(text: str, registry: ToolRegistry | None = None) -> Plan:
    return plan_from_seed(load_json("seed", text))


def dump_seed(plan: Plan, registry: ToolRegistry | None = None) -> str:
    return json.dumps(plan_to_seed(plan), indent=2, ensure_ascii=False)

"""What a reference gives in a run: for the inspector beside a param and the graph's edge tooltip.

``preview_reference`` says what each reference in a param gives: the value from a run's
results when the source step succeeded in it (the first few values and how many), else "not
yet run" with the type the source tool declares. It reads a run and never changes one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from .._errors import EditRefused, ReferenceResolutionError, ReferenceSyntaxError
from .._limits import shown
from ..plan._model import Plan, Step
from ..plan._path_schemas import schema_at_path
from ..plan._references import Reference, find_references, path_text, resolve_params
from ..tooling._registry import ToolRegistry, describe_schema
from ._model import Run
from ._status import RAN, StepStatus

__all__ = ["Preview", "flow_preview", "preview_reference"]

PREVIEW_VALUES = 5


def _step(plan: Plan, step_id: str) -> Step:
    try:
        return plan.step(step_id)
    except KeyError:
        raise EditRefused(f"this plan has no step with id {step_id!r}", step_ids=[step_id]) from None


PreviewStatus = Literal["resolved", "not yet run", "failed", "broken"]


@dataclass(frozen=True)
class Preview:
    """What one reference gives now. ``resolved``: ``values`` holds the first few values and
    ``count`` how many there are (a single value counts 1). ``not yet run``: the source step
    has no result in the run; ``type`` is what its tool declares. ``failed``: the source step
    failed (``message`` says how). ``broken``: the reference cannot be resolved (``message``
    says why). ``stale`` marks a value from a run whose source step has changed since."""

    text: str
    source_id: str | None
    path: str
    status: PreviewStatus
    type: str = "any value"
    values: list[Any] = field(default_factory=list)
    count: int | None = None
    message: str = ""
    stale: bool = False

    def summary(self) -> str:
        """One line for beside the field or on the edge's tooltip."""
        if self.status == "resolved":
            shown = ", ".join(_short(v) for v in self.values)
            if self.count == 1 and len(self.values) == 1:
                text = shown
            else:
                more = " …" if (self.count or 0) > len(self.values) else ""
                text = f"[{shown}{more}] ({self.count} value{'s' if self.count != 1 else ''})"
            return text + (" · from a run of an earlier version" if self.stale else "")
        if self.status == "not yet run":
            return f"not yet run · {self.type}"
        return self.message


def _short(value: Any, width: int = 40) -> str:
    text = repr(value) if isinstance(value, str) else _json(value)
    return text if len(text) <= width else text[:width - 1] + "…"


def _json(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def preview_reference(plan: Plan, run: Run | None, step_id: str, param: str, *,
                      registry: ToolRegistry | None = None, limit: int = PREVIEW_VALUES) -> list[Preview]:
    """A ``Preview`` for each reference in param ``param`` of step ``step_id``, in order;
    empty when the param holds none. ``run`` (the last run, or ``None``) supplies values;
    ``registry`` supplies the declared types shown before a run."""
    step = _step(plan, step_id)
    if param not in step.params:
        return []
    try:
        refs = find_references(step.params[param])
    except ReferenceSyntaxError as exc:
        return [Preview(text=str(step.params[param]), source_id=None, path="", status="broken", message=str(exc))]
    return [_preview(plan, run, ref, registry, limit) for ref in refs]


def flow_preview(plan: Plan, run: Run | None, from_id: str, to_id: str, *,
                 registry: ToolRegistry | None = None, limit: int = PREVIEW_VALUES) -> dict[str, list[Preview]]:
    """What flows along the edge from ``from_id`` to ``to_id``: for each param of ``to_id``
    that references ``from_id``, the previews of those references (for the edge's tooltip)."""
    source = _step(plan, from_id)
    step = _step(plan, to_id)
    out: dict[str, list[Preview]] = {}
    for name in step.params:
        found = [p for p in preview_reference(plan, run, to_id, name, registry=registry, limit=limit)
                 if p.source_id == source.id]
        if found:
            out[name] = found
    return out


def _preview(plan: Plan, run: Run | None, ref: Reference, registry: ToolRegistry | None, limit: int) -> Preview:
    path = path_text(ref.path)
    try:
        source = plan.step(ref.step)
    except KeyError:
        return Preview(ref.text, None, path, "broken",
                       message=f"{ref.text} refers to step {shown(ref.step)!r}, which is not a step of this plan")
    declared = "any value"
    if registry is not None and source.tool in registry:
        returns = registry.get(source.tool).returns
        declared = describe_schema(schema_at_path(returns, ref.path), returns.get("$defs", {}))
    base = dict(text=ref.text, source_id=source.id, path=path, type=declared)
    done = run.steps.get(source.id) if run is not None else None
    if done is None or done.status not in RAN:
        return Preview(**base, status="not yet run")
    if done.status == StepStatus.failed:
        return Preview(**base, status="failed", message=f"{plan.label(source.id)} failed: {done.error or 'no message'}")
    try:
        value = resolve_params(ref.text, {source.id: done.result})
    except ReferenceResolutionError as exc:
        return Preview(**base, status="broken", message=str(exc))
    was = next((s for s in run.plan.steps if s.id == source.id), None) if run is not None else None
    stale = was is None or (was.tool, was.params) != (source.tool, source.params)
    if isinstance(value, list):
        values, count = value[:limit], len(value)
    else:
        values, count = [value], 1
    return Preview(**base, status="resolved", values=values, count=count, stale=stale)

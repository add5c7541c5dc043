"""What a step's output offers to later steps, and what a reference resolves to now.

``output_paths`` lists the paths a reference picker may offer for a tool, read from the
tool's return schema: ``data`` (the rows), ``data.*.id`` (the ``id`` of every row, a list),
``data[0].name`` (the first row's name, one value). Given a param's schema it keeps only the
paths whose value can fit it (the rule of ``core.validation._schema_fit``): a list into an array param,
one value into a scalar one.

``preview_reference`` says what each reference in a param gives: the value from a run's
results when the source step succeeded in it (the first few values and how many), else "not
yet run" with the type the source tool declares.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from ._edit_base import index_of
from .._errors import EditRefused, ReferenceResolutionError, ReferenceSyntaxError
from .._limits import shown
from ..run._executor import Run, StepStatus
from ..run._status import RAN
from ..plan._model import Plan
from ..tooling._registry import ToolRegistry, describe_schema, schema_alternatives
from ..validation._schema_fit import may_fit
from ..plan._references import MAP, Reference, Segment, find_references, resolve_params, schema_at_path

__all__ = ["OutputPath", "output_paths", "Preview", "preview_reference", "flow_preview", "path_text"]

# Deep enough for rows of records of records; recursive types stop here.
MAX_PATH_PARTS = 6
PREVIEW_VALUES = 5


@dataclass(frozen=True)
class OutputPath:
    """One path into a tool's output: ``path`` as written after ``${steps.<id>`` (without its
    leading dot; empty for the whole result), its JSON ``schema`` and its ``type`` in words."""

    path: str
    segments: tuple[Segment, ...]
    schema: dict[str, Any]
    type: str
    description: str = ""

    @property
    def many(self) -> bool:
        """Whether the path maps over a list (``*``), so it yields one value per item."""
        return MAP in self.segments


def path_text(segments: tuple[Segment, ...]) -> str:
    """``("data", MAP, "id")`` → ``data.*.id``; ``("data", 0, "name")`` → ``data[0].name``."""
    out = ""
    for seg in segments:
        if seg is MAP:
            out += ".*" if out else "*"
        elif isinstance(seg, int):
            out += f"[{seg}]"
        else:
            out += f".{seg}" if out else str(seg)
    return out


def output_paths(registry: ToolRegistry, tool: str, fits: dict[str, Any] | None = None) -> list[OutputPath]:
    """Every path into ``tool``'s declared output, the whole result first; with ``fits`` (a
    param's JSON schema, ``$defs`` included) only those whose value can fit that param. A tool
    that declares no return type offers only its whole result, of any type."""
    if tool not in registry:
        hint = registry.suggest(tool)
        raise EditRefused(f"unknown tool {tool!r}" + (f"; did you mean {hint!r}?" if hint else ""),
                          fields=["tool"])
    returns = registry.get(tool).returns
    defs = returns.get("$defs", {})
    found: dict[str, tuple[Segment, ...]] = {}
    _walk(returns, (), defs, found, ())
    out = []
    for text, segments in found.items():
        if segments and segments[-1] is MAP:
            continue  # ``data.*`` is ``data`` again
        schema = schema_at_path(returns, segments)
        if fits is not None and not may_fit(schema, fits):
            continue
        description = next((o.get("description", "") for o in schema_alternatives(schema, defs)
                            if o.get("description")), "")
        out.append(OutputPath(text, segments, schema, describe_schema(schema, defs), description))
    return out


def _walk(schema: dict[str, Any], at: tuple[Segment, ...], defs: dict[str, Any],
          found: dict[str, tuple[Segment, ...]], seen: tuple[str, ...]) -> None:
    found.setdefault(path_text(at), at)
    if len(at) >= MAX_PATH_PARTS:
        return
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if seen.count(name) >= 2:
            return  # a recursive type: two levels of it are enough to pick from
        seen = (*seen, name)
    for option in schema_alternatives(schema, defs):
        for name, sub in (option.get("properties") or {}).items():
            _walk(sub, (*at, name), defs, found, seen)
        if option.get("type") == "array" and isinstance(option.get("items"), dict):
            _walk(option["items"], (*at, MAP), defs, found, seen)
            _walk(option["items"], (*at, 0), defs, found, seen)


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
    step = plan.steps[index_of(plan, step_id)]
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
    source = index_of(plan, from_id)
    step = plan.steps[index_of(plan, to_id)]
    out: dict[str, list[Preview]] = {}
    for name in step.params:
        found = [p for p in preview_reference(plan, run, to_id, name, registry=registry, limit=limit)
                 if p.source_id == plan.steps[source].id]
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

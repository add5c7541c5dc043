"""Semantic Kernel's sequential-planner XML plan.

    <plan>
      <!-- Write a poem about today and translate it -->
      <function.WriterPlugin.ShortPoem input="$TODAY_TOPIC" setContextVariable="POEM"/>
      <function.WriterPlugin.Translate input="$POEM" language="French"
                                       appendToResult="RESULT__TRANSLATED_POEM"/>
    </plan>

Each ``<function.Plugin.Name .../>`` is a step calling tool ``Name``. Its attributes are the
params, except ``setContextVariable`` (→ ``format_data["sk"]["output_var"]``, the format's
own data on the step) and ``appendToResult`` (→ ``Step.result_key``). SK passes data between functions through named variables: ``$X``
in a value means "the output of the latest earlier step that set X", which is a Plan Studio
reference to that step's whole output (``${steps.<id>}`` once read). As in SK, every function's output
also becomes ``$INPUT``, so ``$INPUT`` means the previous step's output.

A ``$X`` that no earlier step sets (and ``$INPUT`` in the first function) would be given
by whoever invokes the plan in SK, and left as the text ``$X`` when nobody does; a Plan
Studio plan has no such inputs. The plan still loads, with ``$X`` kept as text so nothing
the author wrote is lost, and its name is listed in ``metadata.sk_unset_variables``; the
validator reports every param that uses it (``_sk_checks``, registered with the format), so the plan cannot
run until it is given a value. Only ``$`` followed by a letter or ``_`` is a variable, so
"$5" in prose is text.

SK has no syntax for a path into an output, so a reference such as ``${steps.s1.data.*.id}``
is written in the positional seed form, ``${step[0].data.*.id}`` (the file has no step ids),
and read back by position (``core._positions``). Non-string values are JSON in the attribute and
are decoded on import; with a registry, a tool's parameter schema decides when a value that
looks like JSON is really a string (``location="100"``). Without one, a string param that
reads as JSON (``"true"``, ``"100"``) comes back as that JSON value.

An XML comment directly before a function (or inside it) is that step's note; comments
anywhere else are kept in ``metadata.comments``. Plan Studio also writes the goal, the
metadata and the parallel flags as attributes of ``<plan>``, which SK ignores, so a plan
survives an export and import. Dependencies not implied by references are not written: SK
runs functions in order.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

from pydantic import ValidationError

from .._errors import PlanFormatError, ReferenceSyntaxError
from .._limits import MAX_INDEX_DIGITS, MAX_NESTING
from .._plan import Plan, PlanMetadata, Step
from .._registry import ToolRegistry
from .._positions import ids_for_positions, positions_for_ids
from .._templates import find_references, step_reference
from ._base import check_step_count, parse_json
from ._seed import seed_step_ids
from ._sk_names import match_tool_name, sk_plugin_name
from ._sk_values import allowed_types, attribute_value, decode_value, walk_strings
from ._sk_checks import unset_variable_problems
from ._sk_variables import (INPUT, UNSET_VARIABLES, VARIABLE, Variables, invented_name, sk_data,
                            unset_variable_uses)
from ._sk_xml import (FORMAT, FUNCTION_PREFIX, XML_NAME, SkDocument, checked, comment_text, format_error,
                      locate_plan, read_xml)

__all__ = ["load_sk", "dump_sk", "sk_plugin_name", "match_tool_name", "unset_variable_uses",
           "unset_variable_problems", "UNSET_VARIABLES"]

SET_VARIABLE = "setContextVariable"
APPEND_TO_RESULT = "appendToResult"
_COMMENTS_KEY = "comments"  # metadata field holding comments that belong to no step
_ROOT_FIELDS = ("goal", "planner", "created_at", "today")
_ASCII_DIGITS = re.compile(r"[0-9]{1,%d}" % MAX_INDEX_DIGITS)


def load_sk(text: str, registry: ToolRegistry | None = None) -> Plan:
    part, offset = locate_plan(text)
    doc = read_xml(part, offset)
    check_step_count(FORMAT, len(doc.functions), "functions")
    ids = seed_step_ids(len(doc.functions))
    setters: dict[str, int] = {}  # variable (lower case, as SK ignores case) -> latest step
    unset: dict[str, str] = {}  # lower case -> as first written
    steps: list[Step] = []
    for n, fn in enumerate(doc.functions):
        tool = match_tool_name(fn.parts, registry)
        props: dict[str, Any] = {}
        defs: dict[str, Any] = {}
        if registry is not None and tool in registry:
            schema = registry.get(tool).parameters
            props, defs = schema.get("properties", {}), schema.get("$defs", {})
        output_var = result_key = None
        params: dict[str, Any] = {}

        def resolve(value: str) -> str:
            def sub(m: re.Match[str]) -> str:
                name = m.group(1)
                if name.lower() in setters:
                    return step_reference(ids[setters[name.lower()]])
                unset.setdefault(name.lower(), name)
                return m.group(0)
            return VARIABLE.sub(sub, value)

        for name, raw in fn.attributes:
            if name in (SET_VARIABLE, APPEND_TO_RESULT):
                variable = raw.strip().lstrip("$")
                if not variable:
                    raise format_error(fn.line, f"{name} on <function.{'.'.join(fn.parts)}> is empty")
                if name == SET_VARIABLE:
                    output_var = variable
                else:
                    result_key = variable
                continue
            allowed = allowed_types(props[name], defs) if name in props else None
            params[name] = walk_strings(decode_value(raw, allowed), resolve)
        params = ids_for_positions(params, ids)
        try:
            referenced = {r.step for r in find_references(params)}
        except ReferenceSyntaxError as exc:
            raise format_error(fn.line, str(exc)) from None
        setters[INPUT] = n  # SK hands every output on as $INPUT
        for variable in (output_var, result_key):
            if variable:
                setters[variable.lower()] = n
        if output_var == invented_name(n):
            output_var = None  # the exporter named it only so later steps could refer to it
        steps.append(Step(
            id=ids[n], tool=tool, params=params,
            depends_on=[i for i in ids[:n] if i in referenced],
            note="\n".join(fn.comments) or None, result_key=result_key, format_data=sk_data(output_var)))
    return _plan(doc, steps, list(unset.values()))


def _plan(doc: SkDocument, steps: list[Step], unset: list[str]) -> Plan:
    attrs = dict(doc.root_attributes)
    goal = attrs.pop("goal", "")
    parallel = attrs.pop("parallel", "")
    extra = attrs.pop("metadata", None)
    metadata: dict[str, Any] = {k: attrs[k] for k in _ROOT_FIELDS[1:] if k in attrs}
    if extra is not None:
        try:
            decoded = parse_json(extra, max_depth=MAX_NESTING + 1)
        except ValueError as exc:
            raise format_error(doc.root_line, f"<plan metadata> is not valid JSON: {exc}") from None
        if not isinstance(decoded, dict):
            raise format_error(doc.root_line, "<plan metadata> must be a JSON object")
        metadata.update(decoded)
    if unset:
        earlier = metadata.get(UNSET_VARIABLES)
        earlier = [v for v in earlier if isinstance(v, str)] if isinstance(earlier, list) else []
        seen = {v.lower() for v in earlier}
        metadata[UNSET_VARIABLES] = earlier + [v for v in unset if v.lower() not in seen]
    if doc.loose_comments:
        earlier = metadata.get(_COMMENTS_KEY)
        metadata[_COMMENTS_KEY] = (earlier if isinstance(earlier, list) else []) + doc.loose_comments
    for token in parallel.split():
        if not _ASCII_DIGITS.fullmatch(token) or int(token) >= len(steps):
            raise format_error(doc.root_line, f"<plan parallel>: {token!r} is not the index of a step")
        steps[int(token)].parallel = True
    try:
        meta = PlanMetadata.model_validate(metadata)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise format_error(doc.root_line, f"<plan {where}>: {first['msg']}") from None
    return Plan(goal=goal, steps=steps, metadata=meta)


# -- writing ---------------------------------------------------------------------------
def dump_sk(plan: Plan, registry: ToolRegistry | None = None) -> str:
    variables = Variables(plan)
    root = ET.Element("plan")
    if plan.goal:
        root.set("goal", checked(plan.goal, "goal"))
    meta = plan.metadata.model_dump(mode="json")
    comments = meta.pop(_COMMENTS_KEY, None)
    if not (isinstance(comments, list) and all(isinstance(c, str) for c in comments)):
        if comments is not None:
            meta[_COMMENTS_KEY] = comments
        comments = []
    for key in _ROOT_FIELDS[1:]:
        if meta.get(key) is not None:
            root.set(key, checked(str(meta.pop(key)), f"metadata.{key}"))
    if meta:
        root.set("metadata", checked(json.dumps(meta, ensure_ascii=False), "metadata"))
    parallel = [str(n) for n, s in enumerate(plan.steps) if s.parallel]
    if parallel:
        root.set("parallel", " ".join(parallel))

    for n, step in enumerate(plan.steps):
        where = f"step {n} ({step.tool})"
        if not XML_NAME.fullmatch(step.tool):
            raise PlanFormatError(FORMAT, f"{where}: the tool name cannot be written as an SK function name")
        if step.note:
            root.append(ET.Comment(f" {checked(comment_text(step.note), where + ' note')} "))
        group = registry.get(step.tool).group if registry is not None and step.tool in registry else None
        element = ET.SubElement(root, f"{FUNCTION_PREFIX}{sk_plugin_name(group)}.{step.tool}")
        for name, value in step.params.items():
            if not XML_NAME.fullmatch(name) or name in (SET_VARIABLE, APPEND_TO_RESULT):
                raise PlanFormatError(FORMAT, f"{where}: parameter {name!r} cannot be written as an SK attribute")
            value = walk_strings(value, lambda s: positions_for_ids(variables.to_sk(s, n), variables.position))
            element.set(name, checked(attribute_value(value), f"{where} {name}"))
        if n in variables.names:
            element.set(SET_VARIABLE, checked(variables.names[n], f"{where} output_var"))
        if step.result_key:
            element.set(APPEND_TO_RESULT, checked(step.result_key, f"{where} result_key"))
    for comment in comments:
        root.append(ET.Comment(f" {checked(comment_text(comment), 'metadata.comments')} "))
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"

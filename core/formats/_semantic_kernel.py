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

A function with no ``input`` (or an empty one) gets the previous function's output as its
input in SK: with a registry, a tool that takes ``input`` gets that reference, flagged in
``format_data["sk"]`` so the export leaves it implicit again. Names are read in .NET's
``Plugin.Function`` and Python's ``Plugin-Function`` forms. Elements inside ``<plan>`` that
are not functions (and elements inside a function) are skipped, as SK skips them, and kept
as a note; a ``<plan>`` never closed is closed, as SK does.

A ``$X`` that no earlier step sets (and ``$INPUT`` in the first function) would be given
by whoever invokes the plan in SK, and left as the text ``$X`` when nobody does (``$top`` in
an OData query, say); a Plan Studio plan has no such inputs. The plan loads with ``$X`` kept
as text, its name listed in ``metadata.sk_unset_variables``, and the validator warns at every
param that uses it, naming step and attribute (``_sk_checks``, registered with the format).
Only ``$`` followed by a letter or ``_`` is a variable, so "$5" in prose is text.

SK has no syntax for a path into an output, so a reference such as ``${steps.s1.data.*.id}``
is written in the positional seed form, ``${step[0].data.*.id}`` (the file has no step ids),
and read back by position (``core.plan._positions``). Non-string values are JSON in the attribute and
are decoded on import; with a registry, a tool's parameter schema decides when a value that
looks like JSON is really a string (``location="100"``). Without one, a string param that
reads as JSON (``"true"``, ``"100"``) comes back as that JSON value.

An XML comment directly before a function (or inside it) is that step's note; comments
anywhere else are kept in ``metadata.comments``. Plan Studio also writes the goal, the
metadata and the parallel flags as attributes of ``<plan>``, which SK ignores, so a plan
survives an export and import; so do the steps' ids (when not ``s1``, ``s2``, …), locks,
dependencies no reference implies (SK runs functions in order anyway) and other formats'
data, in ``<plan studio="{...}">``. A param whose text holds ``$NAME`` is written as it is
and listed in ``<plan literal="step:param">``, so it reads back as text, not a variable.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

from pydantic import ValidationError

from .._errors import PlanFormatError, ReferenceSyntaxError
from .._limits import MAX_INDEX_DIGITS, MAX_NESTING
from ..plan._model import Plan, PlanMetadata, Step
from ..tooling._registry import ToolRegistry
from ..plan._positions import ids_for_positions, positions_for_ids
from ..plan._references import find_references, step_reference
from ._base import check_step_count, parse_json
from ._seed import seed_step_ids
from ._step_extras import apply_step_extras, run_in_order, step_extras
from ._sk_names import match_tool_name, sk_plugin_name
from ._sk_values import allowed_types, attribute_value, decode_value, walk_strings
from ._sk_checks import unset_variable_problems
from ._sk_variables import (INPUT, SK, UNSET_VARIABLES, VARIABLE, Variables, invented_name, sk_data,
                            unset_variable_uses)
from ._sk_xml import (FORMAT, FUNCTION_PREFIX, XML_NAME, SkDocument, checked, comment_text, format_error,
                      locate_plan, read_xml)

__all__ = ["load_sk", "dump_sk", "sk_plugin_name", "match_tool_name", "unset_variable_uses",
           "unset_variable_problems", "UNSET_VARIABLES"]

SET_VARIABLE = "setContextVariable"
APPEND_TO_RESULT = "appendToResult"
_COMMENTS_KEY = "comments"  # metadata field holding comments that belong to no step
_ROOT_FIELDS = ("goal", "planner", "created_at", "today")
# <plan> attributes SK ignores that carry what SK has no syntax for: the steps' ids, locks,
# dependencies no reference implies and other formats' data (_step_extras), and the params
# whose "$NAME" text is text, not a variable.
_EXTRAS = "studio"
_LITERAL = "literal"
_EXTRA_FIELDS = ("ids", "depends_on", "locked", "ask_first", "format_data")
_IMPLICIT_INPUT = "implicit_input"  # format_data["sk"] flag: "input" was SK's $INPUT, not written
_INPUT_PARAM = "input"
_ASCII_DIGITS = re.compile(r"[0-9]{1,%d}" % MAX_INDEX_DIGITS)


def _reference(step_id: str) -> str:
    """The reference a ``$VARIABLE`` set by step ``step_id`` becomes (the one place this
    format writes a reference's text)."""
    return step_reference(step_id)


def load_sk(text: str, registry: ToolRegistry | None = None) -> Plan:
    part, offset = locate_plan(text)
    doc = read_xml(part, offset)
    check_step_count(FORMAT, len(doc.functions), "functions")
    literal = _literal_params(doc)
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
                    return _reference(ids[setters[name.lower()]])
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
            if name == _INPUT_PARAM and raw == "":
                continue  # an empty input is no input: SK hands on the previous output
            value = decode_value(raw, allowed)
            params[name] = value if (n, name) in literal else walk_strings(value, resolve)
        implicit = n > 0 and _INPUT_PARAM not in params and _INPUT_PARAM in props
        if implicit:
            params[_INPUT_PARAM] = _reference(ids[n - 1])  # SK's $INPUT: the previous output
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
        format_data = sk_data(output_var)
        if implicit:
            format_data.setdefault(SK, {})[_IMPLICIT_INPUT] = True
        steps.append(Step(
            id=ids[n], tool=tool, params=params,
            depends_on=[i for i in ids[:n] if i in referenced],
            note="\n".join(fn.comments) or None, result_key=result_key, format_data=format_data))
    return _plan(doc, steps, list(unset.values()))


def _plan(doc: SkDocument, steps: list[Step], unset: list[str]) -> Plan:
    attrs = dict(doc.root_attributes)
    goal = attrs.pop("goal", "")
    parallel = attrs.pop("parallel", "")
    attrs.pop(_LITERAL, None)
    extras = attrs.pop(_EXTRAS, None)
    if extras is not None:
        try:
            decoded_extras = parse_json(extras, max_depth=MAX_NESTING + 4)
        except ValueError as exc:
            raise format_error(doc.root_line, f"<plan {_EXTRAS}> is not valid JSON: {exc}") from None
        apply_step_extras(FORMAT, f"line {doc.root_line}: <plan {_EXTRAS}>", decoded_extras, steps)
    run_in_order(steps, decoded_extras if extras is not None else None)
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
        steps[int(token)] = steps[int(token)].model_copy(update={"parallel": True})
    try:
        meta = PlanMetadata.model_validate(metadata)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise format_error(doc.root_line, f"<plan {where}>: {first['msg']}") from None
    return Plan(goal=goal, steps=steps, metadata=meta)


def _literal_params(doc: SkDocument) -> set[tuple[int, str]]:
    """(step, param) pairs whose ``$NAME`` text is text (``<plan literal="2:query">``)."""
    found = set()
    for token in dict(doc.root_attributes).get(_LITERAL, "").split():
        index, _, param = token.partition(":")
        if not _ASCII_DIGITS.fullmatch(index) or not param:
            raise format_error(doc.root_line, f"<plan {_LITERAL}>: {token!r} is not step:param")
        found.add((int(index), param))
    return found


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
    extras = step_extras(_without_sk_data(plan), _EXTRA_FIELDS, in_order=True)
    if extras:
        root.set(_EXTRAS, checked(json.dumps(extras, ensure_ascii=False), "the steps' ids, locks and dependencies"))
    literal: list[str] = []

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
            if name == _INPUT_PARAM and _implicit_input(plan, n):
                continue  # SK hands the previous output on as input by itself
            if _has_variable_text(value):
                literal.append(f"{n}:{name}")  # written as it is, references too, and read as text
                value = positions_for_ids(value, variables.position)
            else:
                value = walk_strings(value, lambda s: positions_for_ids(variables.to_sk(s, n), variables.position))
            element.set(name, checked(attribute_value(value), f"{where} {name}"))
        if n in variables.names:
            element.set(SET_VARIABLE, checked(variables.names[n], f"{where} output_var"))
        if step.result_key:
            element.set(APPEND_TO_RESULT, checked(step.result_key, f"{where} result_key"))
    if literal:
        root.set(_LITERAL, " ".join(literal))
    for comment in comments:
        root.append(ET.Comment(f" {checked(comment_text(comment), 'metadata.comments')} "))
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"


def _implicit_input(plan: Plan, n: int) -> bool:
    step = plan.steps[n]
    return (n > 0 and step.format_data.get(SK, {}).get(_IMPLICIT_INPUT) is True
            and step.params.get(_INPUT_PARAM) == _reference(plan.steps[n - 1].id))


def _has_variable_text(value: Any) -> bool:
    """Whether ``value`` holds ``$NAME`` text, which SK (and this reader) would take for a variable."""
    found: list[bool] = []
    walk_strings(value, lambda s: found.append(bool(VARIABLE.search(s))))
    return any(found)


def _without_sk_data(plan: Plan) -> Plan:
    """The plan as far as the extras go: SK's own data is written as SK writes it."""
    steps = [s.model_copy(update={"format_data": {k: v for k, v in s.format_data.items() if k != SK}})
             for s in plan.steps]
    return plan.model_copy(update={"steps": steps})

"""Semantic Kernel's sequential-planner XML plan.

    <plan>
      <!-- Write a poem about today and translate it -->
      <function.WriterPlugin.ShortPoem input="$TODAY_TOPIC" setContextVariable="POEM"/>
      <function.WriterPlugin.Translate input="$POEM" language="French"
                                       appendToResult="RESULT__TRANSLATED_POEM"/>
    </plan>

Each ``<function.Plugin.Name .../>`` is a step calling tool ``Name``. Its attributes are the
params, except ``setContextVariable`` (→ ``Step.output_var``) and ``appendToResult``
(→ ``Step.result_key``). SK passes data between functions through named variables: ``$X``
in a value means "the output of the latest earlier step that set X", which is a Plan Studio
reference to that step's whole output, ``${step[i]}``. As in SK, every function's output
also becomes ``$INPUT``, so ``$INPUT`` means the previous step's output.

A ``$X`` that no earlier step sets (and ``$INPUT`` in the first function) would be given
by whoever invokes the plan in SK, and left as the text ``$X`` when nobody does; a Plan
Studio plan has no such inputs. The plan still loads, with ``$X`` kept as text so nothing
the author wrote is lost, and its name is listed in ``metadata.sk_unset_variables``; the
validator reports every param that uses it (``unset_variable_uses``), so the plan cannot
run until it is given a value. Only ``$`` followed by a letter or ``_`` is a variable, so
"$5" in prose is text.

SK has no syntax for a path into an output, so a reference such as ``${step[0].data.*.id}``
is written as it is and read back as it is. Non-string values are JSON in the attribute and
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
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator
from xml.parsers import expat

from pydantic import ValidationError

from .._errors import PlanFormatError, ReferenceSyntaxError
from .._limits import MAX_INDEX_DIGITS, MAX_NESTING, value_problem
from .._plan import Plan, PlanMetadata, Step
from .._registry import ToolRegistry
from .._schema_fit import json_type
from .._templates import find_references
from ._base import check_step_count, parse_json
from ._seed import seed_step_ids

__all__ = ["load_sk", "dump_sk", "sk_plugin_name", "match_tool_name", "unset_variable_uses",
           "UNSET_VARIABLES"]

FORMAT = "sk"
SET_VARIABLE = "setContextVariable"
APPEND_TO_RESULT = "appendToResult"
_FUNCTION_PREFIX = "function."
_COMMENTS_KEY = "comments"  # metadata field holding comments that belong to no step
UNSET_VARIABLES = "sk_unset_variables"  # metadata field: variables no step set on import
_INPUT = "input"  # SK's variable for the latest output (names compare in lower case)
_ROOT_FIELDS = ("goal", "planner", "created_at", "today")

# SK variable names; a letter or underscore first so "$5" in prose is not a variable.
_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_NAME_CHAR = re.compile(r"[A-Za-z0-9_]")
_XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_NOT_XML_CHAR = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# Possessive quantifiers (nothing given back) keep these linear: with ".*?" a run of comments
# before stray text was retried in every way of grouping them (2^n), and "\s*" beside "\s*"
# made a long run of spaces quadratic. A comment's body takes a "-" only when "->" does not
# follow, so it always stops at the first "-->".
_COMMENT = r"<!--(?:[^-]|-(?!->))*+-->"
_PROLOG = re.compile(r"\s*+(?:<\?xml[^>]*+(?<=\?)>)?+\s*+(?:" + _COMMENT
                     + r"\s*+|<!DOCTYPE[^\[>]*+(?:\[[^\]]*+\])?+\s*+>\s*+)*+")
_TRAILER = re.compile(r"\s*+(?:" + _COMMENT + r"\s*+)*+")
_ASCII_DIGITS = re.compile(r"[0-9]{1,%d}" % MAX_INDEX_DIGITS)
_PLAN_START = re.compile(r"<plan(?=[\s/>])")
_PLAN_END = "</plan>"

_PLUGINS = {
    "writer": "WriterPlugin",
    "lists": "ListPlugin",
    "waste": "WastePlugin",
    "conversation": "ConversationPlugin",
}


def sk_plugin_name(group: str | None) -> str:
    """The SK plugin a tool group is shown as: ``writer`` → ``WriterPlugin``."""
    if not group:
        return "Plugin"
    if group in _PLUGINS:
        return _PLUGINS[group]
    words = [w for w in re.split(r"[^A-Za-z0-9]+", group) if w]
    name = "".join(w[0].upper() + w[1:] for w in words)
    return f"{name}Plugin" if name and not name[0].isdigit() else "Plugin"


def match_tool_name(parts: list[str], registry: ToolRegistry | None) -> str:
    """The registered tool a dotted SK name means: ``Name``, else ``Plugin.Name`` or
    ``Plugin_Name``; exact case first, then ignoring case. Unknown names stay as written,
    for the validator to report."""
    name = parts[-1]
    if registry is None:
        return name
    candidates = [name]
    for k in range(2, len(parts) + 1):
        tail = parts[-k:]
        candidates += [".".join(tail), "_".join(tail)]
    for candidate in candidates:
        if candidate in registry:
            return candidate
    lowered: dict[str, str] = {}
    for registered in registry.names():
        lowered.setdefault(registered.lower(), registered)
    for candidate in candidates:
        if candidate.lower() in lowered:
            return lowered[candidate.lower()]
    return name


# -- comments ----------------------------------------------------------------------------
# XML comments may not contain "--" nor end in "-". A zero-width space after such a hyphen
# keeps the comment valid and is removed again on import, so notes survive unchanged.
_ZWSP = "\u200b"


def _comment_text(note: str) -> str:
    return re.sub(r"-(?=-|$)", "-" + _ZWSP, note)


def _note_text(comment: str) -> str:
    return re.sub("-" + _ZWSP + r"(?=-|$)", "-", comment.strip())


# -- reading -----------------------------------------------------------------------------
@dataclass
class _Function:
    line: int
    parts: list[str]  # "function.WriterPlugin.ShortPoem" -> ["WriterPlugin", "ShortPoem"]
    attributes: list[tuple[str, str]]
    comments: list[str] = field(default_factory=list)


@dataclass
class _Document:
    root_line: int = 0
    root_attributes: list[tuple[str, str]] = field(default_factory=list)
    functions: list[_Function] = field(default_factory=list)
    loose_comments: list[str] = field(default_factory=list)


def _error(line: int, message: str) -> PlanFormatError:
    return PlanFormatError(FORMAT, f"line {line}: {message}")


def _read_xml(text: str, line_offset: int) -> _Document:
    doc = _Document()
    parser = expat.ParserCreate(encoding="utf-8")
    parser.ordered_attributes = True
    stack: list[str] = []
    pending: list[str] = []
    current: list[_Function] = []

    def line() -> int:
        return parser.CurrentLineNumber + line_offset

    def pairs(flat: list[str]) -> list[tuple[str, str]]:
        return list(zip(flat[0::2], flat[1::2]))

    def start(name: str, attributes: list[str]) -> None:
        if not stack:
            if name != "plan":
                raise _error(line(), f"the root element must be <plan>, got <{name}>")
            doc.root_line, doc.root_attributes = line(), pairs(attributes)
        elif len(stack) == 1:
            if not name.startswith(_FUNCTION_PREFIX):
                raise _error(line(), f"<{name}> is not a function; a plan holds only "
                                     "<function.Plugin.Name .../> elements")
            parts = name[len(_FUNCTION_PREFIX):].split(".")
            if any(not p for p in parts):
                raise _error(line(), f"<{name}> should be named <function.Plugin.Name>")
            fn = _Function(line(), parts, pairs(attributes), comments=pending[:])
            pending.clear()
            doc.functions.append(fn)
            current[:] = [fn]
        else:
            raise _error(line(), f"<{name}> inside <{stack[-1]}>: a function takes its "
                                 "inputs as attributes, not as elements")
        stack.append(name)

    def end(name: str) -> None:
        stack.pop()
        if len(stack) == 1:
            current.clear()
        elif not stack:
            doc.loose_comments.extend(pending)
            pending.clear()

    def comment(data: str) -> None:
        note = _note_text(data)
        if not note:
            return
        if len(stack) == 1:
            pending.append(note)
        elif len(stack) >= 2 and current:
            current[0].comments.append(note)
        else:
            doc.loose_comments.append(note)

    def no_doctype(*_: Any) -> None:
        raise _error(line(), "a DOCTYPE is not allowed in a plan")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CommentHandler = comment
    parser.StartDoctypeDeclHandler = no_doctype
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError as exc:
        raise _error(exc.lineno + line_offset,
                     f"not well-formed XML (column {exc.offset + 1}): {expat.ErrorString(exc.code)}") from None
    if not stack and doc.root_line == 0:
        raise PlanFormatError(FORMAT, "no <plan> element found")
    return doc


def _locate_plan(text: str) -> tuple[str, int]:
    """The part of ``text`` to parse and its line offset.

    Models often wrap the plan in prose or a code fence; then only ``<plan>...</plan>`` is
    read. A plain XML document (declaration and comments around the plan) is read whole.
    """
    found = _PLAN_START.search(text)
    if found is None:
        return text, 0
    start = 0 if _PROLOG.fullmatch(text[:found.start()]) else found.start()
    close = text.rfind(_PLAN_END)
    end = len(text)
    if close >= found.start() and not _TRAILER.fullmatch(text[close + len(_PLAN_END):]):
        end = close + len(_PLAN_END)
    return text[start:end], text.count("\n", 0, start)


def _allowed_types(schema: dict[str, Any], defs: dict[str, Any]) -> set[str] | None:
    """JSON types a param schema accepts; ``None`` when it accepts anything."""
    if "$ref" in schema:
        return _allowed_types(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            found: set[str] = set()
            for option in schema[key]:
                sub = _allowed_types(option, defs)
                if sub is None:
                    return None
                found |= sub
            return found
    kind = schema.get("type")
    if kind is None:
        if "enum" in schema:
            return {json_type(v) for v in schema["enum"]}
        return None
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if "number" in kinds:
        kinds.add("integer")
    return kinds


def _decode_value(raw: str, allowed: set[str] | None) -> Any:
    """An attribute value as the param value: JSON lists, objects, numbers and booleans are
    decoded, strings stay strings; ``allowed`` (from the tool's schema) settles doubts. Text
    that is not JSON a plan could hold (NaN, a huge integer, deep nesting) stays text."""
    try:
        value = parse_json(raw, max_depth=MAX_NESTING)
    except ValueError:
        return raw
    if value_problem(value) is not None:  # 1e999 reads as infinity
        return raw
    kind = json_type(value)
    if kind == "string":
        return raw
    if kind == "null":
        return None if allowed is not None and "null" in allowed and "string" not in allowed else raw
    if allowed is not None and kind not in allowed and "string" in allowed:
        return raw
    return value


def _walk_strings(value: Any, fn: Callable[[str], Any]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_walk_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _walk_strings(v, fn) for k, v in value.items()}
    return value


def load_sk(text: str, registry: ToolRegistry | None = None) -> Plan:
    part, offset = _locate_plan(text)
    doc = _read_xml(part, offset)
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
                    return f"${{step[{setters[name.lower()]}]}}"
                unset.setdefault(name.lower(), name)
                return m.group(0)
            return _VARIABLE.sub(sub, value)

        for name, raw in fn.attributes:
            if name in (SET_VARIABLE, APPEND_TO_RESULT):
                variable = raw.strip().lstrip("$")
                if not variable:
                    raise _error(fn.line, f"{name} on <function.{'.'.join(fn.parts)}> is empty")
                if name == SET_VARIABLE:
                    output_var = variable
                else:
                    result_key = variable
                continue
            allowed = _allowed_types(props[name], defs) if name in props else None
            params[name] = _walk_strings(_decode_value(raw, allowed), resolve)
        try:
            referenced = {r.step for r in find_references(params)}
        except ReferenceSyntaxError as exc:
            raise _error(fn.line, str(exc)) from None
        setters[_INPUT] = n  # SK hands every output on as $INPUT
        for variable in (output_var, result_key):
            if variable:
                setters[variable.lower()] = n
        if output_var == _invented_name(n):
            output_var = None  # the exporter named it only so later steps could refer to it
        steps.append(Step(
            id=ids[n], tool=tool, params=params,
            depends_on=[ids[i] for i in sorted(referenced) if 0 <= i < n],
            note="\n".join(fn.comments) or None, output_var=output_var, result_key=result_key))
    return _plan(doc, steps, list(unset.values()))


def unset_variable_uses(plan: Plan) -> Iterator[tuple[int, str, str]]:
    """(step index, param, ``$NAME``) for each use of a variable the plan was imported
    with but no earlier step set; see the module docstring."""
    listed = (plan.metadata.model_extra or {}).get(UNSET_VARIABLES)
    if not isinstance(listed, list):
        return
    names = {v.lower() for v in listed if isinstance(v, str)}
    for n, step in enumerate(plan.steps):
        for param, value in step.params.items():
            found: list[str] = []

            def collect(text: str) -> str:
                found.extend(m.group(0) for m in _VARIABLE.finditer(text)
                             if m.group(1).lower() in names and m.group(0) not in found)
                return text

            _walk_strings(value, collect)
            for variable in found:
                yield n, param, variable


def _plan(doc: _Document, steps: list[Step], unset: list[str]) -> Plan:
    attrs = dict(doc.root_attributes)
    goal = attrs.pop("goal", "")
    parallel = attrs.pop("parallel", "")
    extra = attrs.pop("metadata", None)
    metadata: dict[str, Any] = {k: attrs[k] for k in _ROOT_FIELDS[1:] if k in attrs}
    if extra is not None:
        try:
            decoded = parse_json(extra, max_depth=MAX_NESTING + 1)
        except ValueError as exc:
            raise _error(doc.root_line, f"<plan metadata> is not valid JSON: {exc}") from None
        if not isinstance(decoded, dict):
            raise _error(doc.root_line, "<plan metadata> must be a JSON object")
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
            raise _error(doc.root_line, f"<plan parallel>: {token!r} is not the index of a step")
        steps[int(token)].parallel = True
    try:
        meta = PlanMetadata.model_validate(metadata)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise _error(doc.root_line, f"<plan {where}>: {first['msg']}") from None
    return Plan(goal=goal, steps=steps, metadata=meta)


# -- writing -----------------------------------------------------------------------------
def _invented_name(index: int) -> str:
    return f"STEP_{index}_OUTPUT"


def _checked(text: str, where: str) -> str:
    bad = _NOT_XML_CHAR.search(text)
    if bad:
        raise PlanFormatError(FORMAT, f"{where}: character {bad.group()!r} cannot be written in XML")
    return text


def _attribute_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _Variables:
    """Which SK variable names the steps' outputs go by, inventing names where needed."""

    def __init__(self, plan: Plan) -> None:
        self.steps = plan.steps
        self.names: dict[int, str] = {n: s.output_var for n, s in enumerate(self.steps) if s.output_var}
        taken = {v.lower() for s in self.steps for v in (s.output_var, s.result_key) if v}
        for n, step in enumerate(self.steps):
            for ref in _safe_references(step.params):
                if not ref.path and 0 <= ref.step < n and ref.step not in self.names:
                    name, k = _invented_name(ref.step), 2
                    while name.lower() in taken:
                        name, k = f"{_invented_name(ref.step)}_{k}", k + 1
                    taken.add(name.lower())
                    self.names[ref.step] = name
        # For each step whose output has a name, the first later step that sets the same
        # variable: worked out once, so each reference is one lookup, not a walk of the plan.
        self.overwritten_at: dict[int, int] = {}
        latest: dict[str, int] = {}
        for k in range(len(self.steps) - 1, -1, -1):
            name = self.names.get(k)
            if name is not None and name.lower() in latest:
                self.overwritten_at[k] = latest[name.lower()]
            for variable in {v.lower() for v in (name, self.steps[k].result_key) if v}:
                latest[variable] = k

    def usable(self, source: int, at: int) -> str | None:
        """The name by which step ``at`` can read step ``source``'s output, if any: no step
        in between may set the same variable, or ``$NAME`` would mean that step instead."""
        name = self.names.get(source)
        if name is None or not 0 <= source < at or self.overwritten_at.get(source, at) < at:
            return None
        if name.lower() == _INPUT and source != at - 1:
            return None  # $INPUT is always the previous step's output
        return name

    def to_sk(self, text: str, at: int) -> str:
        out, pos = [], 0
        for ref in _safe_references(text):
            start = text.find(ref.text, pos)
            end = start + len(ref.text)
            name = None if ref.path else self.usable(ref.step, at)
            if name is None or _NAME_CHAR.match(text, end):
                continue  # kept as reference text; SK has no syntax for it
            out += [text[pos:start], f"${name}"]
            pos = end
        out.append(text[pos:])
        return "".join(out)


def _safe_references(value: Any) -> list[Any]:
    try:
        return find_references(value)
    except ReferenceSyntaxError:
        return []  # malformed reference text is written as it is; the validator reports it


def dump_sk(plan: Plan, registry: ToolRegistry | None = None) -> str:
    variables = _Variables(plan)
    root = ET.Element("plan")
    if plan.goal:
        root.set("goal", _checked(plan.goal, "goal"))
    meta = plan.metadata.model_dump(mode="json")
    comments = meta.pop(_COMMENTS_KEY, None)
    if not (isinstance(comments, list) and all(isinstance(c, str) for c in comments)):
        if comments is not None:
            meta[_COMMENTS_KEY] = comments
        comments = []
    for key in _ROOT_FIELDS[1:]:
        if meta.get(key) is not None:
            root.set(key, _checked(str(meta.pop(key)), f"metadata.{key}"))
    if meta:
        root.set("metadata", _checked(json.dumps(meta, ensure_ascii=False), "metadata"))
    parallel = [str(n) for n, s in enumerate(plan.steps) if s.parallel]
    if parallel:
        root.set("parallel", " ".join(parallel))

    for n, step in enumerate(plan.steps):
        where = f"step {n} ({step.tool})"
        if not _XML_NAME.fullmatch(step.tool):
            raise PlanFormatError(FORMAT, f"{where}: the tool name cannot be written as an SK function name")
        if step.note:
            root.append(ET.Comment(f" {_checked(_comment_text(step.note), where + ' note')} "))
        group = registry.get(step.tool).group if registry is not None and step.tool in registry else None
        element = ET.SubElement(root, f"{_FUNCTION_PREFIX}{sk_plugin_name(group)}.{step.tool}")
        for name, value in step.params.items():
            if not _XML_NAME.fullmatch(name) or name in (SET_VARIABLE, APPEND_TO_RESULT):
                raise PlanFormatError(FORMAT, f"{where}: parameter {name!r} cannot be written as an SK attribute")
            value = _walk_strings(value, lambda s: variables.to_sk(s, n))
            element.set(name, _checked(_attribute_value(value), f"{where} {name}"))
        if n in variables.names:
            element.set(SET_VARIABLE, _checked(variables.names[n], f"{where} output_var"))
        if step.result_key:
            element.set(APPEND_TO_RESULT, _checked(step.result_key, f"{where} result_key"))
    for comment in comments:
        root.append(ET.Comment(f" {_checked(_comment_text(comment), 'metadata.comments')} "))
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"

"""The step inspector: a form for the selected step, generated from its tool's JSON schema.

One field per param, labelled with the param's name: enums as selects, booleans as toggles,
dates as date pickers, integers and numbers with their bounds, lists one item per line, other
values as text (JSON where it parses). Each field holds a typed value or a reference: its
"from" picker offers the earlier steps, and the field then offers only the paths of that step's
output that exist and fit the param (``core.output_paths``), with a preview of what the
reference resolves to. A value that does not fit is shown on its field and not applied
(``core.check_param``); every accepted change is one edit through ``_editor.apply_edit``.

Widget keys end with the editor's revision: after any edit (here, in the graph or the JSON
panel) the fields are new widgets that show the plan as it is.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import streamlit as st

from core import (Plan, PlanStudioError, ReferenceSyntaxError, Run, StepStatus, Tool, check_param, output_paths,
                  param_schema, parse_reference, preview_reference, remove_param, schema_alternatives,
                  set_ask_first, set_locked, set_note, set_param, set_reference)

from ._editor import apply_edit
from ...workbench import step_sentence
from ...workbench._services import Services
from .._state import Keys, bench
from .._text import md_escape
from ._rehearsal_panel import pin_panel
from ._step_results import step_result

__all__ = ["TYPED", "field_kind", "inspector"]

TYPED = "typed value"  # the "from" picker's choice for a literal
_NOT_SET = "(not set)"


def _alternatives(schema: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """``schema_alternatives``, with a list of types (``"type": ["integer", "null"]``, as JSON
    schemas an agent declares for its own tools write a nullable param) taken one type at a time."""
    out: list[dict[str, Any]] = []
    for option in schema_alternatives(schema, defs):
        kinds = option.get("type")
        out += [{**option, "type": kind} for kind in kinds] if isinstance(kinds, list) else [option]
    return out


def field_kind(schema: dict[str, Any]) -> str:
    """Which widget a param gets: enum, boolean, date, integer, number, list, text or json."""
    defs = schema.get("$defs", {})
    options = [o for o in _alternatives(schema, defs) if o.get("type") != "null"] or [{}]
    if all("enum" in o for o in options):
        return "enum"
    types = {o.get("type") for o in options}
    if types == {"boolean"}:
        return "boolean"
    if types == {"string"} and all(o.get("format") == "date" for o in options):
        return "date"
    if types == {"integer"}:
        return "integer"
    if types <= {"number", "integer"} and types:
        return "number"
    if types == {"array"}:
        return "list"
    if "string" in types:
        return "text"
    return "json"


def _option(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.get("$defs", {})
    options = [o for o in _alternatives(schema, defs) if o.get("type") != "null"]
    return options[0] if options else {}


def _enum_values(schema: dict[str, Any]) -> list[Any]:
    defs = schema.get("$defs", {})
    values: list[Any] = []
    for option in schema_alternatives(schema, defs):
        values += [v for v in option.get("enum", []) if v not in values]
    return values


def _key(step_id: str, name: str, part: str = "") -> str:
    revision = bench().revision
    return f"{Keys.EDITOR_FIELD_PREFIX}{step_id}.{name}{'.' + part if part else ''}.{revision}"


def _error_key(step_id: str, name: str) -> str:
    return f"{step_id}.{name}"


def _reference_of(plan: Plan, value: Any) -> tuple[str, str] | None:
    """(source step id, path as the picker writes it) when ``value`` is one whole reference."""
    if not isinstance(value, str):
        return None
    try:
        ref = parse_reference(value)
    except ReferenceSyntaxError:
        return None
    if not any(s.id == ref.step for s in plan.steps):
        return None
    return ref.step, ref.path_text.lstrip(".")


# -- reading a widget's value ---------------------------------------------------------------------

class _Unreadable(Exception):
    """The text in a field cannot be read as the param's kind of value."""


def _read(kind: str, schema: dict[str, Any], raw: Any) -> Any:
    """The value a widget holds as the param's value; None means "not set"."""
    if kind == "enum":
        return None if raw in (None, _NOT_SET) else raw
    if kind == "date":
        return raw.isoformat() if isinstance(raw, dt.date) else None
    if kind in ("integer", "number", "boolean"):
        return raw
    text = "" if raw is None else str(raw)
    if not text.strip():
        return None
    if kind == "list":
        items_schema = _option(schema).get("items", {})
        items = [line.strip() for line in text.splitlines() if line.strip()]
        return [_item(item, items_schema) for item in items]
    if kind == "json" or (kind == "text" and text.lstrip().startswith(("[", "{"))):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            if kind == "json":
                raise _Unreadable(f"is not valid JSON ({exc.msg} at character {exc.pos + 1})") from exc
    return text


def _item(text: str, schema: dict[str, Any]) -> Any:
    """One line of a list field, as the item type wants it (numbers stay text if they are not)."""
    kinds = {o.get("type") for o in _alternatives(schema, schema.get("$defs", {}))}
    if kinds & {"integer", "number", "boolean", "object", "array"}:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text  # the check says which item is not a number
    return text


def _shown(kind: str, value: Any) -> Any:
    """The param's value as its widget shows it."""
    if value is None:
        return None
    if kind == "date" and isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    if kind == "list" and isinstance(value, list):
        return "\n".join(v if isinstance(v, str) else json.dumps(v) for v in value)
    if kind in ("text", "json", "list"):
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return value


# -- callbacks -------------------------------------------------------------------------------------

def _typed_changed(services: Services, step_id: str, name: str, kind: str, key: str) -> None:
    plan: Plan | None = bench().plan
    if plan is None or step_id not in {s.id for s in plan.steps}:
        return
    errors: dict[str, str] = st.session_state[Keys.EDITOR_FIELD_ERRORS]
    schema = param_schema(services.registry, plan.step(step_id).tool, name) or {}
    label = f"set {name} of {plan.label(step_id)}"
    try:
        value = _read(kind, schema, st.session_state.get(key))
    except _Unreadable as exc:
        errors[_error_key(step_id, name)] = f"{name} {exc}. Not applied."
        return
    if value is None:
        tool = plan.step(step_id).tool
        if tool in services.registry and name in services.registry.get(tool).required:
            errors[_error_key(step_id, name)] = f"{name} is required: give it a value. Not applied."
            return
        errors.pop(_error_key(step_id, name), None)
        apply_edit(f"clear {name} of {plan.label(step_id)}", lambda p: remove_param(p, step_id, name))
        return
    why = check_param(services.registry, plan, step_id, name, value)
    if why:
        errors[_error_key(step_id, name)] = f"{name}: {why}. Not applied."
        return
    errors.pop(_error_key(step_id, name), None)
    apply_edit(label, lambda p: set_param(p, step_id, name, value))


def _source_changed(services: Services, step_id: str, name: str, key: str) -> None:
    plan: Plan | None = bench().plan
    if plan is None or step_id not in {s.id for s in plan.steps}:
        return
    source = st.session_state.get(key)
    errors: dict[str, str] = st.session_state[Keys.EDITOR_FIELD_ERRORS]
    if source in (None, TYPED):
        errors.pop(_error_key(step_id, name), None)
        apply_edit(f"clear {name} of {plan.label(step_id)}", lambda p: remove_param(p, step_id, name))
        return
    paths = _fitting_paths(services, plan, step_id, name, source)
    if not paths:
        errors[_error_key(step_id, name)] = (f"nothing in the output of {plan.label(source)} fits {name}. "
                                             "Not applied.")
        return
    _link(services, plan, step_id, name, source, paths[0])


def _path_changed(services: Services, step_id: str, name: str, source: str, key: str) -> None:
    plan: Plan | None = bench().plan
    path = st.session_state.get(key)
    if plan is None or step_id not in {s.id for s in plan.steps} or path is None:
        return
    _link(services, plan, step_id, name, source, str(path))


def _link(services: Services, plan: Plan, step_id: str, name: str, source: str, path: str) -> None:
    errors: dict[str, str] = st.session_state[Keys.EDITOR_FIELD_ERRORS]
    try:
        set_reference(plan, step_id, name, source, path, registry=services.registry)
    except PlanStudioError as exc:
        errors[_error_key(step_id, name)] = f"{exc}. Not applied."
        return
    errors.pop(_error_key(step_id, name), None)
    apply_edit(f"link {name} of {plan.label(step_id)} to {path or 'the result'} of {plan.label(source)}",
               lambda p: set_reference(p, step_id, name, source, path, registry=services.registry))


def _note_changed(step_id: str, key: str) -> None:
    plan: Plan = bench().plan
    apply_edit(f"edit the note of {plan.label(step_id)}", lambda p: set_note(p, step_id, st.session_state.get(key)))


def _lock_changed(step_id: str, key: str) -> None:
    plan: Plan = bench().plan
    locked = bool(st.session_state.get(key))
    apply_edit(f"{'lock' if locked else 'unlock'} {plan.label(step_id)}",
               lambda p: set_locked(p, step_id, locked))


def _ask_changed(step_id: str, key: str) -> None:
    plan: Plan = bench().plan
    ask = bool(st.session_state.get(key))
    apply_edit(f"{'ask before' if ask else 'stop asking before'} {plan.label(step_id)}",
               lambda p: set_ask_first(p, step_id, ask))


def _fitting_paths(services: Services, plan: Plan, step_id: str, name: str, source: str) -> list[str]:
    source_tool = plan.step(source).tool
    tool = plan.step(step_id).tool
    if source_tool not in services.registry:
        return []
    schema = param_schema(services.registry, tool, name)
    return [found.path for found in output_paths(services.registry, source_tool, fits=schema)]


# -- drawing ---------------------------------------------------------------------------------------

def inspector(services: Services, plan: Plan, run: Run | None) -> None:
    """The form of the selected step, or a hint to select one."""
    step_id: str | None = st.session_state[Keys.EDITOR_SELECTED]
    with st.container(border=True, key="editor.inspector"):
        st.subheader("Step", anchor=False)
        if step_id is None or step_id not in {s.id for s in plan.steps}:
            st.caption("Select a step in the graph to edit its params, note and lock here.")
            return
        step = plan.step(step_id)
        tool: Tool | None = services.registry.get(step.tool) if step.tool in services.registry else None
        st.markdown(f"**{md_escape(plan.label(step_id))}**")
        # What the step does in plain words: its tool's first sentence and its key params.
        st.markdown(md_escape(step_sentence(services.registry, plan, step_id)))
        state = run.steps.get(step_id) if run is not None else None
        if state is not None and state.status != StepStatus.pending:  # what it came to in the run shown
            step_result(plan, state, run, key="editor.inspector.result")
        if tool is None:
            st.error(md_escape(f"Unknown tool {step.tool!r}: its params cannot be edited here. Change the "
                               "tool in the Plan JSON, or delete the step."))
        else:
            earlier = [s.id for s in plan.steps[:plan.index_of(step_id)]]
            for name in tool.param_names:
                _field(services, plan, step_id, tool, name, earlier, run)
            extra = [n for n in step.params if n not in tool.param_names]
            for name in extra:
                st.error(md_escape(f"{name}: not a param of {tool.name}; remove it in the Plan JSON."))
        note_key = _key(step_id, "~note")
        st.text_area("Note", value=step.note or "", key=note_key, height=68, on_change=_note_changed,
                     args=(step_id, note_key), placeholder="Why this step is here (optional)")
        lock_key = _key(step_id, "~lock")
        st.toggle("Locked", value=step.locked, key=lock_key, on_change=_lock_changed, args=(step_id, lock_key),
                  help="A re-plan keeps a locked step exactly as it is.")
        ask_key = _key(step_id, "~ask")
        st.toggle("Ask before this step", value=step.ask_first, key=ask_key, on_change=_ask_changed,
                  args=(step_id, ask_key), help="A run waits here until you approve or reject the step with "
                  "its arguments filled in. Steps of tools that may write always ask (a setting).")
        pin_panel(plan, step_id)


def _field(services: Services, plan: Plan, step_id: str, tool: Tool, name: str, earlier: list[str],
           run: Run | None) -> None:
    step = plan.step(step_id)
    schema = param_schema(services.registry, tool.name, name) or {}
    kind = field_kind(schema)
    required = name in tool.required
    description = schema.get("description") or ""
    bounds = _bounds(schema)
    help_text = " ".join(part for part in (("Required." if required else ""), description, bounds) if part) or None
    value = step.params.get(name)
    linked = _reference_of(plan, value)
    error = st.session_state[Keys.EDITOR_FIELD_ERRORS].get(_error_key(step_id, name))

    field, source_column = st.columns([3, 2], vertical_alignment="bottom")
    source_key = _key(step_id, name, "source")
    sources = [TYPED, *earlier]
    source = linked[0] if linked and linked[0] in earlier else TYPED
    source_column.selectbox(f"{name} from", options=sources, index=sources.index(source), key=source_key,
                            format_func=lambda s: TYPED if s == TYPED else plan.label(s),
                            on_change=_source_changed, args=(services, step_id, name, source_key),
                            help=f"Where {name} comes from: a value typed here, or the output of an earlier step.")
    with field:
        if required:
            st.caption(f"**{md_escape(name)}** · required")
        key = _key(step_id, name)
        if linked and source != TYPED:
            paths = _fitting_paths(services, plan, step_id, name, source)
            current = linked[1]
            options = paths if current in paths else [current, *paths]
            st.selectbox(name, options=options, index=options.index(current), key=key, help=help_text,
                         format_func=lambda p: p or "(whole result)", accept_new_options=True,
                         on_change=_path_changed, args=(services, step_id, name, source, key))
        else:
            _typed_widget(services, step_id, name, kind, schema, value, key, help_text)
    if linked and source != TYPED:
        previews = preview_reference(plan, run, step_id, name, registry=services.registry)
        st.caption(md_escape("↳ " + " · ".join(p.summary() for p in previews)))
    if error:
        st.error(md_escape(error), icon=":material/error:")


def _bounds(schema: dict[str, Any]) -> str:
    option = _option(schema)
    words = [f"at least {option['minimum']}" if "minimum" in option else "",
             f"at most {option['maximum']}" if "maximum" in option else ""]
    words = [w for w in words if w]
    return f"({', '.join(words)})" if words else ""


# A browser's number field holds integers up to 2**53 - 1 exactly; Streamlit refuses a value or
# bound past that (an agent's schema may well declare one).
_BROWSER_SAFE = 2 ** 53 - 1


def _browser_safe(number: Any) -> bool:
    return number is None or (isinstance(number, (int, float)) and abs(number) <= _BROWSER_SAFE)


def _typed_widget(services: Services, step_id: str, name: str, kind: str, schema: dict[str, Any], value: Any,
                  key: str, help_text: str | None) -> None:
    if kind in ("integer", "number") and isinstance(value, (int, float)) and not _browser_safe(value):
        kind = "json"  # typed as JSON text, so the value is shown and edited exactly
    args = (services, step_id, name, kind, key)
    shown = _shown(kind, value)
    option = _option(schema)
    default = schema.get("default")
    if kind == "enum":
        values = _enum_values(schema)
        options = [_NOT_SET, *values]
        index = options.index(value) if value in values else 0
        st.selectbox(name, options=options, index=index, key=key, help=help_text,
                     on_change=_typed_changed, args=args)
    elif kind == "boolean":
        st.toggle(name, value=bool(value), key=key, help=(help_text or "") + " Off: not set.",
                  on_change=_typed_changed, args=args)
    elif kind == "date":
        st.date_input(name, value=shown, key=key, help=help_text, format="YYYY-MM-DD",
                      on_change=_typed_changed, args=args)
    elif kind in ("integer", "number"):
        integer = kind == "integer"
        cast = int if integer else float
        low, high = option.get("minimum"), option.get("maximum")
        current = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        # A value past a bound (typed in the JSON, or sent so) is shown as it is, with its
        # problem; the widget would refuse to draw it, and check_param refuses a new one.
        if not _browser_safe(low) or (current is not None and low is not None and current < low):
            low = None
        if not _browser_safe(high) or (current is not None and high is not None and current > high):
            high = None
        st.number_input(name, value=cast(current) if current is not None else None,
                        min_value=cast(low) if low is not None else None,
                        max_value=cast(high) if high is not None else None,
                        step=1 if integer else None, key=key, help=help_text,
                        placeholder=f"default {default}" if default is not None else "not set",
                        on_change=_typed_changed, args=args)
    elif kind == "list":
        st.text_area(name, value=shown or "", key=key, height=80, help=(help_text or "") + " One item per line.",
                     on_change=_typed_changed, args=args, placeholder="one item per line")
    else:
        st.text_input(name, value=shown or "", key=key, help=help_text, on_change=_typed_changed, args=args,
                      placeholder="not set" if default is None else f"default {default}")

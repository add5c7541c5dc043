"""The Plan page's JSON column: the Plan JSON as a code editor (``_json_editor``), the form its
references are shown in (by step id, or by position as the seed writes them), and why the text
is not applied, naming its line and column and the step and field there.

The problems of a plan that parses are known only once it is checked, after this column is
drawn: ``json_panel`` leaves a slot that ``json_marks`` fills with the editor and its marks.
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

from core import Problem, Role

from .. import _actions as actions
from .._json_editor import code_editor
from .._json_places import Places, field_path, json_places, where_said
from .._roles import role_gate
from .._state import Keys, PERSIST, bench
from .._text import md_escape
from . import _pending_edit as pending_edit

__all__ = ["describe_path", "json_marks", "json_panel", "located_error"]

_HEIGHT_PX = 440  # about 20 lines of a plan's JSON

# At most this many problems are marked (each is one line of the text found again).
_MARKED = 200
# A message that starts with a path into the plan: pydantic's "steps.0.tool: ...".
_PATH_FIRST = re.compile(r"^((?:goal|steps|metadata)(?:\.[\w-]+)*): ")


def describe_path(path: tuple[str, ...]) -> str:
    """``("steps", "2", "params", "ids", "0")`` → ``step 2 · params.ids[0]``."""
    if not path:
        return "the plan"
    rest = path
    head = ""
    if path[0] == "steps" and len(path) > 1 and path[1].isdigit():
        head, rest = f"step {path[1]}", path[2:]
    field = ""
    for part in rest:
        field += f"[{part}]" if part.isdigit() else (f".{part}" if field else part)
    return " · ".join(p for p in (head, field) if p)


def _places(text: str) -> Places:
    """The places of ``text``, kept for the next draw of the same text (a big plan's scan)."""
    kept = st.session_state.get(Keys.JSON_PLACES)
    if isinstance(kept, Places) and kept.text == text:
        return kept
    places = json_places(text)
    st.session_state[Keys.JSON_PLACES] = places
    return places


def located_error(text: str, error: str) -> tuple[str, dict[str, Any] | None]:
    """The error as shown (with its line and column, and the step and field there) and its mark."""
    said = where_said(error)
    if said is not None:
        path = _places(text).path_at(*said)
        inside = f" (in {describe_path(path)})" if path else ""
        return error + inside, {"line": said[0], "column": said[1], "severity": "error", "message": error}
    m = _PATH_FIRST.match(error)
    if m is not None:
        path = field_path(None, m.group(1))
        found = _places(text).find(path)
        message = f"{describe_path(path)}: {error[m.end():]}"
        if found is None:
            return message, None
        return (f"line {found[0]}, column {found[1]}: {message}",
                {"line": found[0], "column": found[1], "severity": "error", "message": message})
    return error, None


def json_panel() -> Any:
    """The toggle, the Plan JSON and why it is not applied; gives the slot for ``json_marks``."""
    st.toggle("References by position", key=Keys.JSON_POSITIONS, on_change=actions.switch_reference_form,
              persist_state=PERSIST,
              help="On: references read `${step[N].path}`, N the step's place in the list from 0, as the "
                   "seed JSON and README examples write them. Off: `${steps.<id>.path}`, by the step's id, "
                   "which keeps naming its step when steps move. Either form may be typed; the text shows "
                   "the form picked once it is applied.")
    st.text_area("Plan JSON", key=Keys.JSON, height=_HEIGHT_PX, on_change=actions.edit_json, persist_state=PERSIST,
                 **role_gate(Role.reviewer, "edit the plan",
                             help="Edit the plan here; Ctrl+Enter (or leaving the field) applies it and the graph "
                                  "follows every valid change."))
    slot = st.empty()
    error = bench().json_error
    if error:
        shown, _mark = located_error(str(st.session_state.get(Keys.JSON) or ""), error)
        st.error(md_escape(f"Not applied: {shown}. Your text is kept; the graph shows the last "
                           "valid plan."), icon=":material/data_object:")
    pending_edit.pending_bar()
    return slot


def json_marks(slot: Any, problems: list[Problem]) -> None:
    """The code editor in ``slot``: the error's line marked, or each problem's step and field."""
    text = str(st.session_state.get(Keys.JSON) or "")
    b = bench()
    marks: list[dict[str, Any]] = []
    if b.json_error:
        _shown, mark = located_error(text, b.json_error)
        marks = [mark] if mark is not None else []
    elif not b.json_pending and text == b.json_read:
        for problem in problems[:_MARKED]:
            if problem.step_index is None and not problem.field:
                continue
            found = _places(text).find(field_path(problem.step_index, problem.field))
            if found is not None:
                marks.append({"line": found[0], "column": found[1], "severity": problem.severity,
                              "message": str(problem)})
    with slot:
        code_editor(Keys.JSON, text, marks, key=Keys.JSON_EDITOR)

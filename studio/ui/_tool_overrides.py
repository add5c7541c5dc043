"""The Tools page's "Edit description (this session)": a tool's words as this session reads them.

What is applied is kept in the session (``Keys.TOOLS_OVERRIDES``) and ``get_services`` reads the
tools through it (``ToolRegistry.with_overrides``, in core): the functions manual the LLM
planner sends, the Tools page and the editor show the new words; the tool's source, and every
other session, keep the old ones. **Reset** takes the tool back to its own words.

Widget keys: ``tools.edit.<tool>.<revision>.description``,
``tools.edit.<tool>.<revision>.param.<name>``, ``tools.edit.<tool>.apply`` and
``tools.edit.<tool>.reset``. Reset moves the text fields to a new revision (kept in
``Keys.TOOLS_EDIT_REVISION``): the browser keeps a field's typed text under its key, so only a
new key shows the tool's own words again.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import streamlit as st

from core import Tool, ToolOverride, ToolRegistry
from core.lab import check_overrides

from ._state import Keys
from ._text import md_escape

__all__ = ["field_key", "lazy_expander", "override_editor"]


def _key(tool: str, part: str) -> str:
    return f"tools.edit.{tool}.{part}"


def field_key(tool: str, part: str) -> str:
    """The key of a text field of ``tool``'s editor: ``part`` is "description" or "param.<name>"."""
    revision = (st.session_state.get(Keys.TOOLS_EDIT_REVISION) or {}).get(tool, 0)
    return f"tools.edit.{tool}.{revision}.{part}"


@contextlib.contextmanager
def lazy_expander(label: str, key: str) -> Iterator[bool]:
    """An expander whose content is drawn only while it is open: yields whether it is. Opening
    it reruns the page (Streamlit's ``on_change="rerun"``); open it from code by setting its
    key in ``st.session_state`` to True."""
    expander = st.expander(label, key=key, expanded=False, on_change="rerun")
    with expander:
        yield bool(expander.open)


def override_editor(tool: Tool) -> None:
    """The expander editing ``tool``'s description and its params' descriptions for this session
    (drawn only when open)."""
    overridden = bool(tool.definition.overridden)
    with lazy_expander("Edit description (this session)", _key(tool.name, "open")) as shown:
        if not shown:
            return
        st.caption("The LLM planner's functions manual uses these words for the rest of this browser "
                   "session; the tool itself, and other sessions, keep their own.")
        st.text_area("Description", value=tool.description, key=field_key(tool.name, "description"))
        properties = tool.parameters.get("properties") or {}
        for name, schema in properties.items():
            st.text_input(f"Parameter {name}", value=str(schema.get("description") or ""),
                          key=field_key(tool.name, f"param.{name}"))
        for problem in st.session_state.get(_key(tool.name, "problems")) or []:
            st.error(md_escape(f"Not applied: {problem}."), icon=":material/block:")
        left, right = st.columns(2)
        left.button("Apply", key=_key(tool.name, "apply"), on_click=_apply, args=(tool,), icon=":material/edit:")
        right.button("Reset", key=_key(tool.name, "reset"), on_click=_reset, args=(tool,), disabled=not overridden,
                     help="Back to the tool's own description", icon=":material/undo:")


def _apply(tool: Tool) -> None:
    overrides = dict(st.session_state.get(Keys.TOOLS_OVERRIDES) or {})
    item = dict(overrides.get(tool.name) or {})
    description = st.session_state.get(field_key(tool.name, "description"), tool.description)
    if description != tool.description or "description" in item:
        item["description"] = description
    params = dict(item.get("params") or {})
    for name, schema in (tool.parameters.get("properties") or {}).items():
        text = st.session_state.get(field_key(tool.name, f"param.{name}"))
        if text is not None and (text != (schema.get("description") or "") or name in params):
            params[name] = text
    if params:
        item["params"] = params
    # Words the manual cannot take (empty, too long, a heading line) are refused as the Lab
    # refuses them; the fields keep what was typed.
    single = ToolRegistry()
    single.add(tool)
    problems = check_overrides(single, {tool.name: ToolOverride(item.get("description"), params)})
    st.session_state[_key(tool.name, "problems")] = [str(p) for p in problems]
    if problems:
        return
    if item:
        overrides[tool.name] = item
    st.session_state[Keys.TOOLS_OVERRIDES] = overrides


def _reset(tool: Tool) -> None:
    overrides = dict(st.session_state.get(Keys.TOOLS_OVERRIDES) or {})
    overrides.pop(tool.name, None)
    st.session_state[Keys.TOOLS_OVERRIDES] = overrides or None
    st.session_state.pop(_key(tool.name, "problems"), None)
    # The fields show the tool's own words again on the next run, under new keys.
    for key in [field_key(tool.name, "description"), *(field_key(tool.name, f"param.{p}") for p in tool.param_names)]:
        st.session_state.pop(key, None)
    revisions = dict(st.session_state.get(Keys.TOOLS_EDIT_REVISION) or {})
    revisions[tool.name] = revisions.get(tool.name, 0) + 1
    st.session_state[Keys.TOOLS_EDIT_REVISION] = revisions

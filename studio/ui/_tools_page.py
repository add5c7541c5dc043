"""The Tools page: every registered tool with its effects, and the functions manual exactly as
the model reads it. A tool's description can be edited for this session (``_tool_overrides``).

Tool descriptions can come from third-party tool groups, so every one is escaped before it
reaches markdown; tables and the manual's code block show text as it is.

Tools are drawn lazily: cards ``CARDS_PER_PAGE`` at a time (a page number below them; the
filter finds any tool), and a card's schemas and description editor only once their expander
is opened (``lazy_expander``). All 124 cards of 100 MCP tools and the built-ins, drawn in full
(~1,000 widgets), took 9-12 s on a loaded machine (``benchmarks/mcp_config.py``).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import streamlit as st

from core import Tool, ToolRegistry, describe_bounds, schema_alternatives
from core.planners import render_manual
from tools import LoadNotice

from . import _actions as actions
from ._state import PERSIST, Keys
from ._text import md_escape
from ._tool_overrides import lazy_expander, override_editor

__all__ = ["parameter_rows", "tools_page", "CARDS_PER_PAGE"]

CARDS_PER_PAGE = 40  # cards drawn at once: all 124 of 100 MCP tools and the built-ins took 9-12 s
_PAGE_KEY = "tools.page"


def tools_page() -> None:
    services = actions.page_services("Tools", "list the tools")
    if services is None:
        return
    registry = services.registry
    for problem in services.tool_problems:
        # A notice: the source loaded without one part of it; else nothing of it loaded.
        said = "Partly loaded" if isinstance(problem, LoadNotice) else "Not loaded"
        st.warning(f"{said}: {md_escape(problem)}", icon=":material/extension_off:")
    groups = Counter(tool.group for tool in registry)
    st.caption(f"{len(registry)} tool{'s' if len(registry) != 1 else ''} in {len(groups)} "
               f"group{'s' if len(groups) != 1 else ''}: "
               + ", ".join(f"{md_escape(g)} ({n})" for g, n in groups.items()))
    tools_tab, manual_tab = st.tabs(["Tools", "Functions manual"], key="tools.tabs")
    with tools_tab, actions.shown("show the tools"):
        _tool_list(registry)
    with manual_tab, actions.shown("show the functions manual"):
        st.caption("What the LLM planner is told about the tools, word for word.")
        # st.code drops one trailing newline; give it one so the block (and its copy button)
        # holds the manual byte for byte.
        st.code(render_manual(registry) + "\n", language=None, wrap_lines=True)


def _tool_list(registry: ToolRegistry) -> None:
    query = st.text_input("Filter", key=Keys.TOOLS_FILTER, persist_state=PERSIST,
                          placeholder="Filter tools by name", icon=":material/search:")
    needle = query.strip().casefold()
    tools = [tool for tool in registry if needle in tool.name.casefold()]
    if not tools:
        st.info("No tool name contains that text.")
        return
    pages = -(-len(tools) // CARDS_PER_PAGE)
    page = min(int(st.session_state.get(_PAGE_KEY) or 1), pages)
    shown = tools[(page - 1) * CARDS_PER_PAGE:page * CARDS_PER_PAGE]
    if needle or pages > 1:
        st.caption((f"{len(tools)} of {len(registry)} tools" if needle else f"{len(tools)} tools")
                   + (f"; {(page - 1) * CARDS_PER_PAGE + 1}-{(page - 1) * CARDS_PER_PAGE + len(shown)} shown, "
                      "filter by name to find one" if pages > 1 else ""))
    for tool in shown:
        _tool_card(tool)
    if pages > 1:
        st.number_input("Page", min_value=1, max_value=pages, value=page, step=1, key=_PAGE_KEY,
                        help=f"{pages} pages of {CARDS_PER_PAGE} tools")


def _tool_card(tool: Tool) -> None:
    with st.container(border=True, key=f"tools.card.{tool.name}"):
        st.markdown(f"**{md_escape(tool.name)}** · group {md_escape(tool.group)}")
        if tool.source:
            st.caption(f"From {md_escape(tool.source)}")
        st.caption(f"Effects: {md_escape(tool.effects.label)}"
                   + ("" if tool.effects.known else " · its source does not say what it changes"))
        if tool.definition.overridden:
            st.caption("Description edited for this session")
        st.markdown(md_escape(tool.description) if tool.description else "*No description.*")
        rows = parameter_rows(tool)
        if rows:
            # A static table wraps long descriptions and value lists instead of cutting them off
            # (a data grid's fixed-width cells hid the last allowed values). Its cells are
            # markdown, so every one is escaped.
            st.table([{column: md_escape(_cell(value)) for column, value in row.items()} for row in rows],
                     hide_index=True)
        else:
            st.caption("No parameters.")
        if tool.returns_description:
            st.markdown(f"**Returns:** {md_escape(tool.returns_description)}")
        elif not tool.returns:
            st.markdown("**Returns:** not described")
        if tool.kind == "mcp":
            # As the server gave them, byte for byte what a reader of the server would see.
            with lazy_expander("Input schema (JSON)", f"tools.input.{tool.name}") as shown:
                if shown:
                    st.json(tool.parameters, expanded=True)
        if tool.returns:
            label = "Output schema (JSON)" if tool.kind == "mcp" else "Return schema (JSON)"
            with lazy_expander(label, f"tools.returns.{tool.name}") as shown:
                if shown:
                    st.json(tool.returns, expanded=False)
        override_editor(tool)


def parameter_rows(tool: Tool) -> list[dict[str, Any]]:
    """One row per parameter: name, type, required, default, description, allowed values."""
    defs = tool.parameters.get("$defs", {})
    required = set(tool.required)
    rows = []
    for name, schema in tool.parameters.get("properties", {}).items():
        options = [o for o in schema_alternatives(schema, defs) if o.get("type") != "null"]
        enum = [v for o in options for v in o.get("enum", [])]
        rows.append({
            "name": name,
            "type": " or ".join(dict.fromkeys(_type_name(o, defs) for o in options)) or "any",
            "required": name in required,
            "default": "" if name in required or schema.get("default") is None
            else json.dumps(schema["default"]),
            "description": schema.get("description") or "",
            "allowed values": ", ".join([*(str(v) for v in enum), *describe_bounds(schema, defs)]),
        })
    return rows


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else ""
    return str(value)



def _type_name(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    kind = schema.get("type")
    if kind == "array":
        items = [o for o in schema_alternatives(schema.get("items") or {}, defs) if o.get("type") != "null"]
        inner = " or ".join(dict.fromkeys(_type_name(o, defs) for o in items))
        return f"list of {inner}" if inner and inner != "any" else "list"
    if kind == "string" and schema.get("format"):
        return schema["format"]
    if isinstance(kind, list):
        return " or ".join(k for k in kind if k != "null") or "any"
    if kind is None and "properties" in schema:
        return "object"
    return kind or "any"

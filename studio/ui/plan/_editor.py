"""The plan editor around the graph: its toolbar (Add step, Delete step, Duplicate, Undo, Redo),
the edits the graph itself sends (select, connect, delete an edge or a step, undo, redo), the
tool picker, and the choice a step that others need asks for before it goes.

Every edit here is a ``core`` edit (by step id) handed to ``workbench.apply_edit``, the one way a
plan under review changes: so the graph, the inspector and the JSON panel show the same plan on
the next render, and each edit is one undo step.
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from core import (Plan, Role, Problem, Run, add_dependency, add_step, delete_step, dependents_of,
                  diff_plans, duplicate_step, remove_dependency, steps_deleted_with)

from .. import _actions as actions
from ... import workbench as wb
from ._graph import OVERVIEW_STEPS, show_graph
from ...workbench._services import Services
from .._state import Keys, bench
from .._roles import role_gate
from .._text import md_escape
from ...workbench import Outcome, Workbench

JUMP_KEY = "editor.jump"  # the jump-to-step list under a large plan's graph

__all__ = ["JUMP_KEY", "apply_edit", "changed_since_approval", "editable_graph", "editor_toolbar", "handle_graph_event",
           "on_graph_action", "redo", "request_delete", "start_empty_plan",
           "undo"]


def apply_edit(label: str, change: Callable[[Plan], Plan], *, select: Callable[[Plan], str | None] | None = None) -> bool:
    """Make the edit ``change`` to the plan under review as one undo step (``workbench.apply_edit``:
    held as pending text during a run; refused with a notice saying why). ``select`` picks the
    step the inspector shows afterwards."""
    edited: list[Plan | None] = [None]

    def edit(b: Workbench) -> Outcome:
        out, edited[0] = wb.apply_edit(b, label, change)
        return out

    actions.act(edit, label)
    if edited[0] is None:
        return False
    if select is not None:
        st.session_state[Keys.EDITOR_SELECTED] = select(edited[0])
    return True


def undo() -> None:
    actions.act(wb.undo, "undo")


def redo() -> None:
    actions.act(wb.redo, "redo")


def start_empty_plan() -> None:
    """An empty plan to build step by step, for the goal typed so far."""
    actions.act(wb.start_empty_plan, "start an empty plan")


def request_delete(step_id: str | None) -> None:
    """Delete a step; when others need it, first ask whether to remove their links to it or
    delete them too (the panel below the toolbar)."""
    bench().notices = []
    plan: Plan | None = bench().plan
    if plan is None or step_id is None or step_id not in {s.id for s in plan.steps}:
        actions.notify("info", "Select a step in the graph first, then delete it.")
        return
    if dependents_of(plan, step_id):
        st.session_state[Keys.EDITOR_DELETE] = step_id
        return
    _delete(step_id, "refuse")


def _delete(step_id: str, dependents: str) -> None:
    st.session_state[Keys.EDITOR_DELETE] = None
    plan: Plan = bench().plan
    label = f"delete {plan.label(step_id)}" if step_id in {s.id for s in plan.steps} else "delete the step"
    apply_edit(label, lambda p: delete_step(p, step_id, dependents=dependents),  # type: ignore[arg-type]
               select=lambda _p: None)


def _cancel_delete() -> None:
    st.session_state[Keys.EDITOR_DELETE] = None


def _duplicate(step_id: str) -> None:
    made: dict[str, str] = {}

    def change(plan: Plan) -> Plan:
        edited, made["id"] = duplicate_step(plan, step_id)
        return edited

    plan: Plan = bench().plan
    apply_edit(f"duplicate {plan.label(step_id)}", change, select=lambda _p: made.get("id"))


def _open_picker() -> None:
    st.session_state[Keys.EDITOR_ADDING] = True
    st.session_state[Keys.EDITOR_DELETE] = None


def _close_picker() -> None:
    st.session_state[Keys.EDITOR_ADDING] = False


def _add_chosen(services: Services) -> None:
    tool = st.session_state.get(Keys.EDITOR_TOOL)
    if not tool:
        bench().notices = []
        actions.notify("error", "Pick a tool for the new step first.")
        return
    made: dict[str, str] = {}

    def change(plan: Plan) -> Plan:
        edited, made["id"] = add_step(plan, tool, registry=services.registry)
        return edited

    if apply_edit(f"add a {tool} step", change, select=lambda _p: made.get("id")):
        st.session_state[Keys.EDITOR_ADDING] = False
        st.session_state[Keys.EDITOR_TOOL] = None


def on_graph_action() -> None:
    """An edit made in the graph (a click, a drawn edge, a key)."""
    value: Any = st.session_state[Keys.EDITOR_GRAPH]
    event = value.get("action") if isinstance(value, dict) else None
    if not isinstance(event, dict):
        return
    handle_graph_event(event)


def handle_graph_event(event: dict[str, Any]) -> None:
    """One event from the graph: ``{"kind": ..., "step" | "source" and "target": ids}``."""
    kind = event.get("kind")
    plan: Plan | None = bench().plan
    if plan is None:
        return
    ids = {s.id for s in plan.steps}
    if kind == "select":
        step = event.get("step")
        st.session_state[Keys.EDITOR_SELECTED] = step if step in ids else None
        st.session_state[Keys.EDITOR_DELETE] = None
    elif kind == "connect":
        source, target = event.get("source"), event.get("target")
        if source in ids and target in ids:
            apply_edit(f"make {plan.label(target)} depend on {plan.label(source)}",
                       lambda p: add_dependency(p, source, target), select=lambda _p: target)
    elif kind == "delete_edge":
        source, target = event.get("source"), event.get("target")
        if source in ids and target in ids:
            apply_edit(f"remove the link from {plan.label(source)} to {plan.label(target)}",
                       lambda p: remove_dependency(p, source, target))
    elif kind == "delete_step":
        request_delete(event.get("step"))
    elif kind == "undo":
        undo()
    elif kind == "redo":
        redo()


def changed_since_approval(plan: Plan) -> list[str]:
    """Ids of the steps added or changed since the plan was last approved (none before that)."""
    approved: Plan | None = bench().approved_plan
    if approved is None:
        return []
    return [i for i in diff_plans(approved, plan).changed_step_ids() if i in {s.id for s in plan.steps}]


def editable_graph(plan: Plan, run: Run | None, errors: list[Problem]) -> None:
    """The plan's graph as the editor: the selected step, and the steps changed since approval;
    past ``OVERVIEW_STEPS`` steps, a list to jump to a step (the graph centres on it)."""
    selected = st.session_state[Keys.EDITOR_SELECTED]
    show_graph(plan, run, key=Keys.EDITOR_GRAPH, problems=errors, changed=changed_since_approval(plan),
               selected=selected, on_action=on_graph_action)
    if len(plan.steps) > OVERVIEW_STEPS:
        index = {s.id: n for n, s in enumerate(plan.steps)}
        # The list shows the step selected in the graph, however it was selected.
        st.session_state[JUMP_KEY] = selected if selected in index else None
        st.selectbox("Jump to step", list(index), key=JUMP_KEY, on_change=_jump,
                     placeholder="Type a step's number, tool or id",
                     format_func=lambda step_id: f"{index[step_id]} · {plan.steps[index[step_id]].tool} · {step_id}",
                     help="The graph centres on the step and selects it; the minimap in its corner shows where.")


def _jump() -> None:
    st.session_state[Keys.EDITOR_SELECTED] = st.session_state[JUMP_KEY]


def editor_toolbar(services: Services, plan: Plan) -> None:
    """The buttons above the graph, the tool picker and the delete choice."""
    selected: str | None = st.session_state[Keys.EDITOR_SELECTED]
    if selected not in {s.id for s in plan.steps}:
        selected = None
    kept = actions.history()
    add, delete, duplicate, undo_button, redo_button = st.columns(5)
    edit = "edit the plan"
    add.button("Add step", key="editor.add", icon=":material/add_box:", on_click=_open_picker, width="stretch",
               **role_gate(Role.reviewer, edit, help="Pick a tool from the registry; the new step goes at the end."))
    delete.button("Delete step", key="editor.delete_step", icon=":material/delete:", width="stretch",
                  on_click=request_delete, args=(selected,),
                  **role_gate(Role.reviewer, edit, disabled=selected is None,
                              help="Deletes the selected step (or press Delete in the graph)."))
    duplicate.button("Duplicate", key="editor.duplicate", icon=":material/content_copy:", width="stretch",
                     on_click=_duplicate, args=(selected,),
                     **role_gate(Role.reviewer, edit, disabled=selected is None,
                                 help="A copy of the selected step, right after it."))
    undo_button.button("Undo", key="editor.undo", icon=":material/undo:", on_click=undo, width="stretch",
                       **role_gate(Role.reviewer, edit, disabled=not kept.can_undo,
                                   help=f"Undo: {kept.undo_label} (Ctrl+Z in the graph)" if kept.can_undo
                                   else "Nothing to undo"))
    redo_button.button("Redo", key="editor.redo", icon=":material/redo:", on_click=redo, width="stretch",
                       **role_gate(Role.reviewer, edit, disabled=not kept.can_redo,
                                   help=f"Redo: {kept.redo_label} (Ctrl+Shift+Z in the graph)" if kept.can_redo
                                   else "Nothing to redo"))
    if st.session_state[Keys.EDITOR_ADDING]:
        _tool_picker(services)
    pending: str | None = st.session_state[Keys.EDITOR_DELETE]
    if pending is not None and pending in {s.id for s in plan.steps}:
        _delete_choice(plan, pending)


def _tool_picker(services: Services) -> None:
    tools = sorted(services.registry, key=lambda t: (t.group, t.name))
    summaries = {t.name: t.description.split("\n")[0] for t in tools}
    with st.container(border=True, key="editor.picker"):
        st.selectbox("Tool for the new step", options=[t.name for t in tools], key=Keys.EDITOR_TOOL, index=None,
                     format_func=lambda name: f"{name} — {summaries[name]}",
                     placeholder="Type to search tools by name or description",
                     help="Type part of a tool's name or of what it does to narrow the list.")
        add, cancel, _ = st.columns([1, 1, 4])
        add.button("Add", key="editor.picker.add", type="primary", on_click=_add_chosen, args=(services,),
                   width="stretch")
        cancel.button("Cancel", key="editor.picker.cancel", on_click=_close_picker, width="stretch")


def _delete_choice(plan: Plan, step_id: str) -> None:
    found = dependents_of(plan, step_id)
    also = [s for s in steps_deleted_with(plan, step_id) if s != step_id]
    with st.container(border=True, key="editor.delete_choice"):
        lines = "\n".join(f"- {md_escape(d.describe(plan))}" for d in found)
        st.warning(f"Other steps need {md_escape(plan.label(step_id))}:\n{lines}", icon=":material/link:")
        unlink, delete, cancel = st.columns(3)
        unlink.button("Remove the dependency", key="editor.delete_choice.unlink", width="stretch",
                      on_click=_delete, args=(step_id, "unlink"),
                      help="Deletes this step only; the steps above lose their link to it (and the params "
                           "that used its output).")
        delete.button(f"Delete those too ({len(also)})", key="editor.delete_choice.delete", width="stretch",
                      on_click=_delete, args=(step_id, "delete"), type="primary",
                      help="Deletes this step and every step that needs it: "
                           + ", ".join(plan.label(s) for s in also))
        cancel.button("Cancel", key="editor.delete_choice.cancel", on_click=_cancel_delete, width="stretch")

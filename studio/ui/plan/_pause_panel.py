"""The Plan page's panel for a pause for a person: each step the run waits on, with its tool,
effects and resolved arguments (as a table), who has approved it so far of how many it needs,
the arguments as editable JSON (an edit is what the approval approves, and what runs), the scope
of the approval (once, for this run, always for these arguments), and Approve / Reject.

A decision goes through ``workbench.decide_step``, as one from the review API or the MCP server
does; from here the run goes on at once. Arguments come from earlier tools' results: untrusted.
They are drawn in a dataframe (cells are text, never markdown) and every other text is escaped.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from core import Role, Run

from .. import _actions as actions
from ... import workbench as wb
from ...workbench._services import Services
from .._session import get_services
from .._state import actor
from .._roles import role_gate, role_note
from .._text import md_escape

__all__ = ["pause_panel"]

# Of one argument's value in a cell: enough to judge it; the whole value is in the run's JSON.
_CELL_CHARS = 2000


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= _CELL_CHARS else text[:_CELL_CHARS] + f"… ({len(text)} characters)"


_SCOPES = {"once": "Approve once", "run": "For the rest of this run (every later step of this tool)",
           "always": f"Always for exactly these arguments ({wb.ALWAYS_DAYS} days)"}


def _edit_key(step_id: str) -> str:
    return f"plan.pause.{step_id}.edit"


def _shown_json(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, indent=2, ensure_ascii=False, sort_keys=True, default=repr)


def _edited(step_id: str, arguments: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """The approver's edit of the arguments (None: as shown), or why the text is not one."""
    text = st.session_state.get(_edit_key(step_id))
    if text is None or text.strip() == _shown_json(arguments).strip():
        return None, None
    try:
        value = json.loads(text)
    except ValueError as exc:
        return None, f"The edited arguments are not JSON: {exc}."
    if not isinstance(value, dict):
        return None, "The edited arguments must be a JSON object, one field per argument."
    return (None if value == arguments else value), None


def _decide(run_id: str, step_id: str, approve: bool, seen_hash: str, arguments: dict[str, Any]) -> None:
    edit, problem = _edited(step_id, arguments) if approve else (None, None)
    if problem is not None:
        actions.act(lambda _b: wb.Outcome().say("error", problem), "decide on the step")
        return
    scope = st.session_state.get(f"plan.pause.{step_id}.scope", "once") if approve else "once"
    actions.act(lambda b: wb.decide_step(get_services(), run_id, step_id, approve, actor=b.actor, channel="page",
                                         seen_hash=seen_hash, arguments=edit, grant=wb.GrantRequest(scope),
                                         bench=b), "decide on the step")


def _approvals(step: wb.WaitingStep) -> None:
    if step.needed <= 1 and not step.approvals:
        return
    names = ", ".join(f"{a.actor_name or a.actor_id} ({a.channel})" for a in step.approvals) or "nobody yet"
    rule = f" · rule {step.rule}" if step.rule else ""
    st.markdown(md_escape(f"Approvals: {len(step.approvals)} of {step.needed} · approved by {names}{rule}"))


def _approved_by_me(step: wb.WaitingStep) -> str | None:
    """Why this session's person cannot approve again (they did; the step waits for others), or None."""
    me = actor().id
    if not any(a.actor_id == me for a in step.approvals):
        return None
    more = step.needed - len(step.approvals)
    return f"You approved this step; it waits for {more} more approver{'s' if more != 1 else ''}."


def pause_panel(services: Services, run: Run) -> None:
    waiting = wb.waiting_view(run, services.registry)
    if not waiting:
        return
    with st.container(border=True, key="plan.pause"):
        count = len(waiting)
        st.markdown(f":yellow-badge[waiting] **The run waits for you:** {count} step{'s' if count != 1 else ''} "
                    "to approve or reject", help="Steps that do not depend on them have run.")
        for step in waiting:
            st.markdown(f"**{md_escape(step.label)}** · effects: {md_escape(step.effects)}")
            st.caption(md_escape(f"Why it waits: {step.reason}"))
            with st.container(key=f"plan.pause.{step.step_id}.approvals"):
                _approvals(step)
            rows = [{"argument": name, "value": _cell(value)} for name, value in step.arguments.items()]
            if rows:
                st.dataframe(rows, hide_index=True, width="stretch", key=f"plan.pause.{step.step_id}.arguments")
            else:
                st.caption("No arguments.")
            doing = "approve or reject a waiting step"
            # Scope and the two choices right under the arguments (a laptop's first screen holds
            # them beside the graph); editing the arguments, the rarer path, folded under them.
            st.selectbox("Scope", list(_SCOPES), format_func=_SCOPES.__getitem__, label_visibility="collapsed",
                         key=f"plan.pause.{step.step_id}.scope", **role_gate(Role.approver, doing))
            mine = _approved_by_me(step)
            # The two choices side by side, not half a screen apart.
            buttons = st.container(horizontal=True, key=f"plan.pause.{step.step_id}.buttons")
            buttons.button("Approve and run", key=f"plan.pause.{step.step_id}.approve", type="primary",
                           icon=":material/check:", on_click=_decide,
                           args=(run.id, step.step_id, True, step.shown_hash, step.arguments),
                           **role_gate(Role.approver, doing, disabled=mine is not None,
                                       help=mine or "Runs this step with exactly these arguments (or your edit "
                                                    "of them)."))
            buttons.button("Reject", key=f"plan.pause.{step.step_id}.reject", icon=":material/block:",
                           on_click=_decide, args=(run.id, step.step_id, False, step.shown_hash, step.arguments),
                           **role_gate(Role.approver, doing,
                                       help="The step does not run; the steps that depend on it are skipped."))
            needs = role_note(Role.approver, doing) or mine
            if needs is not None:
                st.caption(md_escape(needs))
            with st.expander("Edit the arguments before approving", key=f"plan.pause.{step.step_id}.editing"):
                st.text_area("Arguments (JSON)", value=_shown_json(step.arguments), key=_edit_key(step.step_id),
                             height=160, **role_gate(Role.approver, doing,
                                                     help="What you approve is what runs: the edit is checked "
                                                          "against the tool's schema and recorded beside the original."))

"""The Plan page's panel for a pause for a person: each step the run waits on, with its tool,
effects and resolved arguments (as a table), and Approve / Reject.

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
from ...workbench._roles import refused_for_role
from ...workbench._services import Services
from .._session import get_services
from .._text import md_escape

__all__ = ["pause_panel"]

# Of one argument's value in a cell: enough to judge it; the whole value is in the run's JSON.
_CELL_CHARS = 2000


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= _CELL_CHARS else text[:_CELL_CHARS] + f"… ({len(text)} characters)"


def _decide(run_id: str, step_id: str, approve: bool, seen_hash: str) -> None:
    def decide(b: wb.Workbench) -> wb.Outcome:
        # Until decide_step checks the actor itself (the ``decide`` work), the role is checked here.
        refused = wb.Outcome()
        if refused_for_role(b.actor, refused, Role.approver, "decide on a waiting step"):
            return refused
        return wb.decide_step(get_services(), run_id, step_id, approve, seen_hash=seen_hash, by="page", bench=b)
    actions.act(decide, "decide on the step")


def pause_panel(services: Services, run: Run) -> None:
    waiting = wb.waiting_view(run, services.registry)
    if not waiting:
        return
    with st.container(border=True, key="plan.pause"):
        count = len(waiting)
        st.markdown(f":yellow-badge[waiting] **The run waits for you:** {count} step{'s' if count != 1 else ''} "
                    "to approve or reject. Steps that do not depend on them have run.")
        for step in waiting:
            st.markdown(f"**{md_escape(step.label)}** · effects: {md_escape(step.effects)}")
            st.caption(md_escape(f"Why it waits: {step.reason}"))
            rows = [{"argument": name, "value": _cell(value)} for name, value in step.arguments.items()]
            if rows:
                st.dataframe(rows, hide_index=True, width="stretch", key=f"plan.pause.{step.step_id}.arguments")
            else:
                st.caption("No arguments.")
            approve, reject = st.columns(2)
            approve.button("Approve and run", key=f"plan.pause.{step.step_id}.approve", type="primary",
                           icon=":material/check:", on_click=_decide,
                           args=(run.id, step.step_id, True, step.arguments_hash),
                           help="Runs this step with exactly these arguments; the run goes on.")
            reject.button("Reject", key=f"plan.pause.{step.step_id}.reject", icon=":material/block:",
                          on_click=_decide, args=(run.id, step.step_id, False, step.arguments_hash),
                          help="The step does not run; the steps that depend on it are skipped.")

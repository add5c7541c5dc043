"""An edit made while a run goes on: kept as pending text in the Plan JSON, never thrown away.

The run carries on with the plan it started, so an edit cannot replace that plan until the run
ends. So does an edit made while the run shown waits for a
person's decision: the run stays in view, and its decision goes on with the run's own plan. An
edit typed into the Plan JSON stays there as typed (``workbench.edit_json``); an edit
made in the graph or the inspector (``workbench.apply_edit``) is written into the panel as the plan with
that edit made, on top of any edit already waiting. Until the user applies the text (or
discards it) after the run, Approve, Run and Save wait (``workbench.json_blocker``): they would
act on the plan the graph shows, not on the text in the panel.
"""

from __future__ import annotations

import streamlit as st

from .. import _actions as actions
from ... import workbench as wb
from .._state import bench

__all__ = ["pending_bar"]


def _apply() -> None:
    actions.act(wb.apply_pending_edit, "apply your edit")


def _discard() -> None:
    actions.act(wb.discard_pending_edit, "discard your edit")


def pending_bar() -> None:
    """Below the Plan JSON while it holds a pending edit: what it is, Apply and Discard."""
    if not bench().json_pending:
        return
    running = actions.run_in_progress()
    waits = wb.run_waits(bench())
    with st.container(border=True, key="plan.pending"):
        st.info("Not applied yet: you edited the plan during the run; your edit is kept here as typed. "
                + ("Apply it once the run ends." if running else
                   "The run waits for your decision and goes on with the plan it started: decide its waiting "
                   "steps first. Applying your edit now takes the run off this page (it stays waiting, listed "
                   "on Reviews)." if waits else
                   "Apply it to replace the plan (the run's results leave the page; a saved run stays "
                   "stored), or discard it."), icon=":material/pending_actions:")
        apply, discard = st.columns(2)
        apply.button("Apply my edit", key="plan.pending.apply", type="primary", on_click=_apply,
                     disabled=running, width="stretch")
        discard.button("Discard it", key="plan.pending.discard", on_click=_discard, width="stretch")

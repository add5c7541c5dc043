"""An edit made while a run goes on: kept as pending text in the Plan JSON, never thrown away.

The run carries on with the plan it started, so an edit cannot replace that plan until the run
ends. An edit typed into the Plan JSON stays there as typed (``actions.edit_json``); an edit
made in the graph or the inspector (``hold_edit``) is written into the panel as the plan with
that edit made, on top of any edit already waiting. Until the user applies the text (or
discards it) after the run, Approve, Run and Save wait (``actions.json_blocker``): they would
act on the plan the graph shows, not on the text in the panel.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from core import Plan, PlanError, PlanStudioError, dump_plan, load_plan

from . import _actions as actions
from ._state import Keys

__all__ = ["hold_edit", "pending_bar"]


def changed_plan(label: str, change: Callable[[Plan], Plan], plan: Plan) -> Plan | None:
    """``change(plan)``, or None with the reason as a notice (never a traceback on the page)."""
    try:
        return change(plan)
    except PlanStudioError as exc:
        actions.notify("error", f"Could not {label}: {actions.plain_message(exc)}")
    except Exception as exc:  # noqa: BLE001 (shown to the user, not raised)
        actions.notify("error", actions.failure_message(label, exc))
    return None


def hold_edit(label: str, change: Callable[[Plan], Plan]) -> bool:
    """During a run: make the edit ``change`` to the pending text (or to the running plan, when
    nothing waits yet) and keep the outcome in the Plan JSON; False, with a notice, if it failed."""
    base: Plan = st.session_state[Keys.PLAN]
    if st.session_state[Keys.JSON_PENDING]:
        try:
            base = load_plan(st.session_state.get(Keys.JSON, ""), "native")
        except PlanError as exc:
            actions.notify("error", f"Could not {label}: the edit waiting in the Plan JSON does not parse "
                                    f"({actions.plain_message(exc)}); fix it there first.")
            return False
    edited = changed_plan(label, change, base)
    if edited is None:
        return False
    actions.write_json_panel(dump_plan(edited, "native"))
    st.session_state[Keys.JSON_PENDING] = True
    actions.notify("info", actions.PENDING_EDIT)
    return True


def _apply() -> None:
    st.session_state[Keys.NOTICES] = []
    if actions.run_in_progress():
        actions.notify("warning", f"{actions.RUN_IN_PROGRESS} before you apply your edit.")
        return
    st.session_state[Keys.JSON_READ] = None  # read the panel afresh: the edit is the text in it
    actions.edit_json()
    if st.session_state[Keys.JSON_ERROR] is None:
        actions.notify("success", "Your edit made during the run is applied. Approve the plan to run it.")


def _discard() -> None:
    st.session_state[Keys.NOTICES] = []
    plan: Plan | None = st.session_state[Keys.PLAN]
    if plan is not None:
        actions.write_json_panel(dump_plan(plan, "native"))
    actions.notify("info", "Your edit made during the run is discarded: the Plan JSON shows the plan again.")


def pending_bar() -> None:
    """Below the Plan JSON while it holds a pending edit: what it is, Apply and Discard."""
    if not st.session_state[Keys.JSON_PENDING]:
        return
    running = actions.run_in_progress()
    with st.container(border=True, key="plan.pending"):
        st.info("Not applied yet: you edited the plan during the run; your edit is kept here as typed. "
                + ("Apply it once the run ends." if running else
                   "Apply it to replace the plan (the run's results leave the page; a saved run stays "
                   "stored), or discard it."), icon=":material/pending_actions:")
        apply, discard = st.columns(2)
        apply.button("Apply my edit", key="plan.pending.apply", type="primary", on_click=_apply,
                     disabled=running, width="stretch")
        discard.button("Discard it", key="plan.pending.discard", on_click=_discard, width="stretch")

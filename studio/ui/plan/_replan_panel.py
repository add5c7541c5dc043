"""Steering the plan: lock steps, ask for changes (re-plan), and move between saved versions."""

from __future__ import annotations

import streamlit as st

from core import Plan, dump_plan

from .. import _actions as actions
from ...workbench._services import Services
from .._state import Conflict, Keys, PERSIST, SavedRef, bench
from .._text import md_escape

__all__ = ["conflict_panel", "replan_panel", "versions_panel"]


def replan_panel(services: Services, plan: Plan) -> None:
    with st.expander("Ask for changes (re-plan)", key="plan.replan_panel", icon=":material/edit_note:"):
        blocked = actions.json_blocker() is not None  # both act on the last valid plan
        ids = [s.id for s in plan.steps]
        # Options follow the plan; a lock on a step that is gone would make the widget fail.
        st.session_state[Keys.LOCKS] = [i for i in st.session_state[Keys.LOCKS] if i in ids]
        st.multiselect("Locked steps", options=ids, format_func=plan.label, key=Keys.LOCKS,
                       on_change=actions.set_locks, disabled=blocked, placeholder="None: the planner may change any step",
                       help="A re-plan keeps locked steps exactly as they are.")
        st.text_area("What should change?", key=Keys.FEEDBACK, height=68, persist_state=PERSIST,
                     placeholder="e.g. only high-risk shipments; use Munich instead; drop step 2")
        button, about = st.columns([1, 6], vertical_alignment="center")
        button.button("Re-plan", key="plan.replan", on_click=actions.replan, disabled=blocked,
                      icon=":material/refresh:")
        about.caption(f"The {md_escape(services.planner_name)} planner changes the current plan as "
                      "you ask. Both versions are saved, so the current one stays in the history.")


def versions_panel(services: Services) -> None:
    saved: SavedRef | None = bench().saved
    if saved is None:
        return
    with actions.shown("list the plan's versions"):
        versions = services.store.versions(saved.plan_id)
        with st.expander(f"Versions · {len(versions)}", key="plan.versions_panel", icon=":material/history:"):
            previous = {v.version: p for v, p in zip(versions[1:], versions)}
            for version in reversed(versions):
                text, action = st.columns([6, 1], vertical_alignment="center")
                message = f" · {md_escape(version.message)}" if version.message else ""
                current = " · **open now**" if version.version == saved.version else ""
                text.markdown(f"Version {version.version} · {version.created_at:%Y-%m-%d %H:%M} · "
                              f"{len(version.plan.steps)} steps{message}{current}")
                if version.version in previous:
                    changes = actions.describe_changes(previous[version.version].plan, version.plan)
                    text.caption(md_escape(f"Since version {version.version - 1}: {changes}"))
                if version.version != saved.version:
                    action.button(f"Open v{version.version}", key=f"plan.version.{version.version}",
                                  on_click=actions.open_saved_plan, args=(saved.plan_id, version.version),
                                  width="stretch")


def conflict_panel(plan: Plan) -> None:
    """A save this tab could not make because another tab saved first: what that version changed,
    and the user's two ways on. Nothing is dropped without the user choosing it."""
    conflict: Conflict | None = bench().conflict
    if conflict is None:
        return
    when = f" on {conflict.saved_at:%Y-%m-%d at %H:%M} UTC" if conflict.saved_at else ""
    note = f" with the note “{conflict.message}”" if conflict.message else ""
    with st.container(border=True, key="plan.conflict"):
        st.warning(md_escape(
            f"Not saved: version {conflict.latest} of this plan was saved{when}{note}, after version "
            f"{conflict.opened} that this tab opened (another tab or window saved it). Its changes since "
            f"version {conflict.opened}: {conflict.changes}."), icon=":material/sync_problem:")
        reload, download, on_top = st.columns(3, vertical_alignment="center")
        reload.button("Reload the newer version", key="plan.conflict.reload", icon=":material/sync:",
                      on_click=actions.reload_newer_version, width="stretch",
                      help=f"Opens version {conflict.latest}. Your unsaved edits in this tab are lost: "
                           "download them first to keep them.")
        download.download_button("Download my edits (JSON)", data=dump_plan(plan, "native"),
                                  file_name=f"plan-{conflict.plan_id}-mine.json", mime="application/json",
                                  key="plan.conflict.download", icon=":material/download:",
                                  on_click="ignore", width="stretch")
        on_top.button("Save mine on top", key="plan.conflict.save_on_top", icon=":material/save_as:",
                      on_click=actions.save_on_top, width="stretch", disabled=actions.json_blocker() is not None,
                      help=f"Saves your plan as the version after {conflict.latest}; the changes of version "
                           f"{conflict.latest} are not in it, and its version note says so.")
        st.caption(f"Reloading opens version {conflict.latest} and loses this tab's unsaved edits. Saving "
                   f"on top keeps version {conflict.latest} in the history, and yours after it.")

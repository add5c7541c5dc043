"""Steering the plan: lock steps, ask for changes (re-plan), and move between saved versions."""

from __future__ import annotations

import streamlit as st

from core import Plan

from . import _actions as actions
from ._services import Services
from ._state import PERSIST, Keys, SavedRef
from ._text import md_escape

__all__ = ["replan_panel", "versions_panel"]


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
    saved: SavedRef | None = st.session_state[Keys.SAVED]
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

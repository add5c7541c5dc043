"""The Lab's drift section: tools whose definition changed since the studio last saw them (a
``--tools`` file edited, an MCP server updated), and the saved plans whose goals would now be
planned otherwise. The first visit remembers the tools as they are; **Mark as seen** moves that
mark to now."""

from __future__ import annotations

import streamlit as st

from core import PlanStudioError
from core.lab import DriftReport, drift_report, tool_fingerprints

from ...workbench._lab_run import planner_factory
from ._lab_state import LabWork
from ...workbench._services import Services
from .._text import md_escape

__all__ = ["drift_section"]

_REPORT = "lab.drift.report"
_SHOWN = 100


def drift_section(work: LabWork, services: Services) -> None:
    store = services.store
    seen = store.lab.seen_tools()
    now = tool_fingerprints(services.registry)
    if not seen:
        store.lab.remember_tools(now)  # the mark later changes are measured from
        seen = now
    changed = [name for name, digest in now.items() if name in seen and seen[name] != digest]
    added = [name for name in now if name not in seen]
    title = f"Drift: {len(changed)} tool{'s' if len(changed) != 1 else ''} changed since last seen"
    with st.expander(title, expanded=bool(changed), key="lab.drift"):
        st.caption("A tool's description or schema that changed since the studio last saw it (a --tools file "
                   "edited, an MCP server updated) can change the plans its saved goals would get now.")
        if changed:
            st.markdown("Changed: " + ", ".join(f"**{md_escape(name)}**" for name in changed))
        if added:
            st.caption("New since last seen: " + md_escape(", ".join(added)))
        left, right = st.columns(2)
        left.button("Re-plan the saved goals that use them", key="lab.drift.check", disabled=not changed,
                    on_click=_check, args=(services, seen, work.planner), icon=":material/sync_problem:")
        right.button("Mark the tools as seen", key="lab.drift.seen", disabled=not (changed or added),
                     on_click=_mark_seen, args=(services,), icon=":material/done_all:")
        report = st.session_state.get(_REPORT)
        if isinstance(report, str):
            st.error(md_escape(report))
        elif isinstance(report, DriftReport):
            _report(report)


def _check(services: Services, seen: dict[str, str], planner: str) -> None:
    try:
        st.session_state[_REPORT] = drift_report(services.store, services.registry, seen,
                                                 planner_factory(services.settings, planner),
                                                 today=services.settings.effective_today())
    except PlanStudioError as exc:
        st.session_state[_REPORT] = f"Could not re-plan the saved goals: {exc}"


def _mark_seen(services: Services) -> None:
    services.store.lab.remember_tools(tool_fingerprints(services.registry))
    st.session_state.pop(_REPORT, None)


def _report(report: DriftReport) -> None:
    differing = report.differing
    st.markdown(f"**{len(report.items)} saved plan{' uses' if len(report.items) == 1 else 's use'} "
                f"{md_escape(', '.join(report.changed_tools))}; {len(differing)} would now be planned differently.**")
    for item in differing[:_SHOWN]:
        with st.container(border=True, key=f"lab.drift.item.{item.plan_id}"):
            st.markdown(f"{md_escape(item.goal)} · plan {md_escape(item.plan_id)} v{item.version}")
            lines = [f"no plan now: {item.error}"] if item.error else list(item.changes)
            st.caption(md_escape("\n".join(lines)))
    if len(differing) > _SHOWN:
        st.caption(f"… and {len(differing) - _SHOWN} more")

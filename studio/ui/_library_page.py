"""The Library page: saved plans by goal, their versions and runs; open one back into Plan.

A library can hold thousands of plans: the page draws the first ``PAGE_SIZE`` cards and a
"Show more" button adds the next ones, and it asks the store for a fixed number of queries
whatever it shows (the summaries, then the drawn cards' versions and runs in one batch).
"""

from __future__ import annotations

import streamlit as st

from core.storage import PlanHistory, PlanSummary, RunSummary

from . import _actions as actions
from . import _unsaved as unsaved
from .. import workbench as wb
from ._navigation import PLAN_PAGE, page
from ._state import PERSIST, Keys
from ._text import md_escape
from ..workbench._services import Services

__all__ = ["PAGE_SIZE", "library_page"]

PAGE_SIZE = 50


def library_page() -> None:
    services = actions.page_services("Library", "open the plan library")
    if services is None:
        return
    search = st.text_input("Search", key=Keys.SEARCH, persist_state=PERSIST,
                           placeholder="Search saved plans by goal", icon=":material/search:",
                           on_change=_first_page)
    message = st.session_state[Keys.LIBRARY_MESSAGE]
    st.session_state[Keys.LIBRARY_MESSAGE] = None  # said once
    if message is not None:
        getattr(st, message[0])(md_escape(message[1]))
    with actions.shown("list the saved plans"):
        total = services.store.count_plans(search)
        if not total:
            st.info("No saved plan matches." if search.strip() else
                    "No saved plans yet. Make one on the Plan page and press **Save**.")
        else:
            st.caption(f"{total} saved plan{'s' if total != 1 else ''}, most recently changed first")
        shown = services.store.list_plans(search, limit=st.session_state[Keys.LIBRARY_SHOWN] or PAGE_SIZE)
        histories = services.store.histories([summary.id for summary in shown])
        for summary in shown:
            _plan_card(services, summary, histories[summary.id])
        if len(shown) < total:
            st.button(f"Show more ({total - len(shown)} not shown)", key="library.more",
                      on_click=_show_more, args=(len(shown),), icon=":material/expand_more:")


def _first_page() -> None:
    st.session_state[Keys.LIBRARY_SHOWN] = 0


def _show_more(shown: int) -> None:
    st.session_state[Keys.LIBRARY_SHOWN] = shown + PAGE_SIZE


def _open(summary: PlanSummary, version: int | None = None) -> None:
    # Opened, or the Plan page asks first what becomes of unsaved edits (_unsaved).
    if unsaved.open_plan(summary.id, version, summary.goal):
        st.switch_page(page(PLAN_PAGE))
    actions.show_notices()  # why it could not be opened


def _plan_card(services: Services, summary: PlanSummary, history: PlanHistory) -> None:
    with st.container(border=True, key=f"library.card.{summary.id}"):
        about, button = st.columns([6, 1], vertical_alignment="center")
        about.markdown(f"**{md_escape(summary.goal or '(no goal)')}**")
        about.caption(
            f"{summary.step_count} step{'s' if summary.step_count != 1 else ''} · "
            f"{summary.latest_version} version{'s' if summary.latest_version != 1 else ''} · "
            f"{summary.run_count} run{'s' if summary.run_count != 1 else ''} · "
            f"planner {md_escape(summary.planner)} · updated {summary.updated_at:%Y-%m-%d %H:%M}")
        if button.button("Open", key=f"library.open.{summary.id}", icon=":material/open_in_new:",
                         width="stretch"):
            _open(summary)
        with st.expander("Versions and runs", key=f"library.history.{summary.id}"):
            for version in reversed(history.versions):
                text, action = st.columns([6, 1], vertical_alignment="center")
                message = f" · {md_escape(version.message)}" if version.message else ""
                text.markdown(f"Version {version.version} · {version.created_at:%Y-%m-%d %H:%M} · "
                              f"{version.step_count} steps{message}")
                if action.button(f"Open v{version.version}", key=f"library.open.{summary.id}.{version.version}",
                                 width="stretch"):
                    _open(summary, version.version)
            with st.popover("Delete", key=f"library.delete_confirm.{summary.id}", icon=":material/delete:"):
                st.markdown(f"Delete **{md_escape(summary.goal or summary.id)}**, its "
                            f"{summary.latest_version} version(s) and {summary.run_count} run(s)? "
                            "This cannot be undone.")
                st.button("Delete for good", key=f"library.delete.{summary.id}", type="primary",
                          on_click=actions.delete_saved_plan, args=(summary.id, summary.goal))
            if history.runs:
                st.markdown("**Runs**")
            reruns: dict[str, list[RunSummary]] = {}
            for run in history.runs:
                if run.parent_id is not None:
                    reruns.setdefault(run.parent_id, []).append(run)
            for run, depth in _by_lineage(history.runs, reruns):
                _run_line(services, run, summary.goal, depth, reruns.get(run.id, []))


def _by_lineage(runs: list[RunSummary], reruns: dict[str, list[RunSummary]]) -> list[tuple[RunSummary, int]]:
    """The runs (newest first), each rerun right under the run it came from, one level in."""
    listed = {run.id for run in runs}
    ordered: list[tuple[RunSummary, int]] = []
    seen: set[str] = set()
    waiting = [(run, 0) for run in reversed(runs) if run.parent_id is None or run.parent_id not in listed]
    while waiting:
        run, depth = waiting.pop()
        if run.id in seen:
            continue
        seen.add(run.id)
        ordered.append((run, depth))
        waiting.extend((child, depth + 1) for child in reversed(reruns.get(run.id, [])))
    return ordered


def _came_from(run: RunSummary, reruns: list[RunSummary]) -> str:
    """``rerun of run X from <step>`` and ``reruns: Y (from <step>)``, as far as they apply."""
    parts = []
    if run.parent_id is not None:
        parts.append(wb.rerun_of(run.parent_id, run.rerun_from_label))
    if reruns:
        parts.append("reruns: " + ", ".join(f"{r.id} (from {r.rerun_from_label})" if r.rerun_from_label else r.id
                                            for r in reruns))
    return " · ".join(parts)


def _run_line(services: Services, run: RunSummary, goal: str, depth: int = 0, reruns: list[RunSummary] | None = None) -> None:
    text, action = st.columns([6, 1], vertical_alignment="center")
    status = wb.listed_status(services, run)
    shown = run.counts if status.startswith("running") else run.shown_counts()  # a step running now runs
    counts = ", ".join(f"{n} {s}" for s, n in shown.items())
    started = f"{run.started_at:%Y-%m-%d %H:%M}" if run.started_at else "not started"
    pad = "&emsp;" * 2 * min(depth, 5)  # as entities: markdown strips leading spaces, not these
    indent = pad + ("↳ " if depth else "")
    # A stored run never runs: an unfinished one (stored mid-run, or cut off) is paused.
    rehearsal = " · :violet-badge[rehearsal]" if run.rehearsal else ""  # no tool was called
    text.markdown(f"{indent}Run {md_escape(run.id)} · version {run.version} · {started} · "
                  f"**{md_escape(status)}** · {md_escape(counts)}{rehearsal}")
    came = _came_from(run, reruns or [])
    if came:
        text.caption(pad + ("&emsp;" if depth else "") + md_escape(came))
    if action.button("Open run", key=f"library.open_run.{run.id}", width="stretch",
                     help="Open this run with the plan version it ran in the Plan page"):
        if unsaved.open_run(run.plan_id, run.version, run.id, goal):
            st.switch_page(page(PLAN_PAGE))
        actions.show_notices()

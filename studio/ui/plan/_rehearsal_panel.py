"""The Plan page's rehearsals: the Rehearse control by the run buttons (the real run to take
results from, and the start), a step's pinned result in the step panel, "rehearsal" marked on a
run's results and on each step, and the run's download (marked too). The use cases are the
workbench's (``studio.workbench._rehearsing``)."""

from __future__ import annotations

import json

import streamlit as st

from core import Plan, Role, Run

from .. import _actions as actions
from ... import workbench as wb
from ...workbench._services import Services
from .._roles import role_gate
from .._state import bench
from .._text import md_escape

__all__ = ["pin_panel", "rehearsal_caption", "rehearse_control", "run_download", "step_source"]

_NO_RECORDING = ""


def _rehearse() -> None:
    st.session_state["plan.rehearse"] = False  # the popover closes: the run's progress and graph in view
    actions.act(lambda b: wb.request_rehearsal(b, actions.get_services()), "rehearse the plan")


def _recording_chosen() -> None:
    chosen = st.session_state.get("plan.rehearse.recording") or None
    actions.act(lambda b: wb.choose_recording(b, chosen), "choose a recording", clear=False)


def _pin_changed(step_id: str, key: str) -> None:
    text = st.session_state.get(key, "")
    actions.act(lambda b: wb.pin_result(b, actions.get_services(), step_id, text), "pin the step's result")


def _unpin(step_id: str, key: str) -> None:
    st.session_state[key] = ""
    actions.act(lambda b: wb.unpin_result(b, step_id), "unpin the step's result")


def rehearse_control(services: Services, plan: Plan, blocked: bool) -> None:
    """The Rehearse popover: which real run's results stand in, the pins kept, and the start."""
    b = bench()
    with st.popover("Rehearse", icon=":material/theater_comedy:", width="stretch", key="plan.rehearse",
                    on_change="rerun",
                    help="Run the plan without calling any tool: each step takes a pinned, recorded or made-up "
                         "result.", disabled=blocked or not plan.steps):
        runs = wb.recordings(b, services)
        options = [_NO_RECORDING] + [r.id for r in runs]
        labels = {_NO_RECORDING: "No recording (pins and output schemas only)"}
        labels.update({r.id: f"Run {r.id} · v{r.version} · {r.status}"
                       + (f" · {r.started_at:%Y-%m-%d %H:%M}" if r.started_at else "") for r in runs})
        if b.recording not in options:
            b.recording = None
        st.selectbox("Results recorded in", options, index=options.index(b.recording or _NO_RECORDING),
                     format_func=lambda run_id: labels.get(run_id, run_id), key="plan.rehearse.recording",
                     on_change=_recording_chosen,
                     help="An earlier real run of this plan: each step it ran takes its result from there.")
        pinned = [plan.label(step_id) for step_id in b.pins if step_id in {s.id for s in plan.steps}]
        st.caption(md_escape(f"Pinned: {', '.join(pinned)}" if pinned else
                             "No pinned results: pin one in a step's panel (select the step in the graph)."))
        st.caption("A step of a tool that may write needs a pinned or recorded result; the others take one made "
                   "from the tool's output schema. Arguments are still checked.")
        st.button("Start rehearsal", key="plan.rehearse.start", type="primary", on_click=_rehearse,
                  icon=":material/theater_comedy:", width="stretch",
                  **role_gate(Role.reviewer, "rehearse the plan", disabled=blocked))


def pin_panel(plan: Plan, step_id: str) -> None:
    """The selected step's pinned result: JSON a rehearsal takes instead of calling the tool."""
    key = f"plan.pin.{step_id}"
    pinned = bench().pins.get(step_id)
    if key not in st.session_state:
        st.session_state[key] = "" if step_id not in bench().pins else json.dumps(pinned, indent=2,
                                                                                   ensure_ascii=False)
    title = "Pinned result (rehearsals)" + (" · pinned" if step_id in bench().pins else "")
    with st.expander(title, key=f"plan.pin.{step_id}.panel", expanded=step_id in bench().pins):
        st.text_area("Result a rehearsal takes instead of calling the tool (JSON)", key=key, height=120,
                     on_change=_pin_changed, args=(step_id, key), placeholder='e.g. {"data": []}',
                     **role_gate(Role.reviewer, "pin a step's result"))
        if step_id in bench().pins:
            st.button("Unpin", key=f"plan.pin.{step_id}.unpin", on_click=_unpin, args=(step_id, key),
                      icon=":material/backspace:", **role_gate(Role.reviewer, "unpin a step's result"))


def rehearsal_caption(run: Run) -> str:
    """" · rehearsal: no tool was called" for a rehearsal's summary line, else ""."""
    if run.rehearsal is None:
        return ""
    came = f"; results recorded in run {run.rehearsal.recording}" if run.rehearsal.recording else ""
    return f" · rehearsal: no tool was called{came}"


def step_source(run: Run | None, step_id: str) -> None:
    """Where a rehearsed step's result came from, under its title; nothing for a real run."""
    if run is not None and run.rehearsal is not None:
        st.caption(md_escape(run.rehearsal.source_of(step_id)))


def run_download(run: Run) -> None:
    name = f"{'rehearsal' if run.rehearsal is not None else 'run'}-{run.id}.json"
    st.download_button("Download the run (JSON)", data=wb.run_export(run), file_name=name, mime="application/json",
                       on_click="ignore", key=f"plan.run.download.{run.id}", icon=":material/download:")

"""The Plan page's panel for a run that is over: "Retry failed step(s)" and "Rerun from step",
then the preview (which steps run again, which keep their recorded results, which tools may
write) with Confirm and Cancel.

The rules are the workbench's (``workbench._rerunning``); the callbacks copy the choice in and
the notices out. Step labels hold the user's notes: they are drawn in a dataframe (cells are
text, never markdown) or escaped.
"""

from __future__ import annotations

import streamlit as st

from core import CUT_OFF, RESUMABLE, Run, StepStatus, step_label

from .. import _actions as actions
from ... import workbench as wb
from .._session import get_services
from .._state import bench
from .._text import md_escape

__all__ = ["rerun_panel"]



def _ask_retry() -> None:
    actions.act(lambda b: wb.ask_rerun(b, get_services(), retry=True), "retry the failed steps")


def _ask_from(key: str) -> None:
    step = st.session_state.get(key)
    actions.act(lambda b: wb.ask_rerun(b, get_services(), from_step=step), "rerun the run")


def _confirm() -> None:
    actions.act(lambda b: wb.confirm_rerun(b, get_services()), "rerun the run")


def _cancel() -> None:
    actions.act(wb.cancel_rerun, "cancel the rerun", clear=False)


def rerun_panel(run: Run) -> None:
    if not (run.finished or run.status in RESUMABLE):  # over, or stopped with nothing going on
        return
    preview = bench().rerun
    if preview is not None and preview.parent_id == run.id:
        _preview(preview)
        return
    failed = any(s.status == StepStatus.failed or s.status in CUT_OFF for s in run.steps.values())
    labels = {s.id: step_label(s) for s in run.plan.steps}
    with st.container(border=True, key="plan.rerun"):
        retry, step, rerun = st.columns([1.5, 3, 1.5], vertical_alignment="bottom")
        retry.button("Retry failed step(s)", key="plan.rerun.retry", on_click=_ask_retry, disabled=not failed,
                     icon=":material/replay:", width="stretch",
                     help="A new run: the failed steps and the steps that depend on them run again; "
                          "the others keep their results. You see which first.")
        key = f"plan.rerun.step.{run.id}"  # per run: another run's steps are other options
        step.selectbox("Rerun from step", list(labels), format_func=labels.__getitem__, key=key)
        rerun.button("Rerun from step", key="plan.rerun.from", on_click=_ask_from, args=(key,),
                     icon=":material/restart_alt:", width="stretch",
                     help="A new run: this step and every step that depends on it run again; the others "
                          "keep their results. You see which first.")


def _preview(preview: wb.RerunPreview) -> None:
    again = preview.again
    with st.container(border=True, key="plan.rerun.preview"):
        title = "Retry the failed steps" if preview.retry else f"Rerun from {preview.start_label}"
        st.markdown(f"**{md_escape(title)}** · a new run, linked to run {md_escape(preview.parent_id)}: "
                    f"{len(again)} step{'s' if len(again) != 1 else ''} run again, "
                    f"{len(preview.steps) - len(again)} keep their recorded results.")
        writing = [s.label for s in again if s.writes]
        if writing:
            st.warning(md_escape(f"{len(writing)} step{'s' if len(writing) != 1 else ''} that run again may write: "
                                 f"{', '.join(writing)}. Their effects happen again."), icon=":material/edit_note:")
        rows = [{"step": s.label, "what happens": "runs again" if s.again else "keeps its result",
                 "effects": s.effects + (" ⚠ happens again" if s.again and s.writes else "")} for s in preview.steps]
        st.dataframe(rows, hide_index=True, width="stretch", key="plan.rerun.preview.steps")
        confirm, cancel, _ = st.columns([1.6, 1, 4])
        confirm.button("Start the rerun", key="plan.rerun.confirm", type="primary", on_click=_confirm,
                       icon=":material/play_arrow:", width="stretch")
        cancel.button("Cancel", key="plan.rerun.cancel", on_click=_cancel, width="stretch")

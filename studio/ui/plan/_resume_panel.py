"""The Plan page's panel for a run cut off (the studio stopped mid-run, or the run was
cancelled): which steps a Resume runs again, those of writing tools marked, a choice for each
step in doubt (run again / mark failed), and Resume.

What Resume does is ``workbench.resume_view`` / ``resume_run``, as the review API's resume.
Step labels hold the plan's text (an agent's, a model's): escaped.
"""

from __future__ import annotations

import streamlit as st

from .. import _actions as actions
from ... import workbench as wb
from ...workbench._services import Services
from .._session import get_services
from .._state import bench
from .._text import md_escape

__all__ = ["resume_panel"]

_AGAIN, _FAILED = "Run it again", "Mark it failed"


def _choice_key(step_id: str) -> str:
    return f"plan.resume.{step_id}.choice"


def _resume(in_doubt: list[str]) -> None:
    chosen = {step: st.session_state.get(_choice_key(step)) for step in in_doubt}
    decisions = {step: "again" if choice == _AGAIN else "failed" for step, choice in chosen.items() if choice}
    actions.act(lambda b: wb.resume_run(b, get_services(), decisions), "resume the run")


def resume_panel(services: Services) -> None:
    view = wb.resume_view(bench(), services)
    if view is None:
        return
    with st.container(border=True, key="plan.resume"):
        why = "was cancelled" if view.status == "cancelled" else "was interrupted: it stopped while steps ran"
        kept = (f"the {len(view.kept)} steps that finished keep their results and do not run again" if len(view.kept) != 1
                else "the step that finished keeps its result and does not run again")
        st.markdown(f":violet-badge[{md_escape(view.status)}] **This run {why}.** Resume carries it on: {kept}.")
        st.markdown("**Steps that run again**")
        for line in view.again:
            mark = " · :orange-badge[writes: its effect happens again]" if line.writes and not line.in_doubt else ""
            st.markdown(f"- {md_escape(line.label)}{mark}")
            if line.in_doubt:
                st.radio("It may have had its effect before the run stopped (its tool may write):",
                         (_AGAIN, _FAILED), index=None, key=_choice_key(line.step_id), horizontal=True,
                         help="Run it again: its tool is called again (its effect may happen twice). Mark it "
                              "failed: it is not called; the steps that need it are skipped.")
        undecided = [step for step in view.in_doubt if not st.session_state.get(_choice_key(step))]
        st.button("Resume", key="plan.resume.go", type="primary", icon=":material/resume:",
                  on_click=_resume, args=(view.in_doubt,), disabled=bool(undecided),
                  help="Choose for each step in doubt first." if undecided else
                       "Carry on the run; finished steps are not run again.")

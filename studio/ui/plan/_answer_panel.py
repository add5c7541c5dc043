"""What a run came to: a readable summary, and the model's answer streamed as it is written.

After a run the page says in a reader's words what happened (``wb.summarize_run``): steps and
rows counted, the final result's top rows, what failed and why. Offline (no model), that summary
is the answer, and the run's stored answer (the step-by-step text the CLI prints) sits in an
expander under it; with a model configured, the model's answer is shown, and while the run
writes it the page streams it with ``st.write_stream`` as its pieces arrive.
Every text here comes from tools, plans or the model: escaped.
"""

from __future__ import annotations

from typing import Iterator

import streamlit as st

from core import Run, RunProgress

from ... import workbench as wb
from ...workbench._services import Services
from .._session import get_services
from .._text import md_escape
from ._step_results import rows_table

__all__ = ["answer_panel", "model_answers", "streamed_answer"]

# How long one look at a run writing its answer waits for the run to end before it looks again.
_LOOK_SECONDS = 0.1


def model_answers(services: Services) -> bool:
    """True when a model writes the run's answer (as ``core.make_synthesizer`` decides)."""
    return services.settings.planner == "llm" and services.settings.model_configured


def answer_panel(run: Run) -> None:
    """The summary of a finished run, then its answer: the model's, or the offline one folded away."""
    if not run.finished:
        return
    summary = wb.summarize_run(run)
    with st.container(border=True, key="plan.summary"):
        st.markdown(f"**Summary** · {md_escape(summary.headline)}")
        if summary.final is not None:
            if summary.final_rows is not None:
                shown = len(summary.top_rows)
                st.caption(md_escape(f"The final result, {summary.final}: {summary.final_rows} "
                                     f"row{'s' if summary.final_rows != 1 else ''}"
                                     + (f", the first {shown} shown" if shown < summary.final_rows else "")))
                if summary.top_rows:
                    st.dataframe(rows_table(summary.top_rows), hide_index=True, key="plan.summary.rows")
            elif summary.final_text is not None:
                st.caption(md_escape(f"The final result, {summary.final}:"))
                st.text(summary.final_text)  # plain text: nothing in it is read as markdown
        else:
            st.caption("No step succeeded, so there is no result to show.")
        if summary.failures:
            st.markdown("**What did not work**")
            st.markdown("\n".join(md_escape(f"- {f.step}: {f.reason}") for f in summary.failures))
    if not run.answer:
        return
    if model_answers(get_services()):
        st.markdown("**Answer**")
        st.markdown(md_escape(run.answer))
    else:
        with st.expander("Step by step", key="plan.summary.steps"):
            st.markdown(md_escape(run.answer))


def streamed_answer(progress: RunProgress, worker) -> None:  # noqa: ANN001 - a workbench RunHandle
    """The answer while the run writes it: streamed when a model writes it, else as it stands."""
    if not progress.answer:
        return
    if not model_answers(get_services()):
        st.markdown(md_escape(progress.answer))
        return
    st.write_stream(answer_pieces(progress.answer, worker))


def answer_pieces(start: str, worker) -> Iterator[str]:  # noqa: ANN001 - a workbench RunHandle
    """The answer's text as it grows, in pieces, escaped, until the run ends. Each piece ends at
    a space or line end, so no word (a web address, a ``:code:``) is escaped in two halves."""
    shown = 0
    text = start
    while True:
        cut = max(text.rfind(" ", shown), text.rfind("\n", shown)) + 1
        if cut > shown:
            yield md_escape(text[shown:cut])
            shown = cut
        if not worker.alive:
            break
        worker.join(_LOOK_SECONDS)  # returns at once when the run ends
        text = worker.progress().answer
    text = worker.progress().answer or text
    if len(text) > shown:
        yield md_escape(text[shown:])

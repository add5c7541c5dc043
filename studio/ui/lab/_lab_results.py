"""Running the Lab's experiment and its results: progress while it runs (redrawn on its own),
Stop keeping what was done, and every goal side by side: the tools each set of words chose,
validity, the match to the plan expected, and what the edited words changed.

Results are drawn in a data grid (text shown as it is, never as markdown) and the lines of
changes through ``md_escape``: goals, params and planners' messages are untrusted text.
"""

from __future__ import annotations

import json

import streamlit as st

from core.lab import EditProblem, Experiment, GoalResult, VariantResult

from ...workbench._lab_run import LabRun, experiment_blocker, start_experiment
from ._lab_state import LabWork, current_experiment, key, lab_work
from ...workbench._services import Services
from .._text import md_escape

__all__ = ["results_section"]

_PROGRESS_SECONDS = 0.5
_DETAILS = 50  # goals whose changes are spelled out; the grid lists them all


def results_section(work: LabWork, services: Services, experiment: Experiment, problems: list[EditProblem]) -> None:
    st.subheader("Run")
    st.radio("Planner", ["embedded", "llm"], index=0 if work.planner == "embedded" else 1, horizontal=True,
             key=key(work, "planner"), format_func=lambda p: {"embedded": "Embedded (offline)", "llm": "LLM"}[p])
    running = work.run is not None and work.run.running
    blocked = experiment_blocker(experiment, problems)
    left, right, note = st.columns([1.2, 1, 4], vertical_alignment="center")
    left.button("Run experiment", key="lab.run", type="primary", disabled=running or blocked is not None,
                on_click=_start, args=(services,), icon=":material/science:")
    right.button("Stop", key="lab.stop", disabled=not running, on_click=_stop, icon=":material/stop:")
    if blocked and not running:
        note.caption(blocked)
    if work.run is None:
        return
    if running:
        _live(work.run)
    else:
        _finished(work.run)


def _start(services: Services) -> None:
    work = lab_work()
    out, run = start_experiment(services, current_experiment(work, services.registry))
    if run is not None:
        work.run = run
    elif out.notices:  # refused (the button is disabled then: a click sent before it was)
        st.toast(md_escape(out.notices[-1].text), icon=":material/block:")


def _stop() -> None:
    run = lab_work().run
    if run is not None:
        run.stop()


@st.fragment(run_every=_PROGRESS_SECONDS)
def _live(run: LabRun) -> None:
    if not run.running:
        st.rerun()
    done = len(run.results)
    said = "Stopping after the goal planned now…" if run.stopping else f"Planning goal {done + 1} of {run.total}"
    st.progress(done / max(run.total, 1), text=f"{done} of {run.total} goals done · {said}")
    _table(run.results)


def _finished(run: LabRun) -> None:
    results = run.results
    if run.error:
        st.error(md_escape(f"The run stopped: {run.error}. The {len(results)} goals done are kept below."),
                 icon=":material/error:")
    elif run.stopped_early:
        st.warning(f"Stopped: {len(results)} of {run.total} goals done; they are kept below.", icon=":material/stop:")
    differ = sum(r.differs for r in results)
    expected = [r for r in results if r.original.match is not None]
    summary = f"{len(results)} of {run.total} goals planned · {differ} planned differently with the edited words"
    if expected:
        summary += (f" · matched the expected plan: original words {sum(r.original.match.exact for r in expected)} "
                    f"of {len(expected)}, edited words {sum(r.edited.match.exact for r in expected)} of {len(expected)}")
    st.markdown(f"**{summary}**")
    only = st.toggle("Only the goals planned differently", key="lab.only_changed", value=differ > 0)
    _table([r for r in results if r.differs] if only else results)
    changed = [r for r in results if r.differs or _missed(r)]
    if changed:
        with st.expander(f"What changed, goal by goal ({len(changed)})", expanded=True, key="lab.details"):
            for result in changed[:_DETAILS]:
                _details(result)
            if len(changed) > _DETAILS:
                st.caption(f"… and {len(changed) - _DETAILS} more in the table above")
    st.download_button("Download the results (JSON lines)", _jsonl(results), file_name="lab-results.jsonl",
                       mime="application/jsonl", key="lab.download", icon=":material/download:", on_click="ignore")


def _missed(result: GoalResult) -> bool:
    """Worth spelling out though the words changed nothing: a plan not as expected, or none."""
    return any((v.match is not None and not v.match.exact) or v.error is not None
               for v in (result.original, result.edited))


def _table(results: list[GoalResult]) -> None:
    if not results:
        return
    st.dataframe([{"#": r.index + 1, "goal": r.goal, "original words": _tools(r.original),
                   "edited words": _tools(r.edited), "changed": "yes" if r.differs else "",
                   "valid (original / edited)": f"{_valid(r.original)} / {_valid(r.edited)}",
                   "expected plan (original / edited)": f"{_match(r.original)} / {_match(r.edited)}"}
                  for r in results], hide_index=True, key="lab.results")


def _tools(variant: VariantResult) -> str:
    if variant.error is not None:
        return "no plan"
    return " → ".join(variant.tools) or "no steps"


def _valid(variant: VariantResult) -> str:
    if variant.error is not None:
        return "no plan"
    return "valid" if not variant.problems else f"{len(variant.problems)} problem{'s' if len(variant.problems) > 1 else ''}"


def _match(variant: VariantResult) -> str:
    if variant.match is None:
        return "—"
    return "exact" if variant.match.exact else f"{len(variant.match.differences)} step(s) differ"


def _details(result: GoalResult) -> None:
    st.markdown(f"**{result.index + 1}. {md_escape(result.goal)}**")
    for label, variant in (("Original words", result.original), ("Edited words", result.edited)):
        lines = [f"{label}: {_tools(variant)}"]
        lines += [f"  params of step {n + 1} ({s.tool}): {json.dumps(s.params, ensure_ascii=False)}"
                  for n, s in enumerate(variant.steps)]
        if variant.error:
            lines.append(f"  no plan: {variant.error}")
        lines += [f"  problem: {p}" for p in variant.problems]
        if variant.match is not None and not variant.match.exact:
            lines += [f"  not as expected: {d}" for d in variant.match.differences]
        st.markdown(md_escape("\n".join(lines)))
    if result.changes:
        st.markdown(md_escape("Edited against original:\n" + "\n".join(result.changes)))


def _jsonl(results: list[GoalResult]) -> str:
    def variant(v: VariantResult) -> dict:
        return {"tools": list(v.tools), "steps": [{"tool": s.tool, "params": s.params} for s in v.steps],
                "problems": list(v.problems), "error": v.error,
                "match": None if v.match is None else {"exact": v.match.exact, "differences": list(v.match.differences)}}

    return "".join(json.dumps({"goal": r.goal, "original": variant(r.original), "edited": variant(r.edited),
                               "changes": list(r.changes)}, ensure_ascii=False) + "\n" for r in results)

"""One step's outcome as the Plan page shows it, in the run's results and in the step inspector:
its status, duration, error, and result (a table, a SAY step's message, JSON), then the
arguments sent. Results are tools' output: untrusted, drawn as table cells or escaped text."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import streamlit as st

from core import EXPLAINED, Plan, Run, StepRun, StepStatus
from core.formats import SAY_TOOL

from .._text import md_escape
from ._rehearsal_panel import step_source

__all__ = ["STATUS_COLOUR", "rows_table", "step_result", "step_title"]

# Streamlit's markdown colour names, matching the graph's status colours.
STATUS_COLOUR = {"pending": "gray", "running": "blue", "succeeded": "green", "failed": "red",
                  "skipped": "orange", "interrupted": "violet",
                  "cancelled": "gray", "waiting": "yellow", "rejected": "red"}


def step_title(plan: Plan, step_id: str) -> str:
    index = plan.index_of(step_id)
    return f"Step {index} · {plan.steps[index].tool}"


def step_result(plan: Plan, state: StepRun, run: Run, key: str = "plan.result") -> None:
    """One step's outcome: status, duration, error or result (a table, a message, JSON), and the
    arguments sent; ``key`` prefixes its widgets' keys, so the inspector can show it too."""
    status = state.status.value
    duration = f" · {state.duration_ms:.1f} ms" if state.duration_ms is not None else ""
    st.markdown(f"**{md_escape(step_title(plan, state.step_id))}** :{STATUS_COLOUR[status]}-badge[{status}]{duration}")
    step_source(run, state.step_id)
    if state.retried_note:
        st.caption(md_escape(state.retried_note.capitalize()))
    if state.status == StepStatus.failed:
        st.error(md_escape(state.error or "failed"))
    elif state.status in EXPLAINED:  # not failed: skipped or cut off
        st.warning(md_escape(state.error or status))
    elif state.status == StepStatus.succeeded and said(plan, state) is not None:
        with st.chat_message("assistant"):
            st.markdown(md_escape(said(plan, state)))
            for n, source in enumerate(citations(state), start=1):
                st.caption(md_escape(f"[{n}] " + " · ".join(str(source[k]) for k in ("title", "url", "filepath")
                                                            if isinstance(source.get(k), str) and source[k])))
    elif state.status == StepStatus.succeeded:
        rows = state.rows
        if rows is not None:
            st.caption(f"{len(rows)} row{'s' if len(rows) != 1 else ''}")
            if rows:
                st.dataframe(rows_table(rows), hide_index=True, key=f"{key}.{state.step_id}.rows")
        elif isinstance(state.result, str):
            # st.json reads a string as JSON text ("Json Parse Error"): a plain string is text.
            st.markdown(md_escape(state.result))
        else:
            st.json(state.result, expanded=2)
    if state.arguments:
        with st.expander("Arguments sent to the tool", key=f"{key}.{state.step_id}.arguments"):
            st.json(state.arguments, expanded=False)


def said(plan: Plan, state: StepRun) -> str | None:
    """The message of a SAY step (Teams AI), which reads best as a chat message."""
    if plan.step(state.step_id).tool != SAY_TOOL or not isinstance(state.result, dict):
        return None
    message = state.result.get("message")
    return message if isinstance(message, str) else None


def citations(state: StepRun) -> list[dict[str, Any]]:
    """The sources a SAY step cites (a Teams AI message's context), shown under its message."""
    cited = state.result.get("citations") if isinstance(state.result, dict) else None
    return [c for c in cited if isinstance(c, dict)] if isinstance(cited, list) else []


def rows_table(rows: list[Any]) -> Any:
    """Rows a table can show: nested values as JSON text, bare values in a ``value`` column.

    An Arrow table when Arrow can type every column: Streamlit sends it as it is, where a
    list of dicts goes through pandas first (ten times the time, paid for every result on
    every rerun). Columns Arrow cannot type (mixed values) go the pandas way as before.
    """
    def cell(value: Any) -> Any:
        return json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value
    records = [{k: cell(v) for k, v in row.items()} if isinstance(row, dict) else {"value": cell(row)}
               for row in rows]
    columns = dict.fromkeys(k for record in records for k in record)  # in order of appearance, as pandas
    if not all(isinstance(k, str) for k in columns):
        return records
    try:
        table = pa.table({k: [record.get(k) for record in records] for k in columns})
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return records
    return records if any(pa.types.is_null(t) for t in table.schema.types) else table

"""The Plan page's "Planner log" expander: every attempt the planner made for this plan.

For the LLM planner: each request's figures (time, tokens, temperature, the tools the schema
offered), the model's raw reply, the validator's problems, the date phrases resolved and the
repair message sent back, and what the studio set right in a reply itself (a date the goal
never named, a value the user never said). For the embedded planner: which words chose which tool and filter.
The model's text is untrusted: replies and repairs are drawn as code (never read as
Markdown or HTML), everything else through ``md_escape``.
"""

from __future__ import annotations

import streamlit as st

from core import Plan
from core.planners import planner_log
from core.planners._planner_log import attempt_summary, words_line

from .._text import md_escape

__all__ = ["planner_log_panel"]


def planner_log_panel(plan: Plan) -> None:
    log = planner_log(plan)
    if not log:
        return
    label = f"Planner log · {len(log)} attempt{'s' if len(log) != 1 else ''}"
    with st.expander(label, key="plan.planner_log", icon=":material/receipt_long:"):
        for n, entry in enumerate(log):
            st.markdown(md_escape(f"Attempt {entry.get('attempt', n + 1)}: {attempt_summary(entry)}"))
            for words in entry.get("words") or []:
                st.markdown("- " + md_escape(words_line(words)))
            for date in entry.get("dates") or []:
                st.markdown("- " + md_escape(f"date: {date}"))
            if entry.get("error"):
                st.markdown(md_escape(f"Error: {entry['error']}"))
            if "reply" in entry:
                st.caption(md_escape(f"The model's reply ({entry.get('reply_chars', len(str(entry['reply']))):,} characters)"))
                st.code(str(entry["reply"]), language=None, wrap_lines=True)
            for problem in entry.get("problems") or []:
                st.markdown("- " + md_escape(f"problem: {problem}"))
            for fix in entry.get("fixed") or []:  # what the studio set right in the reply itself
                st.markdown("- " + md_escape(f"fixed: {fix}"))
            if entry.get("repair"):
                st.caption("Repair message sent back")
                st.code(str(entry["repair"]), language=None, wrap_lines=True)

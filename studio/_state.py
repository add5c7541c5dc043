"""The studio's session state: every key, its default, and the one place it is initialised.

Keys are namespaced by page ("plan.", "library."). Text widgets keep their value across page
changes with ``persist_state="session"`` (``PERSIST``), so the Library page can put a saved plan
into the Plan page's widgets before switching to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import streamlit as st

__all__ = ["PERSIST", "Keys", "SavedRef", "init_state"]

PERSIST: Final = "session"


class Keys:
    # Plan page widgets
    GOAL = "plan.goal"
    JSON = "plan.json"
    FEEDBACK = "plan.feedback"
    SAVE_MESSAGE = "plan.save_message"
    # Plan page state
    PLAN = "plan.current"  # the last plan that parsed: what the graph shows and runs
    JSON_ERROR = "plan.json_error"  # why the JSON panel's text does not parse, or None
    APPROVED = "plan.approved"
    RUN = "plan.run"  # core.Run of the current plan, or None
    RUN_SAVED = "plan.run_saved"  # the run's id once it is stored with its plan
    SAVED = "plan.saved"  # SavedRef of the stored version the editor holds, or None
    NOTICES = "plan.notices"  # (kind, text) messages from the last action
    PENDING_RUN = "plan.pending_run"  # "next" or "all": a run the page performs live
    # Library page widgets
    SEARCH = "library.search"


@dataclass(frozen=True)
class SavedRef:
    """Which stored version the editor holds, and the plan as it was saved."""

    plan_id: str
    version: int
    fingerprint: str


_DEFAULTS: dict[str, Any] = {
    Keys.GOAL: "",
    Keys.JSON: "",
    Keys.FEEDBACK: "",
    Keys.SAVE_MESSAGE: "",
    Keys.SEARCH: "",
    Keys.PLAN: None,
    Keys.JSON_ERROR: None,
    Keys.APPROVED: False,
    Keys.RUN: None,
    Keys.RUN_SAVED: None,
    Keys.SAVED: None,
    Keys.NOTICES: [],
    Keys.PENDING_RUN: None,
}


def init_state() -> None:
    """Give every key its default once per session; the entry script calls it on every run."""
    for key, value in _DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = list(value) if isinstance(value, list) else value

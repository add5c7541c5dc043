"""The studio's way to its services: one set per process and per settings.

``get_services`` caches with ``st.cache_resource``, so every session shares the same store and
tool data, and a test that points ``PLAN_STUDIO_DATA_DIR`` somewhere else gets its own. The
settings are the environment's with this browser session's choices from the Settings page
applied over them.
"""

from __future__ import annotations

import sys

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core import Settings
from core.storage import PlanStore

from ._services import Services, build_services
from ._state import Keys

__all__ = ["get_services", "session_overrides"]


@st.cache_resource(show_spinner=False)
def _store_for(path: str) -> PlanStore:
    # One open store per database file, whatever planner or model a session picks.
    return PlanStore(path)


@st.cache_resource(show_spinner=False, max_entries=8)
def _services_for(settings_json: str) -> Services:
    settings = Settings.model_validate_json(settings_json)
    services = build_services(settings, store=_store_for(str(settings.store_path)))
    for problem in services.tool_problems:  # also on the Tools page; here for whoever started it
        print(f"plan-studio: tools: {problem}", file=sys.stderr, flush=True)
    return services


def session_overrides() -> dict[str, object]:
    """This browser session's Settings-page choices; none outside a Streamlit session."""
    # The CLI and a test's own code have no session; st.session_state would hand them a
    # stand-in and log a warning.
    if get_script_run_ctx(suppress_warning=True) is None:
        return {}
    overrides = dict(st.session_state.get(Keys.SETTINGS_OVERRIDES) or {})
    servers = st.session_state.get(Keys.SETTINGS_MCP)
    if servers is not None:  # kept apart: the planner form's Apply and reset leave them alone
        overrides["mcp"] = list(servers)
    return overrides


def get_services() -> Services:
    """The services for the environment's settings with this session's choices applied
    (built on first use, then shared by every session with the same settings)."""
    return _services_for(Settings.from_env(**session_overrides()).model_dump_json())

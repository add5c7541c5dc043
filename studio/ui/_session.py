"""The studio's way to its services: one set per process and per settings.

``get_services`` caches with ``st.cache_resource``, so every session shares the same store and
tool data, and a test that points ``PLAN_STUDIO_DATA_DIR`` somewhere else gets its own. The
settings are the environment's with this browser session's choices from the Settings page
applied over them.
"""

from __future__ import annotations

import json
import sys

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core import Settings, ToolRegistry, overrides_from_json
from core.storage import PlanStore

from ..workbench._runs_here import RunsHere
from ..workbench._services import Services, build_services
from ._state import Keys

__all__ = ["get_services", "oidc_configured", "session_overrides", "session_tool_overrides", "source_services"]


@st.cache_resource(show_spinner=False)
def _store_for(path: str) -> PlanStore:
    # One open store per database file, whatever planner or model a session picks.
    return PlanStore(path)


@st.cache_resource(show_spinner=False)
def _runs_for(path: str) -> RunsHere:
    # The runs live on that store in this process, whatever settings a session picks: a run one
    # session started is "running" in every other's Library, and its tab finds it after a reload.
    return RunsHere()


@st.cache_resource(show_spinner=False, max_entries=16)
def _services_with_overrides(settings_json: str, overrides_json: str) -> Services:
    # Shared by the sessions that made the same overrides; the tools' sources are never changed.
    return _services_for(settings_json).with_tool_overrides(overrides_from_json(json.loads(overrides_json)))


@st.cache_resource(show_spinner=False, max_entries=8)
def _services_for(settings_json: str) -> Services:
    settings = Settings.model_validate_json(settings_json)
    path = str(settings.store_path)
    services = build_services(settings, store=_store_for(path), runs=_runs_for(path))
    for problem in services.tool_problems:  # also on the Tools page; here for whoever started it
        print(f"plan-studio: tools: {problem}", file=sys.stderr, flush=True)
    return services


def session_tool_overrides(registry: ToolRegistry) -> dict[str, dict]:
    """This session's tool descriptions, for the tools and params ``registry`` still has (a
    server removed on Settings takes its tools' overrides out of use, not out of the session)."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return {}
    kept: dict[str, dict] = {}
    for name, item in (st.session_state.get(Keys.TOOLS_OVERRIDES) or {}).items():
        if name in registry:
            known = registry.get(name).param_names
            params = {p: text for p, text in (item.get("params") or {}).items() if p in known}
            kept[name] = {**({"description": item["description"]} if "description" in item else {}),
                          **({"params": params} if params else {})}
    return {name: item for name, item in kept.items() if item}


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
    (built on first use, then shared by every session with the same settings), their tools
    read with this session's descriptions (Tools page, "Edit description")."""
    settings_json = Settings.from_env(**session_overrides()).model_dump_json()
    services = _services_for(settings_json)
    overrides = session_tool_overrides(services.registry)
    if not overrides:
        return services
    return _services_with_overrides(settings_json, json.dumps(overrides, sort_keys=True))


def oidc_configured() -> bool:
    """Whether people sign in with OIDC: an ``[auth]`` section in Streamlit's ``secrets.toml``."""
    from streamlit.auth_util import get_secrets_auth_section

    try:
        return bool(get_secrets_auth_section())
    except Exception:  # an unreadable secrets file: Streamlit itself says why on the page
        return False


def source_services() -> Services:
    """The services for this session's settings, their tools read with their sources' own words
    (no "Edit description" of this session): what the Lab compares edits against, and what
    drift compares with the tools last seen."""
    return _services_for(Settings.from_env(**session_overrides()).model_dump_json())

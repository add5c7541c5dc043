"""What the studio and the CLI work with: settings, tools, store, executor, planner.

``build_services`` makes them from settings and needs no running Streamlit, so the
CLI uses it as it is. ``get_services`` is the studio's way in: one set per process and per
settings (``st.cache_resource``), so every session shares the same store and tool data, and a
test that points ``PLAN_STUDIO_DATA_DIR`` somewhere else gets its own. The settings are the
environment's with this browser session's choices from the Settings page applied over them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core import (Executor, PlannerError, PlanStudioError, Settings, ToolRegistry, Validator,
                  make_synthesizer)
from core.planners import Planner, make_planner
from core.storage import PlanStore
from tools import build_registry

from ._state import Keys

__all__ = ["Services", "build_services", "get_services", "session_overrides"]

@dataclass
class Services:
    settings: Settings
    registry: ToolRegistry
    store: PlanStore
    executor: Executor
    validator: Validator
    _planner: Planner | None = field(default=None, repr=False)
    _planner_problem: str | None = field(default=None, repr=False)

    @property
    def planner(self) -> Planner:
        """The configured planner; raises ``PlannerError`` saying why there is none."""
        if self._planner is None:
            raise PlannerError(self._planner_problem or "no planner is configured")
        return self._planner

    @property
    def planner_name(self) -> str:
        return getattr(self._planner, "name", self.settings.planner)


def _make_planner(settings: Settings, registry: ToolRegistry) -> tuple[Planner | None, str | None]:
    # A planner that cannot be built (no model configured, say) must not stop the studio from
    # opening: saved plans, editing and running still work, and the reason is shown on "Plan".
    try:
        return make_planner(settings, registry), None
    except PlanStudioError as exc:
        return None, str(exc)


def build_services(settings: Settings, registry: ToolRegistry | None = None,
                   store: PlanStore | None = None) -> Services:
    """Everything the studio and the CLI need, built from ``settings``.

    ``registry`` replaces the installed tools (tests pass their own); ``store`` shares an open
    store instead of opening the settings' database again.
    """
    registry = registry if registry is not None else build_registry(settings)
    planner, problem = _make_planner(settings, registry)
    return Services(
        settings=settings,
        registry=registry,
        store=store if store is not None else PlanStore(settings.store_path),
        executor=Executor(registry, synthesizer=make_synthesizer(settings)),
        validator=Validator(registry),
        _planner=planner,
        _planner_problem=problem,
    )


@st.cache_resource(show_spinner=False)
def _store_for(path: str) -> PlanStore:
    # One open store per database file, whatever planner or model a session picks.
    return PlanStore(path)


@st.cache_resource(show_spinner=False, max_entries=8)
def _services_for(settings_json: str) -> Services:
    settings = Settings.model_validate_json(settings_json)
    return build_services(settings, store=_store_for(str(settings.store_path)))


def session_overrides() -> dict[str, object]:
    """This browser session's Settings-page choices; none outside a Streamlit session."""
    # The CLI and a test's own code have no session; st.session_state would hand them a
    # stand-in and log a warning.
    if get_script_run_ctx(suppress_warning=True) is None:
        return {}
    return dict(st.session_state.get(Keys.SETTINGS_OVERRIDES) or {})


def get_services() -> Services:
    """The services for the environment's settings with this session's choices applied
    (built on first use, then shared by every session with the same settings)."""
    return _services_for(Settings.from_env(**session_overrides()).model_dump_json())

"""What the studio and the CLI work with: settings, tools, store, executor, planner, and the
registry of the runs this process drives (``_runs_here``).

``build_services`` makes them from settings. It needs no Streamlit, and this module does not
import it, so the command line starts without loading the web app (``_session`` is the
studio's cached way in).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Mapping

from core import (Executor, PlannerError, PlanStudioError, RunLimits, Settings, ToolOverride, ToolRegistry, Validator,
                  make_synthesizer, private_folder)
from core.planners import Planner, make_planner
from tools import load_tools

from ._runs_here import RunsHere
from ._webhooks import Notifier

if TYPE_CHECKING:  # pragma: no cover
    from core.storage import PlanStore

__all__ = ["Services", "build_services"]


@dataclass
class Services:
    settings: Settings
    registry: ToolRegistry
    executor: Executor
    validator: Validator
    _planner: Planner | None = field(default=None, repr=False)
    _planner_problem: str | None = field(default=None, repr=False)
    _store: PlanStore | None = field(default=None, repr=False)
    # One line per tool source (a --tools file, an MCP server) that could not be loaded.
    tool_problems: list[str] = field(default_factory=list)
    # The runs live in this process: shared by every copy of these services (``with_tool_overrides``)
    # and, in the studio, by the services of every settings on the same store (``_session``).
    runs: RunsHere = field(default_factory=RunsHere, repr=False)
    # Posts to the admin's webhook with a signed link when steps wait or a review comes (``_webhooks``).
    notifier: Notifier | None = field(default=None, repr=False)

    @property
    def store(self) -> PlanStore:
        """The plan store, opened on first use: most commands never touch it, and SQLAlchemy
        is slow to import."""
        if self._store is None:
            from core.storage import PlanStore  # here, not at the top: see the docstring

            self._store = PlanStore(self.settings.store_path)
        return self._store

    @property
    def planner(self) -> Planner:
        """The configured planner; raises ``PlannerError`` saying why there is none."""
        if self._planner is None:
            raise PlannerError(self._planner_problem or "no planner is configured")
        return self._planner

    @property
    def planner_name(self) -> str:
        return getattr(self._planner, "name", self.settings.planner)

    def with_tool_overrides(self, overrides: Mapping[str, ToolOverride]) -> Services:
        """These services with the tools read through ``overrides`` (``ToolRegistry.with_overrides``):
        the planner, its manual and the pages see the overridden descriptions; the store, the
        executor and the validator are shared (the tools run and check as before)."""
        registry = self.registry.with_overrides(overrides)
        planner, problem = _make_planner(self.settings, registry)
        return replace(self, registry=registry, _planner=planner, _planner_problem=problem)


def _make_planner(settings: Settings, registry: ToolRegistry) -> tuple[Planner | None, str | None]:
    # A planner that cannot be built (no model configured, say) must not stop the studio from
    # opening: saved plans, editing and running still work, and the reason is shown on "Plan".
    try:
        return make_planner(settings, registry), None
    except PlanStudioError as exc:
        return None, str(exc)


def build_services(settings: Settings, registry: ToolRegistry | None = None,
                   store: PlanStore | None = None, runs: RunsHere | None = None) -> Services:
    """Everything the studio and the CLI need, built from ``settings``.

    ``registry`` replaces the installed tools (tests pass their own); ``store`` shares an open
    store instead of opening the settings' database again, and ``runs`` the registry of the
    runs live on it.
    """
    problems: list[str] = []
    # Before any tool or store writes there: plans, runs and reviews are the user's alone, also
    # in a folder an older version made readable by others.
    private_folder(settings.data_dir)
    if registry is None:
        registry, problems = load_tools(settings)
    planner, problem = _make_planner(settings, registry)
    services = Services(
        settings=settings,
        registry=registry,
        executor=Executor(registry, synthesizer=make_synthesizer(settings), limits=_run_limits(settings)),
        validator=Validator(registry),
        _planner=planner,
        _planner_problem=problem,
        _store=store,
        tool_problems=problems,
        runs=runs if runs is not None else RunsHere(),
        notifier=Notifier(settings),
    )
    notifier = services.notifier
    # The runs of a store are told to the newest services made over it (the studio makes one per settings).
    services.runs.on_held = lambda run: notifier.steps_waiting(services.registry, run)
    return services


def _run_limits(settings: Settings) -> RunLimits:
    """The user's limits, and whether a writing step waits for a person (the studio asks)."""
    return RunLimits.from_settings(settings).model_copy(update={"approve_writes": settings.approve_writes})

"""What the studio and the CLI work with: settings, tools, store, executor, planner, and the
registry of the runs this process drives (``_runs_here``).

``build_services`` makes them from settings. It needs no Streamlit, and this module does not
import it, so the command line starts without loading the web app (``_session`` is the
studio's cached way in).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from core import (Executor, Grant, PlannerError, PlanStudioError, Policy, PolicyError, RunLimits, Settings, ToolOverride,
                  ToolRegistry, Validator, make_synthesizer, private_folder)
from core.planners import Planner, make_planner
from core.policy import DEFAULT_POLICY, check_against, load_policy
from tools import load_tools

from ._runs_here import RunsHere
from ._webhooks import Notifier

if TYPE_CHECKING:  # pragma: no cover
    from core.storage import PlanStore

__all__ = ["Services", "build_services", "policy_file", "policy_for"]


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
    # Why the policy file is not in force (it does not read, or names arguments no tool has): the
    # default policy is, until Settings saves one that reads (``_policy``).
    policy_problem: str | None = None
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


def policy_file(settings: Settings) -> Path:
    """Where the policy is kept: the file set (``PLAN_STUDIO_POLICY``), else ``policy.toml`` in
    the data folder (where Settings saves one)."""
    return settings.policy_path or settings.data_dir / "policy.toml"


def policy_for(settings: Settings, registry: ToolRegistry) -> tuple[Policy, str | None]:
    """The policy ``settings`` name, checked against ``registry``'s tools, and None; or the
    default policy and why the file could not be used."""
    path = settings.policy_path
    if path is None:
        return DEFAULT_POLICY, None
    try:
        policy = load_policy(path)
        check_against(policy, registry)
        return policy, None
    except PolicyError as exc:
        return DEFAULT_POLICY, f"{path}: {exc}"


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
    policy, policy_problem = policy_for(settings, registry)
    services = Services(
        settings=settings,
        registry=registry,
        executor=Executor(registry, synthesizer=make_synthesizer(settings), limits=_run_limits(settings, policy)),
        validator=Validator(registry),
        _planner=planner,
        _planner_problem=problem,
        _store=store,
        tool_problems=problems,
        policy_problem=policy_problem,
        runs=runs if runs is not None else RunsHere(),
        notifier=Notifier(settings),
    )
    services.executor.grants = _StoreGrants(services)
    notifier = services.notifier
    # The runs of a store are told to the newest services made over it (the studio makes one per settings).
    services.runs.on_held = lambda run: notifier.steps_waiting(services.registry, run)
    return services


class _StoreGrants:
    """The store's grants for the services' executor, the store opened only when a step asks."""

    def __init__(self, services: Services) -> None:
        self._services = services

    def letting_pass(self, run_id: str, tool: str, arguments_hash: str) -> Grant | None:
        return self._services.store.grants.letting_pass(run_id, tool, arguments_hash)


def _run_limits(settings: Settings, policy: Policy) -> RunLimits:
    """The user's limits, the policy, and whether a step it asks about waits for a person (the
    studio asks)."""
    return RunLimits.from_settings(settings).model_copy(update={"approve_writes": settings.approve_writes,
                                                               "policy": policy})

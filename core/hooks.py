"""Every way to extend Plan Studio, in one list: the hooks a plugin may implement.

A plugin is a module (or any object) with functions named after these hooks, each marked
``@hookimpl``; it takes only the arguments it needs. Plugins are found through the
``plan_studio`` entry point group (each entry point names a module of hooks), and the built-ins
go through the same hooks: the formats (``core.formats._plugin``), the embedded and LLM planners
(``core.planners._plugin``), the traces (``core.traces._plugin``) and the demo tool groups
(``tools._plugin``). The older
``plan_studio.tools`` group (each entry point one ``register(registry, settings)`` function)
still works: each is taken as a plugin giving one tool group.

What a plugin adds (the studio asks whenever it needs them)::

    tool_groups()    {name: register}      tool groups; ``register(registry, settings)``
    tool_words()     {group: ToolWords}    what a group's words mean to the embedded planner
    plan_formats()   [PlanFormat, ...]     formats plans are read from and written to
    plan_checks()    [PlanCheck, ...]      whole-plan checks every validation runs
    planners()       [PlannerSpec, ...]    planners the ``planner`` setting may name

What a plugin may observe (told as it happens, on the thread doing it; a hook that raises is
logged once, naming the plugin, and the run or the page goes on)::

    plan_created(plan, goal, planner, started_at)
                                           a planner returned a plan (a new goal or a re-plan)
    plan_failed(goal, planner, error, started_at)
                                           a planner could not make one (``error`` says why)
    plan_approved(plan, review_id)         the Plan page's Approve, or a review approved
    step_about_to_run(run, step_id, attempt, arguments)
                                           before each call of a step's tool
    step_done(run, step_id)                a step left ``running``: ``run.steps[step_id]``
                                           holds its status, result or error
    run_done(run, reason)                  a pass of the run ended: "finished", or why it
                                           stopped ("paused", "cancel", "abandoned", "held")
    step_decided(run, step_id, decision)   a person decided on a waiting step (kept with the
                                           run): ``decision`` is theirs, ``run.steps[step_id]``
                                           says whether it settled the step
    review_decided(review, actor)          ``actor`` approved or rejected a review

The step and run hooks are a ``RunRecorder`` (``ObservingRecorder``) every ``Executor`` has
beside its own, so every run is observed the same way: the page's, the CLI's, the Python API's,
the review API's and a durable run's.

pluggy (pytest's and datasette's plugin library) keeps the list and calls the hooks; an
observing hook is called plugin by plugin (``notify``), so one that raises cannot stop the
others. The plugin manager is the one registry of extensions in the process, made on first use;
``register`` and ``unregister`` change it (a test's plugin, ``core.formats.register_format``).
Beside it this module keeps only what follows from it: the "add" hooks' answers until the
plugins change, the plugins that could not be loaded, and the (plugin, hook) pairs already
logged as failing.
"""

from __future__ import annotations

import importlib
import logging
import threading
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Callable, Iterable

import pluggy

__all__ = ["hookimpl", "hookspec", "ENTRY_POINT_GROUP", "TOOLS_ENTRY_POINT_GROUP", "plugin_manager", "register", "unregister",
           "load_entry_points", "load_problems", "tool_groups", "tool_words", "plan_formats", "plan_checks", "planners", "notify",
           "ObservingRecorder", "OBSERVING_RECORDER"]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "plan_studio"
TOOLS_ENTRY_POINT_GROUP = "plan_studio.tools"  # the older group: one tool group per entry point
hookspec = pluggy.HookspecMarker("plan_studio")
hookimpl = pluggy.HookimplMarker("plan_studio")
# Core's own plugins, by module name: core's rooms import this module, not the other way round.
DEFAULT_PLUGINS = ("core.formats._plugin", "core.planners._plugin", "core.traces._plugin")


class HookSpecs:
    """The hooks, with what each is given and returns (see the module docstring)."""

    @hookspec
    def tool_groups(self) -> dict[str, Any]:
        """Tool groups by name: each a ``register(registry, settings)`` function, or its
        ``"module:function"`` name (loaded when the group is). Built-in groups are asked first,
        and a name taken already is refused."""

    @hookspec
    def tool_words(self) -> dict[str, Any]:
        """``ToolWords`` by tool group name: the embedded planner reads them for a registry
        that holds that group."""

    @hookspec
    def plan_formats(self) -> list[Any]:
        """``PlanFormat`` values; a later plugin's format replaces an earlier one of its name."""

    @hookspec
    def plan_checks(self) -> list[Any]:
        """Whole-plan checks (``PlanCheck``: a plan to the ``Problem`` values it finds)."""

    @hookspec
    def planners(self) -> list[Any]:
        """``PlannerSpec`` values (``core.planners``): a name the ``planner`` setting may hold,
        a label, and what makes the planner."""

    @hookspec
    def plan_created(self, plan: Any, goal: str, planner: str, started_at: Any) -> None:
        """A planner (named ``planner``) returned ``plan`` for ``goal`` (or for feedback); it
        was asked at ``started_at`` (an aware datetime)."""

    @hookspec
    def plan_failed(self, goal: str, planner: str, error: BaseException, started_at: Any) -> None:
        """A planner asked at ``started_at`` raised ``error`` instead of a plan for ``goal``."""

    @hookspec
    def plan_approved(self, plan: Any, review_id: str | None) -> None:
        """``plan`` was approved: on the Plan page (``review_id`` None) or as a review's answer."""

    @hookspec
    def step_about_to_run(self, run: Any, step_id: str, attempt: Any, arguments: dict[str, Any]) -> None:
        """The tool of ``step_id`` is about to be called with ``arguments``."""

    @hookspec
    def step_done(self, run: Any, step_id: str) -> None:
        """``step_id`` left running (or was skipped, waits for a person, or was rejected)."""

    @hookspec
    def run_done(self, run: Any, reason: str) -> None:
        """A pass of ``run`` ended: ``"finished"`` or the reason it stopped."""

    @hookspec
    def step_decided(self, run: Any, step_id: str, decision: Any) -> None:
        """A person's ``decision`` (``StepDecision``) on waiting ``step_id`` of ``run`` was kept;
        it settled the step when ``run.steps[step_id].decision is decision``."""

    @hookspec
    def review_decided(self, review: Any, actor: Any) -> None:
        """``actor`` decided ``review`` (``review.status`` says how); it is kept."""


class _PluginManager(pluggy.PluginManager):
    """pluggy's manager, forgetting what was collected whenever the plugins change."""

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        try:
            return super().register(plugin, name)
        finally:
            _collected.clear()

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        try:
            return super().unregister(plugin, name)
        finally:
            _collected.clear()


_lock = threading.RLock()
_manager: _PluginManager | None = None
_ready = False
_collected: dict[str, Any] = {}  # each "add" hook's answer, until the plugins change
_problems: list[str] = []  # plugins that could not be loaded, one line each
_failed: set[tuple[str, str]] = set()  # (plugin, hook) that raised: logged once


def plugin_manager() -> pluggy.PluginManager:
    """The plugin manager, with core's plugins and every installed one (loaded on first use)."""
    global _manager, _ready
    if _ready:
        return _manager  # type: ignore[return-value]
    with _lock:  # other threads wait; this one (a plugin importing code that asks) gets it as it is
        if _manager is None:
            _manager = _PluginManager("plan_studio")
            _manager.add_hookspecs(HookSpecs)
            try:
                for module in DEFAULT_PLUGINS:
                    _manager.register(importlib.import_module(module), module)
                _load_entry_points(_manager)
            finally:
                _ready = True
        return _manager


def register(plugin: Any, name: str | None = None) -> str | None:
    """Add ``plugin`` (a module or object with ``@hookimpl`` functions); a no-op if it is in."""
    manager = plugin_manager()
    if manager.is_registered(plugin) or (name is not None and manager.has_plugin(name)):
        return name
    return manager.register(plugin, name)


def unregister(name: str) -> None:
    """Remove the plugin registered as ``name``, if there is one."""
    manager = plugin_manager()
    if manager.has_plugin(name):
        manager.unregister(name=name)


def load_entry_points() -> None:
    """Register the plugins installed since the plugin manager was made (a package installed
    while the process runs; tests install theirs)."""
    manager = plugin_manager()
    with _lock:
        _load_entry_points(manager)  # type: ignore[arg-type]


def load_problems() -> list[str]:
    """One line per installed plugin that could not be loaded (the others load regardless)."""
    plugin_manager()
    return list(_problems)


def _load_entry_points(manager: _PluginManager) -> None:
    problems = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if manager.has_plugin(ep.name):
            continue
        try:
            plugin = ep.load()
            if not manager.is_registered(plugin):
                manager.register(plugin, ep.name)
        except Exception as exc:  # a broken plugin is one problem line; the studio still starts
            problems.append(f"plugin {ep.name!r} from {ep.value!r} cannot be loaded: {exc}")
            if problems[-1] not in _problems:
                log.warning("%s", problems[-1])
    _problems[:] = problems
    for ep in entry_points(group=TOOLS_ENTRY_POINT_GROUP):
        name = f"{TOOLS_ENTRY_POINT_GROUP}:{ep.name}"
        if not manager.has_plugin(name):
            manager.register(_ToolGroupEntryPoint(ep), name)


class _ToolGroupEntryPoint:
    """A ``plan_studio.tools`` entry point: a plugin giving that one tool group."""

    def __init__(self, ep: EntryPoint) -> None:
        self.ep = ep

    @hookimpl
    def tool_groups(self) -> dict[str, Any]:
        return {self.ep.name: self.ep.value}


def _answers(hook: str) -> list[tuple[str, Any]]:
    """(plugin name, answer) of every implementation of ``hook``, in the order pluggy calls them
    (``tryfirst`` ones first, then the last registered first)."""
    caller = getattr(plugin_manager().hook, hook)
    return [(impl.plugin_name, impl.function()) for impl in reversed(caller.get_hookimpls())]


def _collect(hook: str, build: Callable[[list[tuple[str, Any]]], Any]) -> Any:
    with _lock:
        if hook not in _collected:
            _collected[hook] = build(_answers(hook))
        return _collected[hook]


def tool_groups() -> list[tuple[str, Any, str]]:
    """(group name, register or its "module:function" name, plugin) in the order asked: the
    first of a name wins, the caller says why the others are refused."""
    return _collect("tool_groups", lambda answers: [(group, target, plugin) for plugin, found in answers
                                                    for group, target in (found or {}).items()])


def tool_words() -> dict[str, Any]:
    """Every tool group's words by group (a later plugin's replace an earlier one's)."""
    return _collect("tool_words", lambda answers: _by_key(
        (group, words) for _plugin, found in reversed(answers) for group, words in (found or {}).items()))


def plan_formats() -> dict[str, Any]:
    """The formats by name, core's first; a later plugin's replaces one of the same name."""
    return _collect("plan_formats", lambda answers: _by_key(
        (fmt.name, fmt) for _plugin, found in reversed(answers) for fmt in found or ()))


def plan_checks() -> tuple[Any, ...]:
    """Every whole-plan check: those plugins give, and those the formats bring."""
    formats = plan_formats()
    return _collect("plan_checks", lambda answers: (
        *(check for _plugin, found in reversed(answers) for check in found or ()),
        *(check for fmt in formats.values() for check in fmt.checks)))


def planners() -> dict[str, Any]:
    """The planners by name, core's first; a later plugin's replaces one of the same name."""
    return _collect("planners", lambda answers: _by_key(
        (spec.name, spec) for _plugin, found in reversed(answers) for spec in found or ()))


def _by_key(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        found[key] = value
    return found


def notify(hook: str, **kwargs: Any) -> None:
    """Tell every plugin observing ``hook``; one that raises is logged (once) and skipped."""
    for impl in getattr(plugin_manager().hook, hook).get_hookimpls():
        try:
            impl.function(*[kwargs[name] for name in impl.argnames])
        except Exception:  # an observer never breaks what it observes
            if (impl.plugin_name, hook) not in _failed:
                _failed.add((impl.plugin_name, hook))
                log.exception("plugin %r failed in its %s hook (logged once; it is skipped and the "
                              "studio goes on)", impl.plugin_name, hook)


class ObservingRecorder:
    """The run recorder that tells plugins of each step and of the end of each pass."""

    def run_started(self, run: Any) -> None:
        pass

    def step_started(self, run: Any, step_id: str, attempt: Any, arguments: dict[str, Any]) -> None:
        notify("step_about_to_run", run=run, step_id=step_id, attempt=attempt, arguments=arguments)

    def step_ended(self, run: Any, step_id: str) -> None:
        notify("step_done", run=run, step_id=step_id)

    def run_stopped(self, run: Any, reason: str) -> None:
        notify("run_done", run=run, reason=reason)

    def run_finished(self, run: Any) -> None:
        notify("run_done", run=run, reason="finished")


OBSERVING_RECORDER = ObservingRecorder()

"""Rehearsal runs: a plan run through the one executor with every tool call answered by a stand-in.

A rehearsal is a run whose registry is a stand-in toolset (``StandInTools``): each tool has the
real one's definition (name, schemas, effects) and none of its runner. The executor is unchanged:
it resolves each step's references and the one argument check (``Tool.call``) checks the
arguments against the tool's input schema, then the stand-in answers with the step's stand-in
result, chosen before the run starts (``stand_ins``), first that fits:

- "pin": a result the user pinned for the step;
- "recording": the step's result in a real earlier run of the plan the user picked (steps are
  matched by id; only a step that succeeded there counts);
- "schema": a value made from the tool's output schema (``core.schema._sample``), when it
  declares one;
- "none": null, for a read-only tool with none of them.

A rehearsal refuses to start (``RehearsalRefused``, naming them) while a step of a tool that may
write (not read-only by its declared effects) has no pinned or recorded result: a made-up result
of a write is exactly what a rehearsal must not pretend. Nobody is asked to approve a step: no
tool is called, so nothing is approved; the rehearsal's grants say so on each step that would
have waited ("rule:rehearsal"), and a rule that denies a step still denies it.

The stand-in does not know which step calls it: a tool call carries only the tool's name and its
arguments. It is told each step's start as a ``RunRecorder`` (before the call, on the driving
thread, with the resolved arguments) and answers a call by the step that started with that tool
and those arguments; two steps in flight with the same tool and arguments get their results in
the order they started.

    run = rehearse(plan, registry, recording=earlier_run, pins={"s3": {"deleted": True}})
    run.rehearsal.sources   # {"s1": "recording", "s2": "schema", "s3": "pin"}
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .._errors import RehearsalRefused, ToolExecutionError
from ..plan._model import Plan
from ..schema._sample import sample_of
from ..tooling._registry import Tool, ToolRegistry
from ._engine import NO_RECORDER, NoRecorder, Recorders, RunRecorder
from ._events import Event
from ._executor import Executor
from ._model import Grant, Rehearsal, Run, StepAttempt
from ._policy import RunLimits
from ._status import StepStatus

__all__ = ["REHEARSAL_RULE", "StandIn", "StandInTools", "rehearse", "stand_ins", "start_rehearsal"]

REHEARSAL_RULE = "rehearsal"  # the rule named on a step a rehearsal let pass without asking


@dataclass(frozen=True)
class StandIn:
    """A step's stand-in result and where it came from ("pin", "recording", "schema", "none")."""

    source: str
    result: Any


def stand_ins(plan: Plan, registry: ToolRegistry, *, recording: Run | None = None,
              pins: Mapping[str, Any] | None = None) -> dict[str, StandIn]:
    """Each step's stand-in result, by step id (see the module's docstring); ``RehearsalRefused``
    for a pin of a step the plan lacks, a recording that is itself a rehearsal or of another plan's
    steps only, or steps of tools that may write with no pinned or recorded result."""
    pins = dict(pins or {})
    ids = {step.id for step in plan.steps}
    strays = sorted(set(pins) - ids)
    if strays:
        raise RehearsalRefused(f"pinned results name steps the plan does not have: {', '.join(strays)}", strays)
    recorded: dict[str, Any] = {}
    if recording is not None:
        if recording.rehearsal is not None:
            raise RehearsalRefused(f"run {recording.id} is a rehearsal itself: pick a real run to take results from")
        recorded = {sid: state.result for sid, state in recording.steps.items()
                    if sid in ids and state.status == StepStatus.succeeded}
    chosen: dict[str, StandIn] = {}
    samples: dict[str, Any] = {}
    lacking: list[str] = []
    for step in plan.steps:
        tool = registry.get(step.tool) if step.tool in registry else None
        if step.id in pins:
            chosen[step.id] = StandIn("pin", pins[step.id])
        elif step.id in recorded:
            chosen[step.id] = StandIn("recording", recorded[step.id])
        elif tool is None or tool.effects.may_write:
            lacking.append(step.id)
        elif tool.definition.output_schema:
            if tool.name not in samples:  # one per tool: each call gets a copy of it (``answer``)
                samples[tool.name] = sample_of(tool.definition.output_schema)
            chosen[step.id] = StandIn("schema", samples[tool.name])
        else:
            chosen[step.id] = StandIn("none", None)
    if lacking:
        named = ", ".join(plan.label(sid) for sid in lacking)
        raise RehearsalRefused(
            f"{len(lacking)} step{'s' if len(lacking) != 1 else ''} of tools that may write "
            f"{'have' if len(lacking) != 1 else 'has'} no recorded or pinned result: {named}. Pin a result for "
            f"{'each' if len(lacking) != 1 else 'it'}, or pick a real run that recorded {'them' if len(lacking) != 1 else 'it'}.",
            lacking)
    return chosen


def _key(tool: str, arguments: Any) -> tuple[str, str]:
    try:
        return tool, json.dumps(arguments, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return tool, repr(arguments)


class StandInTools(NoRecorder):
    """The stand-in toolset of one rehearsal: ``registry`` holds a stand-in of every tool of the
    real registry (its definition, group and words; never its runner), and this object is told
    each step's start as a ``RunRecorder`` so a call is answered with its step's stand-in.
    ``answered`` lists the (step id, tool) of every call answered, in order."""

    def __init__(self, registry: ToolRegistry, chosen: Mapping[str, StandIn] | None = None) -> None:
        self.chosen = dict(chosen or {})  # each step's stand-in, by step id
        self._lock = threading.Lock()  # calls are answered on pool threads
        self._started: dict[tuple[str, str], deque[str]] = {}
        self.answered: list[tuple[str, str]] = []
        self.registry = ToolRegistry()
        for tool in registry:
            # No timeout or retry of the real tool's: a stand-in answers at once, and once.
            self.registry.add(Tool(tool.definition, _StandInRunner(self, tool), group=tool.group))
        self.registry.add_words_of(registry)

    def answer(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The stand-in result of the step that started with ``tool`` and ``arguments`` (a copy:
        the run must not share it with a pin or a recording)."""
        with self._lock:
            waiting = self._started.get(_key(tool, arguments))
            if not waiting:
                raise ToolExecutionError(f"{tool} failed: the rehearsal has no step started with these arguments")
            step_id = waiting.popleft()
            self.answered.append((step_id, tool))
        return copy.deepcopy(self.chosen[step_id].result)

    # -- told as a recorder (of the rest, nothing) ---------------------------------------------
    def step_started(self, run: Run, step_id: str, attempt: StepAttempt, arguments: dict[str, Any]) -> None:
        tool = run.plan.steps[run.plan.index_of(step_id)].tool
        with self._lock:
            self._started.setdefault(_key(tool, arguments), deque()).append(step_id)


class _StandInRunner:
    """What runs a stand-in tool: the stand-in's answer. A Python tool's quick check of its
    arguments (``admits``: its pydantic model, never its function) is kept, so the arguments are
    checked exactly as a real call checks them, at the same cost; other tools take the one check."""

    def __init__(self, tools: StandInTools, tool: Tool) -> None:
        self._tools = tools
        admits = getattr(tool.runner, "admits", None)
        if admits is not None:
            self.admits = admits

    def __call__(self, name: str, arguments: dict[str, Any]) -> Any:
        return self._tools.answer(name, arguments)


class _RehearsalGrants:
    """Lets every step that would wait for a person pass in a rehearsal (no tool is called, so
    nothing is approved), its decision naming the rehearsal, not a person."""

    def letting_pass(self, run_id: str, tool: str, arguments_hash: str) -> Grant | None:
        return Grant(tool=tool, scope="run", run_id=run_id, granted_by=f"rule:{REHEARSAL_RULE}",
                     granted_by_name="rehearsal: no tool is called", granted_by_kind="rule", channel="rehearsal",
                     created_at=dt.datetime.now(dt.timezone.utc))


def start_rehearsal(plan: Plan, registry: ToolRegistry, *, recording: Run | None = None,
                    pins: Mapping[str, Any] | None = None, limits: RunLimits | None = None,
                    recorder: RunRecorder = NO_RECORDER) -> tuple[Executor, Run, StandInTools]:
    """A rehearsal of ``plan`` ready to be driven (``executor.drive(run)``), marked ``run.rehearsal``:
    its executor holds only stand-ins of ``registry``'s tools. Raises ``PlanInvalid`` for a plan
    with errors and ``RehearsalRefused`` as ``stand_ins`` does. ``recorder`` is told every change."""
    tools = StandInTools(registry)
    held_to = RunLimits.chosen(limits, approve_writes=False)
    # The stand-ins are told of a step before its call, then the caller's recorder.
    executor = Executor(tools.registry, limits=held_to, grants=_RehearsalGrants(),
                        recorder=Recorders((tools, recorder)))
    run = executor.start(plan)  # checked first (every step's tool is there), as any run
    chosen = tools.chosen = stand_ins(plan, registry, recording=recording, pins=pins)
    run.rehearsal = Rehearsal(recording=recording.id if recording is not None else None,
                              sources={sid: stand_in.source for sid, stand_in in chosen.items()})
    return executor, run, tools


def rehearse(plan: Plan, registry: ToolRegistry, *, recording: Run | None = None,
             pins: Mapping[str, Any] | None = None, limits: RunLimits | None = None,
             recorder: RunRecorder = NO_RECORDER, on_event: Callable[[Event], object] | None = None) -> Run:
    """Rehearse the whole of ``plan`` (``start_rehearsal``, then driven to its end); the run it made."""
    executor, run, _tools = start_rehearsal(plan, registry, recording=recording, pins=pins, limits=limits,
                                            recorder=recorder)
    executor.drive(run, on_event=on_event)
    return run

"""Rehearsals: the plan run with every tool call answered by a stand-in (``core.start_rehearsal``),
for the page, the command line and a Python caller.

A step's stand-in is the result the user pinned for it (``pin_result``: JSON, kept on the bench
by step id), else its result in the real run the user chose to take results from
(``choose_recording``), else a sample of its tool's output schema. A rehearsal is stored with
the plan version it rehearsed, as every run, marked (``Run.rehearsal``); it is carried out on a
thread of its own (``RehearsalRun``: a ``BackgroundRun`` over the stand-in toolset, never a
durable run, whose resume would reach the real tools) and collected as every run is
(``collect_finished_run``).

    out = request_rehearsal(bench, services)          # refused, naming them, while a write has no result
    run = rehearse_plan(services, plan, pins={...}, recording_id="ab12", message="plan-studio run --rehearse")
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from core import (BackgroundRun, Event, Plan, RehearsalRefused, Role, Run, VersionConflict, start_rehearsal)
from core.schema._untrusted import bounded_validator, check_against, schema_problem

from ._bench import Outcome, Workbench
from ._editing import refused_during_run, refused_for_json
from ._messages import attempt
from ._roles import refused_for_role
from ._saving import hold_conflict, store_current
from ._services import Services

__all__ = ["RehearsalRun", "choose_recording", "is_rehearsing", "pin_result", "read_pins", "recordings",
           "rehearse_plan", "request_rehearsal", "run_export", "unpin_result"]

_MAX_PIN_CHARS = 1_000_000  # a pinned result's JSON text, as the page's text area takes it


class RehearsalRun(BackgroundRun):
    """A rehearsal carried out on a thread of its own: a ``BackgroundRun`` whose executor holds
    only stand-ins of the tools (the page says "rehearsing" while it goes)."""


def is_rehearsing(bench: Workbench) -> bool:
    """Whether the run going on is a rehearsal."""
    return isinstance(bench.worker, RehearsalRun)


def pin_result(bench: Workbench, services: Services, step_id: str, text: str) -> Outcome:
    """Pin ``text`` (JSON) as the result of ``step_id`` in the next rehearsals; an empty text
    unpins it. A pin that does not fit the tool's output schema is kept, with a warning: the
    rehearsal then shows what the steps after it make of it."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "pin a step's result"):
        return out
    plan = bench.plan
    if plan is None or step_id not in {step.id for step in plan.steps}:
        return out.say("error", f"Not pinned: the plan has no step {step_id!r}.")
    if not text.strip():
        return unpin_result(bench, step_id)
    if len(text) > _MAX_PIN_CHARS:
        return out.say("error", f"Not pinned: the result is {len(text):,} characters; at most {_MAX_PIN_CHARS:,}.")
    label = plan.label(step_id)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return out.say("error", f"Not pinned: the result of {label} is not JSON: {exc.msg} "
                                f"(line {exc.lineno}, column {exc.colno}).")
    except RecursionError:
        return out.say("error", f"Not pinned: the result of {label} nests too deeply.")
    bench.pins = {**bench.pins, step_id: value}  # a new dict: a tab's draft sees it changed
    out.done().say("success", f"Pinned the result of {label}: rehearsals take it instead of calling the tool.")
    misfit = _misfit(services, plan, step_id, value)
    if misfit:
        out.say("warning", f"The pinned result does not fit the output schema of {plan.step(step_id).tool}: "
                           f"{misfit}. Kept: the rehearsal shows what the steps after it make of it.")
    return out


def _misfit(services: Services, plan: Plan, step_id: str, value: Any) -> str | None:
    tool_name = plan.step(step_id).tool
    if tool_name not in services.registry:
        return None
    schema = services.registry.get(tool_name).definition.output_schema
    if not schema or schema_problem(schema) is not None:
        return None
    errors, _cut = check_against(bounded_validator(schema), value)
    if not errors:
        return None
    first = errors[0]
    where = "/".join(str(p) for p in first.absolute_path)
    return (f"at {where}: " if where else "") + first.message[:200]


def unpin_result(bench: Workbench, step_id: str) -> Outcome:
    """The step's result is no longer pinned (a recording or a sample stands in again)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "unpin a step's result"):
        return out
    bench.pins = {k: v for k, v in bench.pins.items() if k != step_id}
    return out.done()


def recordings(bench: Workbench, services: Services) -> list[Any]:
    """The real runs of the saved plan a rehearsal can take results from (``RunSummary``, newest
    first): every version's, since steps are matched by id."""
    saved = bench.saved
    if saved is None:
        return []
    return [r for r in services.store.list_runs(saved.plan_id) if not r.rehearsal and r.counts.get("succeeded")]


def choose_recording(bench: Workbench, run_id: str | None) -> Outcome:
    """Take the recorded results of run ``run_id`` (None: none) in the next rehearsals."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "choose a recording"):
        return out
    bench.recording = run_id or None
    return out.done()


def _recording(services: Services, run_id: str | None) -> Run | None:
    return None if not run_id else services.store.load_run(run_id)


def request_rehearsal(bench: Workbench, services: Services) -> Outcome:
    """Rehearse the plan shown, all of it, in the background: no tool is called. Refused
    (naming them) while a step of a tool that may write has no pinned or recorded result. The
    plan need not be approved (nothing runs); it is saved as a version first, when it has
    edits not saved, so the rehearsal is stored with the version it rehearsed."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "rehearse the plan"):
        return out
    bench.confirm_new_run = None
    if refused_during_run(bench, out, "start a rehearsal") or refused_for_json(bench, out, "rehearse the plan"):
        return out
    plan = bench.plan
    if plan is None or not plan.steps:
        return out.say("error", "Nothing to rehearse: the plan has no steps.")
    with attempt(out, "rehearse the plan"):
        try:
            recording = _recording(services, bench.recording)
            ids = {step.id for step in plan.steps}  # pins of steps deleted since are left aside
            pins = {step_id: value for step_id, value in bench.pins.items() if step_id in ids}
            executor, run, _tools = start_rehearsal(plan, services.registry, recording=recording, pins=pins,
                                                    limits=services.executor.limits)
        except RehearsalRefused as refused:
            return out.say("error", f"Not rehearsed: {refused}")
        try:
            before = bench.saved
            saved = store_current(bench, services.store, plan, message="saved to rehearse it")
        except VersionConflict as conflict:
            hold_conflict(bench, services.store, conflict, save_message="saved to rehearse it")
            return out.say("warning", "Not rehearsed: a rehearsal is stored with its version, and saving yours was "
                                      "refused (another tab saved a newer version first; see below).")
        if saved is not before:
            out.say("info", f"Saved as version {saved.version} to rehearse it: a rehearsal is stored with its version.")
        bench.worker = RehearsalRun(executor, run, "all").start()
        bench.run = None  # the worker's until collected (``collect_finished_run`` stores it)
        out.done()
    return out


def read_pins(text: str, where: str) -> dict[str, Any]:
    """Pinned results from a file's text: a JSON object of step id → result. ``RehearsalRefused``
    saying what is wrong (``where``: the file's name)."""
    try:
        pins = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RehearsalRefused(f"{where} is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise RehearsalRefused(f"{where} nests too deeply") from None
    if not isinstance(pins, dict):
        raise RehearsalRefused(f"{where} must hold a JSON object of step id to pinned result, not "
                               f"{type(pins).__name__}")
    return pins


def rehearse_plan(services: Services, plan: Plan, *, pins: Mapping[str, Any] | None = None,
                  recording_id: str | None = None, message: str = "",
                  on_event: Callable[[Event], object] | None = None) -> Run:
    """Rehearse ``plan`` here, to its end (the command line's ``run --rehearse``), and store it
    with the plan: as a version of the recorded run's plan when results are taken from one, else
    as a new plan. Raises ``RehearsalRefused``, ``PlanInvalid``, ``NotFound`` (no such run)."""
    recording = _recording(services, recording_id)
    executor, run, _tools = start_rehearsal(plan, services.registry, recording=recording, pins=pins,
                                            limits=services.executor.limits)
    plan_id = services.store.records.where(recording.id)[0] if recording is not None else None
    saved = services.store.save_plan(plan, plan_id=plan_id, message=message)
    executor.drive(run, on_event=on_event)
    services.store.save_run(run, plan_id=saved.plan_id, version=saved.version)
    return run


def run_export(run: Run) -> str:
    """The run as JSON for a download: each step's status, arguments and result; a rehearsal says
    so at the top and on every step (where its result came from)."""
    steps = []
    for step in run.plan.steps:
        state = run.steps[step.id]
        entry: dict[str, Any] = {"id": step.id, "tool": step.tool, "status": state.status.value,
                                 "arguments": state.arguments, "result": state.result, "error": state.error}
        if run.rehearsal is not None:
            entry["rehearsal"] = run.rehearsal.sources.get(step.id, "none")
        steps.append(entry)
    data: dict[str, Any] = {"run": run.id, "goal": run.plan.goal, "status": run.status}
    if run.rehearsal is not None:
        data["rehearsal"] = {"recording": run.rehearsal.recording,
                             "note": "a rehearsal: no tool was called; each result stood in"}
    data["steps"] = steps
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)

"""Retry the failed steps of a run, or rerun it from a chosen step, whoever asks (the Plan page,
the review API): first a preview of what runs again, then a new run linked to its parent.

A rerun is a new run of the parent's plan, seeded with the recorded result of every step that
does not depend on the chosen one (``core.durable.rerun_choice``: the plan's graph, not the
list order). The preview names each step by label (``core.step_label``), says whether it runs
again or keeps its result, and marks the steps whose tool may write (the tool's ``Effects``):
running them again repeats their effect. Confirmed, the new run is stored and linked before
it starts, opened in a workbench and carried out by the workbench's run-all
(``_running.request_run``), the one path every run of the studio takes.

Refused, with a notice naming what and nothing changed: a run still going, a step that is not
in the run, nothing failed to retry, a plan that no longer fits the tools loaded now, a preview
whose plan changed since.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from core import GOING, LOCAL_ACTOR, Actor, Effects, NotFound, Plan, Role, Run, VersionConflict, require, step_label

from . import _carrying
from ._changes import describe_changes
from ._services import Services
from ._roles import refused_for_role
from ._bench import Outcome, Workbench
from ._durable_handle import durable_runs
from ._editing import approve, execution_fingerprint, fingerprint, refused_during_run, refused_for_json
from ._messages import attempt
from ._rerun_preview import RerunPreview, RerunStep
from ._running import request_run
from ._saving import hold_conflict, open_saved_run, save_run_if_plan_saved, store_current

if TYPE_CHECKING:  # SQLAlchemy and DBOS are slow to import; the CLI starts without them
    from core.durable import RerunChoice
    from core.storage import PlanStore

__all__ = ["RerunPreview", "RerunStep", "ask_rerun", "cancel_rerun", "confirm_rerun", "join_rerun",
           "preview_rerun", "rerun_lineage", "rerun_of", "start_rerun"]



def _what(retry: bool) -> str:
    return "retry the failed steps" if retry else "rerun the run"


def _still_going(run: Run) -> str | None:
    going = [step_label(run.plan.step(s)) for s, state in run.steps.items() if state.status in GOING]
    if run.finished or not going:
        return None
    return (f"run {run.id} is still going ({', '.join(going[:3])} {'is' if len(going) == 1 else 'are'} "
            "running or waiting for a person): let it end, stop it, or resume it first")


def _choice(services: Services, parent: Run, from_step: str | None, retry: bool) -> RerunChoice:
    from core.durable import rerun_choice

    return rerun_choice(parent, from_step=None if retry else from_step, retry=retry, registry=services.registry)


def _preview(services: Services, parent: Run, choice: RerunChoice, retry: bool) -> RerunPreview:
    steps = []
    for step in parent.plan.steps:
        effects = services.registry.get(step.tool).effects if step.tool in services.registry else Effects()
        steps.append(RerunStep(step.id, step_label(step), step.id not in choice.reused, effects.label,
                               effects.may_write))
    start = choice.start or ""
    return RerunPreview(parent.id, retry, choice.start, step_label(parent.plan.step(start)) if start else "",
                        tuple(steps), parent.plan)


def _checked(out: Outcome, services: Services, parent: Run, from_step: str | None,
             retry: bool) -> RerunPreview | None:
    """The preview of the rerun of ``parent``, or None with the reason as a notice."""
    refusal = _still_going(parent)
    if refusal is not None:
        out.say("error", f"Could not {_what(retry)}: {refusal}.")
        return None
    with attempt(out, _what(retry)):
        return _preview(services, parent, _choice(services, parent, from_step, retry), retry)
    return None


def preview_rerun(services: Services, run_id: str, *, from_step: str | None = None,
                  retry: bool = False, actor: Actor = LOCAL_ACTOR) -> tuple[Outcome, RerunPreview | None]:
    """What the rerun of stored run ``run_id`` would run again (a dry run); nothing changes."""
    require(actor, Role.viewer, "preview a rerun")
    out = Outcome()
    with attempt(out, _what(retry)):
        preview = _checked(out, services, services.store.load_run(run_id), from_step, retry)
        if preview is not None:
            out.done()
        return out, preview
    return out, None


def ask_rerun(bench: Workbench, services: Services, *, from_step: str | None = None,
              retry: bool = False) -> Outcome:
    """The Plan page's first click: the preview of a rerun of the run it shows (``bench.rerun``)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "rerun a run"):
        return out
    bench.rerun = None
    run = bench.run
    if run is None or refused_during_run(bench, out, _what(retry)) or refused_for_json(bench, out, _what(retry)):
        return out
    bench.rerun = _checked(out, services, run, from_step, retry)
    return out.done() if bench.rerun is not None else out


def cancel_rerun(bench: Workbench) -> Outcome:
    bench.rerun = None
    return Outcome().done()


def confirm_rerun(bench: Workbench, services: Services) -> Outcome:
    """The user saw the preview and confirmed: the rerun starts, in this workbench."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "rerun a run"):
        return out
    shown, run = bench.rerun, bench.run
    if shown is None or refused_during_run(bench, out, _what(shown.retry)) \
            or refused_for_json(bench, out, _what(shown.retry)):
        return out
    if run is None or run.id != shown.parent_id or bench.plan is None \
            or execution_fingerprint(bench.plan) != execution_fingerprint(shown.plan):
        bench.rerun = None
        changes = describe_changes(shown.plan, bench.plan) if bench.plan is not None else "no plan is open"
        return out.say("error", f"Could not {_what(shown.retry)}: the plan changed since the preview "
                                f"({changes}). Approve and run it, or open run {shown.parent_id} again.")
    _carry_out(bench, services, run, shown, out)
    return out


def _carry_out(bench: Workbench, services: Services, parent: Run, shown: RerunPreview, out: Outcome) -> None:
    """Store the new run linked to ``parent`` (the run ``bench`` shows) and run it with run-all."""
    what = _what(shown.retry)
    misfit = services.validator.misfit(parent.plan)
    if misfit is not None:
        out.say("error", f"Could not {what}: {misfit}.")
        return
    with attempt(out, what):
        choice = _choice(services, parent, shown.start, shown.retry)
        preview = _preview(services, parent, choice, shown.retry)
        if [s.step_id for s in preview.again] != [s.step_id for s in shown.again]:
            bench.rerun = preview
            out.say("warning", "What runs again changed since the preview (the tools changed): look again, "
                               "then confirm.")
            return
        store = services.store
        saved = _parent_stored(bench, store, parent, out)
        if saved is None:
            return
        # What the editor holds: the parent's plan, its notes as now; stored, seeded and linked
        # as every durable rerun is.
        run = _carrying.new_rerun(durable_runs(services), bench.plan, plan_id=saved[0], version=saved[1], parent_id=parent.id,
                        start=choice.start, reused=choice.reused)
        bench.run, bench.run_saved, bench.rerun = run, run.id, None
        # Confirming a preview of exactly what runs is approving it.
        out.notices.extend(approve(bench, services.validator).notices)
        going = request_run(bench, services, "all")
        out.notices.extend(going.notices)
        if going.ok:
            out.done().say("success", f"Run {run.id} started: a rerun of run {parent.id} from {preview.start_label}; "
                                      f"{len(preview.again)} step(s) run again, "
                                      f"{len(preview.steps) - len(preview.again)} keep their results.")


def _parent_stored(bench: Workbench, store: PlanStore, parent: Run, out: Outcome) -> tuple[str, int] | None:
    """The plan version the parent run is stored with; stored now (as Save would) when it is not:
    a rerun links to a stored run. None, with the conflict held, when another tab saved first."""
    plan = bench.plan
    saved = bench.saved
    if plan is not None and not (saved is not None and saved.fingerprint == fingerprint(plan)
                                 and bench.run_saved == parent.id):
        try:
            saved = store_current(bench, store, plan, message=f"saved to rerun run {parent.id}")
        except VersionConflict as conflict:
            hold_conflict(bench, store, conflict, save_message=f"saved to rerun run {parent.id}")
            out.say("error", "Could not rerun the run: another tab saved this plan since; see above.")
            return None
        save_run_if_plan_saved(bench, store, parent)
        out.say("info", f"Saved the plan as version {saved.version} with run {parent.id}: a rerun links to a stored run.")
    return (saved.plan_id, saved.version) if saved is not None else None


def start_rerun(services: Services, run_id: str, *, from_step: str | None = None,
                retry: bool = False, actor: Actor = LOCAL_ACTOR) -> tuple[Outcome, RerunPreview | None]:
    """Retry or rerun stored run ``run_id`` with no page to show it: it is opened in a workbench
    of its own and run with run-all in the background, in the store as it goes, registered with
    the runs live here like every run of the studio (``join_rerun`` waits for it)."""
    require(actor, Role.reviewer, "rerun a run")
    out, shown = preview_rerun(services, run_id, from_step=from_step, retry=retry, actor=actor)
    if shown is None:
        return out, None
    bench = Workbench(actor=actor)
    with attempt(out, _what(retry)):
        plan_id, version = services.store.records.where(run_id)
        opened = open_saved_run(bench, services, plan_id, version, run_id)
        if not opened.ok:
            out.notices.extend(opened.notices)
            out.ok = False
            return out, None
        bench.rerun = shown
        started = confirm_rerun(bench, services)
        out.notices, out.ok = started.notices, started.ok
        if started.ok and bench.run_saved is not None:  # the new run's id, stored before it started
            return out, replace(shown, run_id=bench.run_saved)
    return out, None


def join_rerun(services: Services, run_id: str, timeout: float | None = None) -> bool:
    """Wait until rerun ``run_id`` started by ``start_rerun`` ended (it is in the store as it
    goes); True when it has (or is not one this process carries out)."""
    return services.runs.join(run_id, timeout)


def rerun_lineage(store: PlanStore, run_id: str, plan: Plan) -> str | None:
    """``rerun of run X from <step label>`` for a stored rerun of ``plan``, else None."""
    try:
        parent_id, start = store.records.lineage(run_id)
    except NotFound:
        return None
    if parent_id is None:
        return None
    ids = {s.id for s in plan.steps}
    return rerun_of(parent_id, step_label(plan.step(start)) if start in ids else start)


def rerun_of(parent_id: str, start_label: str | None) -> str:
    """How a rerun names where it came from: ``rerun of run X from <step label>``."""
    return f"rerun of run {parent_id}" + (f" from {start_label}" if start_label else "")

"""Storing and opening: save (a new version when the plan changed), save on top of a version
another tab saved first, open a stored plan or run, delete a stored plan.

A new version must follow the one this editor opened; when another tab saved in between, the
store raises ``VersionConflict``, nothing is written, and the workbench holds a ``Conflict``
saying what that version changed, for the user to reload it or save on top of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import Role, FINISHED, RESUMABLE, Plan, Run, StepStatus, VersionConflict

from ._changes import describe_changes
from ._roles import refused_for_role
from ._bench import Conflict, Outcome, SavedRef, Workbench
from ._doubts import cut_off
from ._live_runs import watch_if_going
from ._editing import fingerprint, refused_during_run, refused_for_json, run_in_progress, show_plan
from ._messages import attempt, failure_message
from ._services import Services

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import PlanStore

__all__ = ["delete_saved_plan", "hold_conflict", "open_saved_plan", "open_saved_run", "refresh_run", "save", "save_on_top",
           "save_run_if_plan_saved", "settled_run", "show_stored_run", "store_current"]


def store_current(bench: Workbench, store: PlanStore, plan: Plan, *, message: str,
                  over: int | None = None) -> SavedRef:
    """The stored version holding ``plan``: the saved one if unchanged, else a new version
    following the one opened (or ``over``, a newer one the user chose to save on top of)."""
    saved = bench.saved
    if saved is not None and saved.fingerprint == fingerprint(plan):
        return saved
    expected = None if saved is None else (saved.version if over is None else over)
    version = store.save_plan(plan, plan_id=saved.plan_id if saved else None, message=message,
                              expected_version=expected)
    bench.saved = SavedRef(version.plan_id, version.version, fingerprint(plan))
    bench.conflict = None
    return bench.saved


def hold_conflict(bench: Workbench, store: PlanStore, conflict: VersionConflict, *, save_message: str) -> None:
    """Keep what the refused save needs to tell the user and to be made again on request."""
    changes = describe_changes(store.load_plan(conflict.plan_id, conflict.expected),
                               store.load_plan(conflict.plan_id, conflict.latest))
    bench.conflict = Conflict(plan_id=conflict.plan_id, opened=conflict.expected, latest=conflict.latest,
                              saved_at=conflict.saved_at, message=conflict.message, changes=changes,
                              save_message=save_message)


def save_run_if_plan_saved(bench: Workbench, store: PlanStore, run: Run) -> None:
    saved = bench.saved
    if saved is None or saved.fingerprint != fingerprint(run.plan):
        return
    store.save_run(run, plan_id=saved.plan_id, version=saved.version)
    bench.run_saved = run.id


def save(bench: Workbench, store: PlanStore, message: str = "") -> Outcome:
    """Store the plan (a new version when it changed since the last save) and its run.
    ``ok`` when the plan is stored (the version note is used up)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "save the plan"):
        return out
    plan = bench.plan
    if plan is None or refused_for_json(bench, out, "save the plan"):
        return out
    with attempt(out, "save the plan"):
        saved = bench.saved
        if saved is not None and saved.fingerprint == fingerprint(plan):
            out.say("info", f"No changes since version {saved.version}.")
        else:
            try:
                saved = store_current(bench, store, plan, message=message.strip())
            except VersionConflict as conflict:
                hold_conflict(bench, store, conflict, save_message=message.strip())
                return out
            out.done().say("success", f"Saved as version {saved.version}.")
        if run_in_progress(bench):
            out.say("info", "The run in progress is stored as it goes, with the version it runs.")
        elif bench.run is not None and bench.run.started_at is not None:
            save_run_if_plan_saved(bench, store, bench.run)
    return out


def save_on_top(bench: Workbench, store: PlanStore) -> Outcome:
    """Save this editor's plan as the version after the newer one; its message says so."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "save the plan"):
        return out
    conflict, plan = bench.conflict, bench.plan
    if conflict is None or plan is None or refused_for_json(bench, out, "save the plan"):
        return out
    note = f"saved over version {conflict.latest} (edited from version {conflict.opened})"
    message = f"{conflict.save_message} · {note}" if conflict.save_message else note
    with attempt(out, "save the plan"):
        try:
            saved = store_current(bench, store, plan, message=message, over=conflict.latest)
        except VersionConflict as newer:  # yet another save came in meanwhile
            hold_conflict(bench, store, newer, save_message=conflict.save_message)
            return out
        out.done().say("success", f"Saved as version {saved.version}, after version {conflict.latest}; "
                                  f"its changes are not in yours ({conflict.changes}).")
    return out


# A stored run is not running, whatever its steps said when it was stored: the studio stopped or
# the tab went away mid-step. Such steps show, and run again, as interrupted.
_CUT_OFF = "interrupted: the run stopped while this step was running; it runs again on the next run"


def settled_run(run: Run) -> Run:
    """``run`` as it stands when nothing carries it out: steps left running become interrupted."""
    cut = {step_id: state.model_copy(update={"status": StepStatus.interrupted, "error": _CUT_OFF, "worker": None})
           for step_id, state in run.steps.items() if state.status == StepStatus.running}
    return run.model_copy(update={"steps": {**run.steps, **cut}}) if cut else run


def show_stored_run(bench: Workbench, services: Services, run: Run) -> None:
    """Show ``run`` as stored; or, while a handle of this process carries it out (another tab's,
    the review API's), watch it live (``watch_if_going``): never a stale copy to run again."""
    if watch_if_going(bench, services, run.id):
        return
    bench.run = settled_run(run)
    bench.run_saved = run.id


def refresh_run(bench: Workbench, services: Services) -> bool:
    """Read the run shown again from the store (it moved there: a step decided over the API, in
    MCP or another tab; carried on or resumed elsewhere). True when the bench changed."""
    run = bench.run
    if run is None or bench.worker is not None:
        return False
    try:
        stored = services.store.load_run(run.id)
    except Exception:  # gone (its plan deleted), or the store away: the page keeps what it shows
        return False
    if not stored.steps.keys() == run.steps.keys():
        return False  # another plan's run under that id: never shown over this one
    # The plan as this page has it (locks and notes it set since); what runs is the same.
    show_stored_run(bench, services, stored.model_copy(update={"plan": run.plan}))
    return True


def _run_state(services: Services, run: Run) -> str:
    done = sum(s.status in FINISHED for s in run.steps.values())
    if run.finished:
        return run.status
    # Cancelled and waiting are what the run says of itself; one marked running or interrupted
    # was cut off unless this studio runs it (``cut_off``), else it paused between steps.
    said = run.status == StepStatus.cancelled or run.status == StepStatus.waiting
    status = run.status if said else "running" if services.runs.going(run.id) else \
        "interrupted" if cut_off(services, run) else "paused"
    return f"{status}, {done} of {len(run.steps)} steps done"


def open_saved_plan(bench: Workbench, services: Services, plan_id: str, version: int | None = None) -> Outcome:
    """Put a stored plan (its latest version by default) in the editor, with the latest run
    stored for that version."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.viewer, "open a plan"):
        return out
    store = services.store
    if refused_during_run(bench, out, "open another plan"):
        return out
    with attempt(out, "open the plan"):
        if version is None:
            version = max(v.version for v in store.versions(plan_id))
        plan = store.load_plan(plan_id, version)
        run_id = store.latest_run_id(plan_id, version)
        run = None if run_id is None else store.load_run(run_id)
        show_plan(bench, plan, saved=SavedRef(plan_id, version, fingerprint(plan)))
        said = f"Opened version {version} of this plan."
        if run is not None:
            show_stored_run(bench, services, run)
            said += f" Its latest run is shown below ({_run_state(services, run)})."
        out.done().say("info", said)
    return out


def open_saved_run(bench: Workbench, services: Services, plan_id: str, version: int, run_id: str) -> Outcome:
    """Put a stored run with the plan version it ran in the editor."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.viewer, "open a run"):
        return out
    store = services.store
    if refused_during_run(bench, out, "open another run"):
        return out
    with attempt(out, "open the run"):
        plan = store.load_plan(plan_id, version)
        run = store.load_run(run_id)
        show_plan(bench, plan, saved=SavedRef(plan_id, version, fingerprint(plan)))
        show_stored_run(bench, services, run)
        state = _run_state(services, run)
        shown = state.split(",")[0]
        then = (" Resume (beside the graph) carries it on; approve the plan to run it again." if shown in RESUMABLE else
                " It waits for a decision: approve or reject its waiting step beside the graph." if shown == "waiting" else
                " It is running: watch it here." if bench.worker is not None else
                " Approve the plan to run it again" + (" or carry on." if not run.finished else "."))
        out.done().say("info", f"Opened run {run.id} ({state}) of version {version} of this plan.{then}")
    return out


def delete_saved_plan(bench: Workbench, store: PlanStore, plan_id: str, goal: str) -> Outcome:
    """Delete a stored plan with its versions and runs; a copy open in the editor stays, unsaved.
    ``ok`` with the editor's notices cleared when the editor held it ("Opened version N" would
    now be wrong)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "delete a plan"):
        return out
    try:
        store.delete_plan(plan_id)
    except Exception as exc:
        return out.say("error", failure_message("delete the plan", exc))
    out.say("success", f"Deleted “{goal or plan_id}” with its versions and runs.").done()
    if bench.saved is not None and bench.saved.plan_id == plan_id:
        bench.saved = None
        bench.run_saved = None
        bench.notices = []
    return out

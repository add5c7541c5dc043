"""Running the approved plan: the next step or the rest of it, stop, cancel, and collecting a run
that ended. Every run is durable (``_durable_handle``): in the store, with the plan version it
runs, from its first step (a plan with edits not saved is saved as a new version first).

While a run handle (``_run_handle``) is alive it owns the run (``bench.run`` is None); the
workbench takes the run back when the handle is done. Clicks that would change the plan or
start another run meanwhile are refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping

from core import PlanStudioError, Role, NotFound, Plan, Run, RunKind, VersionConflict, waiting_steps

from ._services import Services
from ._roles import refused_for_role
from ._bench import Outcome, Workbench
from ._editing import execution_fingerprint, fingerprint, is_approved, refused_during_run, refused_for_json
from ._messages import attempt, failure_message
from ._doubts import undecided_doubts
from ._policy import policy_refusal
from ._durable_handle import DurableRunHandle, durable_runs
from ._saving import hold_conflict, save_run_if_plan_saved, settled_run, store_current

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import PlanStore

__all__ = ["NOT_APPROVED", "cancel_new_run", "cancel_run", "collect_finished_run", "confirm_new_run", "hand_over",
           "request_run", "stop_run"]

NOT_APPROVED = "Could not run the plan: approve this version of it first."


def _same_run(run: Run, plan: Plan) -> bool:
    return execution_fingerprint(run.plan) == execution_fingerprint(plan)


def _start(bench: Workbench, services: Services, plan: Plan, kind: RunKind, out: Outcome) -> Outcome:
    denied = policy_refusal(services, plan)  # the policy may have changed since the plan was approved
    if denied is not None:
        return out.say("error", f"Not run: {denied}")
    with attempt(out, "run the plan"):
        run = bench.run
        # A rehearsal is never gone on with: its results stood in, and real tools would build on them.
        if run is None or run.finished or run.rehearsal is not None or not _same_run(run, plan):
            run = _new_stored_run(bench, services, plan, out)
            if run is None:
                return out
        else:
            run = _stored_to_go_on(bench, services, run)
            blocked = undecided_doubts(services, run)
            if blocked:
                return out.say("warning", f"Could not run the plan: {blocked} Choose for each under *Resume* below.")
        hand_over(bench, services, run, kind)
        out.done()
    return out


def hand_over(bench: Workbench, services: Services, run: Run, kind: RunKind,
              decisions: Mapping[str, str] | None = None) -> None:
    """Carry out ``run`` (as stored: read or made by the caller, not read again) further on a
    durable run handle; the handle owns it until collected."""
    # Registered with the runs live here: no decision on it from elsewhere while it is driven.
    bench.worker = DurableRunHandle(services, run, kind, decisions).start()
    bench.run = None  # the handle's until collected
    bench.run_saved = run.id


def _new_stored_run(bench: Workbench, services: Services, plan: Plan, out: Outcome) -> Run | None:
    """A new durable run of ``plan``, in the store before its first step; the plan saved as a
    version first when it has edits not saved (a run is stored with the version it ran)."""
    before = bench.saved
    try:
        saved = store_current(bench, services.store, plan, message="saved to run it")
    except VersionConflict as conflict:
        hold_conflict(bench, services.store, conflict, save_message="saved to run it")
        out.say("warning", "Could not run the plan: a run is stored with its version, and saving yours was refused "
                           "(another tab saved a newer version first; see below).")
        return None
    if saved is not before:
        out.say("info", f"Saved as version {saved.version} to run it: a run is stored with the version it ran.")
    # As put in the store: carried out from this very object, not read back (``go_on(run=...)``).
    return durable_runs(services).new_run(plan, plan_id=saved.plan_id, version=saved.version,
                                          submitted_by=_submitter(bench, services))


def _submitter(bench: Workbench, services: Services) -> str | None:
    """Who submitted the plan the bench holds, for its run: the agent of the review it came from
    (they may not approve their own steps, and the policy's ``agent`` rules match them)."""
    if bench.review_id is None:
        return None
    try:
        return services.store.get_review(bench.review_id).submitted_by
    except PlanStudioError:  # the review is gone: nobody to keep from approving
        return None


def _stored_to_go_on(bench: Workbench, services: Services, run: Run) -> Run:
    """The run to go on with, as stored. A person's decisions on waiting steps made on the page
    (or over the review API) are written to it first; a run only in the page (kept in a tab's
    draft by an older release) is stored with its version first."""
    store = services.store
    try:
        stored = store.load_run(run.id)
    except NotFound:
        saved = store_current(bench, store, run.plan, message="saved to run it")
        store.save_run(settled_run(run), plan_id=saved.plan_id, version=saved.version)
        return store.load_run(run.id)
    for step_id in waiting_steps(stored):
        state = run.steps.get(step_id)
        if state is not None and state.decision is not None:
            store.records.step_finished(run.id, state)
    return store.load_run(run.id)


def request_run(bench: Workbench, services: Services, kind: RunKind) -> Outcome:
    """Start running the next step or the rest of the approved plan in the background.

    A paused or interrupted run carries on. After a finished run, "Run next step" asks first
    (``bench.confirm_new_run``): the user may expect a next step where there is none, and a new
    run replaces the results on the page; "Run all" is plainly a new run."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "run the plan"):
        return out
    bench.confirm_new_run = None
    if refused_during_run(bench, out, "start another run") or refused_for_json(bench, out, "run the plan"):
        return out
    plan = bench.plan
    if plan is None or not is_approved(bench, plan):
        return out.say("error", NOT_APPROVED)
    run = bench.run
    if kind == "next" and run is not None and run.finished and _same_run(run, plan):
        bench.confirm_new_run = kind
        return out
    return _start(bench, services, plan, kind, out)


def confirm_new_run(bench: Workbench, services: Services) -> Outcome:
    """The user confirmed: start the new run that "Run next step" asked about."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "run the plan"):
        return out
    kind, plan = bench.confirm_new_run, bench.plan
    bench.confirm_new_run = None
    if kind is None or plan is None or refused_during_run(bench, out, "start another run") \
            or refused_for_json(bench, out, "run the plan"):
        return out
    if not is_approved(bench, plan):
        return out.say("error", NOT_APPROVED)
    return _start(bench, services, plan, kind, out)


def cancel_new_run(bench: Workbench) -> Outcome:
    bench.confirm_new_run = None
    return Outcome().done()


def stop_run(bench: Workbench) -> Outcome:
    """Stop the run in progress after its current step; the steps not started stay pending."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "stop a run"):
        return out
    if bench.worker is not None:
        bench.worker.stop()
    return Outcome().done()


def cancel_run(bench: Workbench) -> Outcome:
    """End the run in progress now: its running steps are cancelled (or abandoned) and recorded
    ``cancelled``; what finished stays, the rest stays pending."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "cancel a run"):
        return out
    worker = bench.worker
    if worker is None or not worker.alive:
        return Outcome().say("info", "No run is going on.")
    worker.cancel()
    return Outcome().done()


def collect_finished_run(bench: Workbench, store: Callable[[], PlanStore]) -> Outcome:
    """Take the run back from a handle that is done: it is the run shown, and it is stored with
    the plan when the plan is saved. ``ok`` when a run was collected. ``store`` is asked for
    only when the run is to be stored. (A run left waiting for a person is held for a decision
    by the registry of runs live here when its handle ends.)"""
    out = Outcome()
    worker = bench.worker
    if worker is None or worker.alive:
        return out
    bench.worker = None
    run = worker.run
    bench.run = run
    out.done()
    if worker.error is not None:
        out.say("error", failure_message("finish the run", worker.error))
    with attempt(out, "save the run"):
        saved = bench.saved
        # A durable run is in the store already (bench.run_saved); only another kind is stored here.
        if bench.run_saved != run.id and saved is not None and saved.fingerprint == fingerprint(run.plan):
            save_run_if_plan_saved(bench, store(), run)
    out.ok = True
    return out

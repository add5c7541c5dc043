"""Running the approved plan: the next step or the rest of it, stop, cancel, and collecting a run
that ended. Every run is durable (``_durable_handle``): in the store, with the plan version it
runs, from its first step (a plan with edits not saved is saved as a new version first).

While a run handle (``_run_handle``) is alive it owns the run (``bench.run`` is None); the
workbench takes the run back when the handle is done. Clicks that would change the plan or
start another run meanwhile are refused. A new run of a stored version while another run of it
is not over (running here or elsewhere, waiting for a person: ``_live_runs``) is asked about
first (``bench.live_run``), from whatever tab or interface: never started silently beside it.
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
from ._live_runs import live_runs
from ._saving import hold_conflict, save_run_if_plan_saved, settled_run, store_current

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import PlanStore

__all__ = ["NOT_APPROVED", "cancel_new_run", "cancel_run", "collect_finished_run", "confirm_new_run", "go_on_with_run",
           "hand_over", "request_run", "stop_run"]

NOT_APPROVED = "Could not run the plan: approve this version of it first."


def _same_run(run: Run, plan: Plan) -> bool:
    return execution_fingerprint(run.plan) == execution_fingerprint(plan)


def _start(bench: Workbench, services: Services, plan: Plan, kind: RunKind, out: Outcome, *,
           beside_live: bool = False) -> Outcome:
    denied = policy_refusal(services, plan)  # the policy may have changed since the plan was approved
    if denied is not None:
        return out.say("error", f"Not run: {denied}")
    with attempt(out, "run the plan"):
        run = bench.run
        # A rehearsal is never gone on with: its results stood in, and real tools would build on them.
        if run is None or run.finished or run.rehearsal is not None or not _same_run(run, plan):
            if not beside_live and _asks_beside_live(bench, services, plan, kind, out):
                return out
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


def _asks_beside_live(bench: Workbench, services: Services, plan: Plan, kind: RunKind, out: Outcome) -> bool:
    """True, with the question held (``bench.live_run``), when a new run of ``plan`` would run
    beside a run of the same stored version that is not over. A plan with edits not saved is a
    new version: nothing runs it yet."""
    saved = bench.saved
    if saved is None or saved.fingerprint != fingerprint(plan):
        return False
    live = live_runs(services, saved.plan_id, saved.version)
    if not live:
        return False
    bench.confirm_new_run, bench.live_run = kind, live[0]
    out.say("warning", f"Not started: run {live[0].id} of version {saved.version} is {live[0].state}. Open it, or "
                       "confirm to start a second run beside it (its tools are called again).")
    return True


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

    A paused or interrupted run carries on. After a finished run, either button asks first
    (``bench.confirm_new_run``): the user may expect a next step where there is none, and a new
    run replaces the results on the page (after a rehearsal it starts, asking nothing). A new run beside a live run of the same version asks
    too (``bench.live_run``)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "run the plan"):
        return out
    bench.confirm_new_run, bench.live_run = None, None
    if refused_during_run(bench, out, "start another run") or refused_for_json(bench, out, "run the plan"):
        return out
    plan = bench.plan
    if plan is None or not is_approved(bench, plan):
        return out.say("error", NOT_APPROVED)
    run = bench.run
    # After a rehearsal the real run is what the button is for: nothing real is replaced.
    if run is not None and run.finished and run.rehearsal is None and _same_run(run, plan):
        bench.confirm_new_run = kind
        return out
    return _start(bench, services, plan, kind, out)


def confirm_new_run(bench: Workbench, services: Services) -> Outcome:
    """The user confirmed: start the new run that "Run next step" asked about."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "run the plan"):
        return out
    kind, plan, beside = bench.confirm_new_run, bench.plan, bench.live_run is not None
    bench.confirm_new_run, bench.live_run = None, None
    if kind is None or plan is None or refused_during_run(bench, out, "start another run") \
            or refused_for_json(bench, out, "run the plan"):
        return out
    if not is_approved(bench, plan):
        return out.say("error", NOT_APPROVED)
    return _start(bench, services, plan, kind, out, beside_live=beside)


def cancel_new_run(bench: Workbench) -> Outcome:
    bench.confirm_new_run, bench.live_run = None, None
    return Outcome().done()


def go_on_with_run(bench: Workbench, services: Services) -> Outcome:
    """Carry on the run shown once its waiting steps were decided on the page. It was approved
    when it started, and each waiting step by its decision, so it goes on with its own plan
    whatever the Plan JSON holds meanwhile: an edit kept there stays kept, and is said to be."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "run the plan"):
        return out
    run = bench.run
    if run is None or run.finished or refused_during_run(bench, out, "go on with the run"):
        return out
    denied = policy_refusal(services, run.plan)  # the policy may have changed since the run started
    if denied is not None:
        return out.say("error", f"Not run: {denied}")
    with attempt(out, "go on with the run"):
        stored = _stored_to_go_on(bench, services, run)
        blocked = undecided_doubts(services, stored)
        if blocked:
            return out.say("warning", f"Could not go on with the run: {blocked} Choose for each under *Resume* below.")
        hand_over(bench, services, stored, "all")
        out.done()
        if bench.json_pending or bench.json_error is not None:
            out.say("info", "Your edit stays in the Plan JSON, not applied: the run goes on with the plan it started. "
                            "Apply or discard it below the Plan JSON once the run has ended.")
    return out


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

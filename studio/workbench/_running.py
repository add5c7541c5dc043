"""Running the approved plan: the next step or the rest of it, stop, and collecting a run that
finished (stored with the plan when the plan is saved).

While a run handle (``_run_handle``) is alive it owns the run (``bench.run`` is None); the
workbench takes the run back when the handle is done. Clicks that would change the plan or
start another run meanwhile are refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from core import Plan, Run, RunKind

from .._services import Services
from ._bench import Outcome, Workbench
from ._held_runs import hold_if_waiting, let_go
from ._editing import execution_fingerprint, fingerprint, is_approved, refused_during_run, refused_for_json
from ._messages import attempt, failure_message
from ._run_handle import start_run
from ._saving import save_run_if_plan_saved

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import PlanStore

__all__ = ["NOT_APPROVED", "cancel_new_run", "collect_finished_run", "confirm_new_run", "request_run", "stop_run"]

NOT_APPROVED = "Could not run the plan: approve this version of it first."


def _same_run(run: Run, plan: Plan) -> bool:
    return execution_fingerprint(run.plan) == execution_fingerprint(plan)


def _start(bench: Workbench, services: Services, plan: Plan, kind: RunKind, out: Outcome) -> Outcome:
    with attempt(out, "run the plan"):
        run = bench.run
        if run is None or run.finished or not _same_run(run, plan):
            run = services.executor.start(plan)
            bench.run_saved = None
        let_go(run.id)  # no decision on it from elsewhere while a worker drives it
        bench.run = None  # the handle's until collected
        bench.worker = start_run(services.executor, run, kind)
        out.done()
    return out


def request_run(bench: Workbench, services: Services, kind: RunKind) -> Outcome:
    """Start running the next step or the rest of the approved plan in the background.

    A paused or interrupted run carries on. After a finished run, "Run next step" asks first
    (``bench.confirm_new_run``): the user may expect a next step where there is none, and a new
    run replaces the results on the page; "Run all" is plainly a new run."""
    out = Outcome()
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
    if bench.worker is not None:
        bench.worker.stop()
    return Outcome().done()


def collect_finished_run(bench: Workbench, store: Callable[[], PlanStore]) -> Outcome:
    """Take the run back from a handle that is done: it is the run shown, and it is stored with
    the plan when the plan is saved. ``ok`` when a run was collected. ``store`` is asked for
    only when the run is to be stored."""
    out = Outcome()
    worker = bench.worker
    if worker is None or worker.alive:
        return out
    bench.worker = None
    run = worker.run
    bench.run = run
    hold_if_waiting(run)
    out.done()
    if worker.error is not None:
        out.say("error", failure_message("finish the run", worker.error))
    with attempt(out, "save the run"):
        saved = bench.saved
        if saved is not None and saved.fingerprint == fingerprint(run.plan):
            save_run_if_plan_saved(bench, store(), run)
    out.ok = True
    return out

"""Resume and cancel a stored run by its id, for the review API (``studio.api._run_control_api``):
the same checks as the Plan page's Resume and Cancel, on a run no page holds.

A resumed run goes on in this studio on a handle of its own, in the store as it goes, registered
with the runs live here (``Services.runs``); when it stops with steps waiting for a person, it is
kept there for a decision like the page's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from core import LOCAL_ACTOR, Actor, NotFound, Role, require

from ._services import Services
from ._bench import Outcome
from ._doubts import doubts, undecided_doubts
from ._durable_handle import DurableRunHandle, durable_runs
from ._handing import resume_on_worker, who_carries
from ._messages import attempt
from ._resuming import ResumeLine, run_again_lines

__all__ = ["RunControl", "cancel_stored_run", "join_stored_run", "resume_stored_run"]


@dataclass
class RunControl:
    """What a resume or cancel did: ``outcome``, whether the run exists, what runs again."""

    outcome: Outcome
    found: bool = True
    again: list[ResumeLine] = field(default_factory=list)
    nobody: bool = False  # no one can carry the run on now (its worker gone, none other running)


def resume_stored_run(services: Services, run_id: str, decisions: Mapping[str, str], *,
                      actor: Actor = LOCAL_ACTOR) -> RunControl:
    """Carry on the stored run ``run_id`` here: finished steps are not run again; ``decisions``
    answer its steps in doubt. Refused (saying why) for a finished run, one being run, or a step
    in doubt without a decision."""
    require(actor, Role.reviewer, "resume a run")
    out = Outcome()
    bad = {step: d for step, d in decisions.items() if d not in ("again", "failed")}
    if bad:
        return RunControl(out.say("error", f"A step in doubt is run 'again' or marked 'failed', not "
                                           f"{next(iter(bad.values()))!r} (step {next(iter(bad))!r})."))
    try:
        run = services.store.load_run(run_id)
    except NotFound:
        return RunControl(out.say("error", f"No run {run_id!r} in this studio's store."), found=False)
    if run.finished:
        return RunControl(out.say("error", f"Run {run_id} has finished ({run.status}): nothing to resume."))
    carrier = who_carries(services, run_id, run)
    if carrier.nobody is not None:
        return RunControl(out.say("error", f"Could not resume: {carrier.nobody}"), nobody=True)
    if carrier.worker:  # its worker waits for the decisions on its steps in doubt
        try:
            worker = resume_on_worker(services, run, carrier, decisions)
        except ValueError as exc:
            return RunControl(out.say("error", f"Could not resume: {exc}"))
        return RunControl(out.done().say("success", f"Run {run_id} goes on in {worker} with your decisions."))
    with services.runs.lock:
        if durable_runs(services).being_run_here(run_id) or services.runs.going(run_id):
            return RunControl(out.say("error", f"Run {run_id} is being run now."))
        again = run_again_lines(services, run)
        blocked = undecided_doubts(services, run, decisions)
        if blocked:
            return RunControl(out.say("error", f"Could not resume: {blocked}"), again=again)
        with attempt(out, "resume the run"):
            DurableRunHandle(services, run, "all",
                             {s: d for s, d in decisions.items() if s in doubts(services, run)}).start()
            out.done().say("success", f"Run {run_id} resumed: {len(again)} step{'s' if len(again) != 1 else ''} "
                                      "to run; finished steps keep their results.")
    return RunControl(out, again=again)


def join_stored_run(services: Services, run_id: str, timeout: float | None = None) -> bool:
    """Wait (at most ``timeout`` seconds) until run ``run_id``, carried on here (a resume or a
    decision over the API, a rerun, the page's), has stopped; True when it has, or none goes on."""
    return services.runs.join(run_id, timeout)


def cancel_stored_run(services: Services, run_id: str, *, actor: Actor = LOCAL_ACTOR) -> RunControl:
    """Cancel ``run_id`` if this studio runs it now (from the page or resumed over the API):
    its running steps are recorded ``cancelled``, everything recorded before stays."""
    require(actor, Role.reviewer, "cancel a run")
    out = Outcome()
    try:
        run = services.store.load_run(run_id)
    except NotFound:
        return RunControl(out.say("error", f"No run {run_id!r} in this studio's store."), found=False)
    if durable_runs(services).cancel(run_id):
        return RunControl(out.done().say("success", f"Run {run_id} cancelled: its running steps are marked "
                                                    "cancelled; what finished is kept."))
    return RunControl(out.say("error", f"Run {run_id} is not running here ({run.status}): nothing to cancel."))

"""Resume: carry on a run that was cut off (the studio killed mid-run, or the run cancelled),
after showing which steps run again.

``resume_view`` says what a Resume would do, from the run as stored: the steps that finished
keep their results and do not run again; the others run, those of tools that may write marked
(their effect happens again), and a step in doubt (a writing step cut off mid-call) waits for
the user's choice: run it again, or mark it failed (the CLI's ``--again`` / ``--failed``).
``resume_run`` starts it on the page; ``_run_control`` does the same for the review API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

from core import Role, FINISHED, Run

from ._services import Services
from ._roles import refused_for_role
from ._bench import Outcome, Workbench
from ._doubts import cut_off, doubts, undecided_doubts
from ._editing import execution_fingerprint, refused_during_run
from ._messages import attempt
from ._running import hand_over

if TYPE_CHECKING:
    from core.storage import RunSummary

__all__ = ["ResumeLine", "ResumeView", "listed_status", "resume_run", "resume_view", "run_again_lines"]


@dataclass(frozen=True)
class ResumeLine:
    """A step a Resume runs. ``label`` holds the plan's text: untrusted, escaped where drawn."""

    step_id: str
    label: str
    tool: str
    writes: bool  # its tool may write: its effect happens (again)
    in_doubt: bool  # cut off mid-call and may have had its effect: the user chooses

    def as_json(self) -> dict[str, object]:
        return {"step_id": self.step_id, "label": self.label, "tool": self.tool, "writes": self.writes,
                "in_doubt": self.in_doubt}


@dataclass(frozen=True)
class ResumeView:
    run_id: str
    status: str  # interrupted or cancelled
    again: list[ResumeLine]
    kept: list[str] = field(default_factory=list)  # steps that finished: not run again

    @property
    def in_doubt(self) -> list[str]:
        return [line.step_id for line in self.again if line.in_doubt]


def run_again_lines(services: Services, run: Run) -> list[ResumeLine]:
    """The steps of ``run`` that a Resume runs, in plan order."""
    from core.durable import may_repeat_named  # DBOS is slow to import; the CLI starts without it

    doubt = set(doubts(services, run))
    return [ResumeLine(step.id, run.plan.label(step.id), step.tool, not may_repeat_named(services.registry, step.tool),
                       step.id in doubt)
            for step in run.plan.steps if run.steps[step.id].status not in FINISHED]


def resume_view(bench: Workbench, services: Services) -> ResumeView | None:
    """What Resume would do with the run shown, or None when it has nothing to resume (no run,
    a run going on, finished, or only paused between steps: Run next step / Run all go on)."""
    run = bench.run
    if run is None or bench.worker is not None or not cut_off(services, run):
        return None
    return ResumeView(run.id, "cancelled" if run.status == "cancelled" else "interrupted", run_again_lines(services, run),
                      [s.id for s in run.plan.steps if run.steps[s.id].status in FINISHED])


def resume_run(bench: Workbench, services: Services, decisions: Mapping[str, str]) -> Outcome:
    """Carry on the run shown, as stored: finished steps are not run again; ``decisions``
    answer its steps in doubt (``"again"`` or ``"failed"``). It was approved when it started, so
    it goes on without a new approval, but only as the plan it ran (an edited plan is a new run)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "resume a run"):
        return out
    run = bench.run
    if refused_during_run(bench, out, "resume a run"):
        return out
    if run is None or resume_view(bench, services) is None:
        return out.say("info", "There is no interrupted run to resume.")
    if bench.plan is not None and execution_fingerprint(bench.plan) != execution_fingerprint(run.plan):
        return out.say("error", "Could not resume: the plan was edited since this run. Undo the edits to resume "
                                "it, or approve the edited plan and run it as a new run.")
    with attempt(out, "resume the run"):
        stored = services.store.load_run(run.id)
        if stored.finished:
            bench.run = stored
            return out.say("info", f"Run {run.id} finished meanwhile (resumed elsewhere).")
        blocked = undecided_doubts(services, stored, decisions)
        if blocked:
            return out.say("warning", f"Could not resume: {blocked}")
        hand_over(bench, services, stored, "all", {s: d for s, d in decisions.items() if s in doubts(services, stored)})
        out.done()
    return out


def listed_status(services: Services, run: RunSummary) -> str:
    """How a list (the Library) says where a stored run is: finished; running in this studio now;
    cut off (a step was left running or interrupted: open it to resume); cancelled; or paused
    between steps, each with how many steps are done."""
    if not run.paused:
        return run.status
    done = f"({run.steps_done} of {run.steps_total} steps done)"
    if services.runs.going(run.id):
        return f"running {done}"
    counts = run.shown_counts()
    if run.status == "cancelled" or counts.get("cancelled"):
        return f"cancelled {done}"
    if counts.get("interrupted") or run.status == "running":  # recorded running, yet nothing runs it
        return f"interrupted {done}"
    return run.shown_status

"""A person's decision on a step that waits for one: what is shown, and the one use case that
records it, whoever asks (the Plan page, the review API, the MCP server).

A run stops its pass "held" when steps wait (``core.run._approval``). Once its handle's part
ended, the run is kept by id in the registry of runs live here (``Services.runs``), so the review
API and the MCP server, in the same process, can show and decide its waiting steps; a run handed
to a worker leaves (nobody may decide on a run being driven). A decision from the page goes on with
the run at once; one from elsewhere that leaves no step waiting carries the stored run on in the
studio in the background (``_run_control``), as a resume over the API does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core import DecisionRefused, Run, ToolRegistry, arguments_hash, dump_plan, waiting_steps
from core import decide_step as record_decision

from ._audit import LOCAL_ACTOR, record_step_decision
from ._services import Services
from ._bench import Outcome, Workbench
from ._editing import refused_during_run, refused_for_json, take_edit, write_panel
from ._messages import attempt
from ._run_control import resume_stored_run
from ._running import request_run

__all__ = ["WaitingStep", "decide_step", "set_ask_first", "waiting_run", "waiting_view"]

@dataclass(frozen=True)
class WaitingStep:
    """A step waiting for a person, as an approver sees it. ``arguments`` come from tool
    results: untrusted, escaped wherever drawn."""

    step_id: str
    label: str
    tool: str
    effects: str
    reason: str
    arguments: dict[str, Any]
    arguments_hash: str

    def as_json(self) -> dict[str, Any]:
        return {"step_id": self.step_id, "label": self.label, "tool": self.tool, "effects": self.effects,
                "reason": self.reason, "arguments": self.arguments, "arguments_hash": self.arguments_hash}


def set_ask_first(bench: Workbench, step_ids: list[str]) -> Outcome:
    """Mark the steps a run must ask a person about before they run (review metadata, like a
    lock: the plan runs the same, so its approval stands)."""
    out = Outcome()
    plan = bench.plan
    if plan is None or refused_during_run(bench, out, "mark steps to ask about") \
            or refused_for_json(bench, out, "mark steps to ask about"):
        return out
    marked = set(step_ids)
    steps = [s.model_copy(update={"ask_first": s.id in marked}) for s in plan.steps]
    take_edit(bench, out, plan.model_copy(update={"steps": steps}), "mark steps to ask about")
    write_panel(bench, dump_plan(bench.plan, "native"))
    return out.done()


def waiting_view(run: Run, registry: ToolRegistry) -> list[WaitingStep]:
    out = []
    for step_id in waiting_steps(run):
        step = run.plan.steps[run.plan.index_of(step_id)]
        state = run.steps[step_id]
        effects = registry.get(step.tool).effects.label if step.tool in registry else "unknown (may write)"
        out.append(WaitingStep(step_id, run.plan.label(step_id), step.tool, effects,
                               (state.error or "").removeprefix("waiting for a person: "),
                               dict(state.arguments or {}), arguments_hash(state.arguments)))
    return out


def waiting_run(services: Services, run_id: str) -> Run | None:
    """The run ``run_id`` if it waits for a person: held here, or, after a restart of the
    studio, as stored (then held here for a decision)."""
    here = services.runs
    run = here.held(run_id)
    if run is not None or here.going(run_id):
        return run
    try:
        stored = services.store.load_run(run_id)
    except Exception:  # no such run, or a store away: nothing waits here
        return None
    if stored.finished or not waiting_steps(stored):
        return None
    here.hold_if_waiting(stored)
    return here.held(run_id)


def decide_step(services: Services, run_id: str, step_id: str, approve: bool, *, seen_hash: str | None = None,
                by: str = "", bench: Workbench | None = None) -> Outcome:
    """Approve or reject a waiting step of run ``run_id``. ``seen_hash``: the hash of the
    arguments the person was shown (a decision on others is refused). With the page's ``bench``
    holding that run, the run goes on at once."""
    out = Outcome()
    here = services.runs
    with here.lock:
        run = here.held(run_id)
        if run is None and bench is not None and bench.run is not None and bench.run.id == run_id:
            run = bench.run
        if run is None:
            return out.say("error", f"No run {run_id!r} waits for a decision here (it finished, "
                                    "is running, or belongs to a studio that restarted).")
        try:
            record_decision(run, step_id, approve, seen_hash=seen_hash, by=by)
        except DecisionRefused as exc:
            return out.say("error", f"Could not decide: {exc}")
        if not waiting_steps(run):
            here.let_go(run_id)
        # Kept with the stored run too: the decision outlives a restart of the studio.
        with attempt(out, "keep the decision with the run"):
            services.store.records.step_finished(run_id, run.steps[step_id])
        with attempt(out, "put the decision on record"):
            record_step_decision(services, run, step_id, actor=LOCAL_ACTOR, channel=by)
    label = run.plan.label(step_id)
    out.done()
    if bench is not None and bench.run is run:
        with attempt(out, "go on with the run"):
            going = request_run(bench, services, "all")
            out.notices.extend(going.notices)
        out.say("success", f"{'Approved' if approve else 'Rejected'} {label}; the run goes on.")
    elif any(run.steps[s].decision is None for s in waiting_steps(run)):  # approved ones wait until run
        out.say("success", f"{'Approved' if approve else 'Rejected'} {label}; the run goes on once its other "
                           "waiting steps are decided.")
    else:  # decided from elsewhere (the review API, MCP): nobody else would carry it on
        going = resume_stored_run(services, run_id, {}).outcome
        out.notices.extend(going.notices)
        if going.ok:
            out.say("success", f"{'Approved' if approve else 'Rejected'} {label}; the run goes on in the studio.")
    return out

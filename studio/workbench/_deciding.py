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
from dataclasses import field as default
from typing import Any

from core import (Actor, DecisionRefused, Forbidden, Grant, Role, Run, StepDecision, ToolRegistry, approvals_needed,
                  approvers_so_far, arguments_hash, dump_plan, effects_label, grant_passes, shown_hash,
                  waiting_steps)
from core import decide_step as record_decision, hooks

from ._agent_callbacks import tell_step_decided
from ._audit import record_step_decision
from ._services import Services
from ._roles import refused_for_role
from ._bench import Outcome, Workbench
from ._editing import refused_during_run, refused_for_json, take_edit, write_panel
from ._grants import GrantRequest, make_grant
from ._handing import Carrier, handed_over, who_carries
from ._messages import attempt
from ._run_control import resume_stored_run
from ._running import go_on_with_run

__all__ = ["DecisionOutcome", "WaitingStep", "approval_json", "decide_step", "set_ask_first", "waiting_run",
           "waiting_view"]


def approval_json(decision: StepDecision) -> dict[str, Any]:
    """One approver's record as the API and the MCP server show it."""
    return {"approved": decision.approved, "actor_id": decision.actor_id, "actor_name": decision.actor_name,
            "actor_kind": decision.actor_kind, "channel": decision.channel, "rule": decision.rule,
            "decided_at": decision.decided_at.isoformat(), "shown_hash": decision.shown_hash,
            "arguments_hash": decision.arguments_hash, "edited_arguments": decision.arguments,
            "original_arguments": decision.original_arguments, "scope": decision.scope,
            "grant_id": decision.grant_id}


@dataclass(frozen=True)
class WaitingStep:
    """A step waiting for a person, as an approver sees it. ``arguments`` come from tool
    results: untrusted, escaped wherever drawn. ``shown_hash`` binds what is shown (tool,
    arguments, effects): a decision names it. ``approvals`` so far, of ``needed``."""

    step_id: str
    label: str
    tool: str
    effects: str
    reason: str
    arguments: dict[str, Any]
    arguments_hash: str
    shown_hash: str = ""
    needed: int = 1
    approvals: tuple[StepDecision, ...] = ()
    rule: str = ""
    submitted_by: str | None = None

    @property
    def approvers(self) -> list[str]:
        """Who approved so far, by name."""
        return [a.actor_name or a.actor_id for a in self.approvals if a.approved]

    def as_json(self) -> dict[str, Any]:
        return {"step_id": self.step_id, "label": self.label, "tool": self.tool, "effects": self.effects,
                "reason": self.reason, "arguments": self.arguments, "arguments_hash": self.arguments_hash,
                "shown_hash": self.shown_hash, "approvals_needed": self.needed,
                "approvals": [approval_json(a) for a in self.approvals], "rule": self.rule,
                "submitted_by": self.submitted_by}


@dataclass
class DecisionOutcome(Outcome):
    """What a decision did; when refused, ``refusal`` says which kind (an interface answers by
    it: ``forbidden``, ``unnamed`` and ``arguments`` are the asker's to fix, ``stale``,
    ``replayed`` and ``not_waiting`` conflict with the step as it is, ``no_run``; ``nobody``: no one
    can carry the run on, its worker gone) and ``field``
    names the field at fault. ``decision``: the record kept; ``settled``: it met the count."""

    refusal: str = ""
    field: str = ""
    decision: StepDecision | None = None
    settled: bool = False
    approvals: list[StepDecision] = default(default_factory=list)
    needed: int = 1


def set_ask_first(bench: Workbench, step_ids: list[str]) -> Outcome:
    """Mark the steps a run must ask a person about before they run (review metadata, like a
    lock: the plan runs the same, so its approval stands)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "mark steps to ask about"):
        return out
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
        effects = effects_label(registry.get(step.tool) if step.tool in registry else None)
        out.append(WaitingStep(step_id, run.plan.label(step_id), step.tool, effects,
                               (state.error or "").removeprefix("waiting for a person: "),
                               dict(state.arguments or {}), arguments_hash(state.arguments),
                               shown_hash(step.tool, state.arguments, effects), approvals_needed(state),
                               tuple(approvers_so_far(state)), state.ask.rule if state.ask else "",
                               run.submitted_by))
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


def _granted_now(run: Run, grant: Grant, registry: ToolRegistry, decided: str) -> list[str]:
    """The run's other steps waiting undecided that ``grant`` lets pass, approved by it now."""
    passed = []
    for other in waiting_steps(run):
        state = run.steps[other]
        step = run.plan.steps[run.plan.index_of(other)]
        if other == decided or state.decision is not None or state.approvals or approvals_needed(state) > 1:
            continue
        if grant.lets_pass(run.id, step.tool, arguments_hash(state.arguments), grant.created_at):
            tool = registry.get(step.tool) if step.tool in registry else None
            grant_passes(run, other, grant, state.arguments, effects_label(tool))
            passed.append(other)
    return passed


def _refused(out: DecisionOutcome, refusal: str, text: str, field: str = "") -> DecisionOutcome:
    out.refusal, out.field = refusal, field
    return out.say("error", text)  # type: ignore[return-value]


def decide_step(services: Services, run_id: str, step_id: str, approve: bool, *, actor: Actor, channel: str,
                seen_hash: str, arguments: dict[str, Any] | None = None, grant: GrantRequest | None = None,
                bench: Workbench | None = None) -> DecisionOutcome:
    """``actor`` approves or rejects a waiting step of run ``run_id`` from ``channel``.

    ``seen_hash``: the ``shown_hash`` (or ``arguments_hash``) of what the actor was shown; a
    decision without it, on something else, twice by one actor, or on a step no longer waiting
    is refused (``refusal`` says which). ``arguments``: the approver's edit, checked against the
    tool's schema; the step runs with exactly those. ``grant``: approve once (default), for this
    run, or always for these arguments. A step asking for N approvers waits for N. With the
    page's ``bench`` holding that run, the run goes on at once once nothing waits undecided."""
    out = DecisionOutcome()
    grant = grant or GrantRequest()
    if not seen_hash:
        return _refused(out, "unnamed", "Could not decide: a decision must name what it decides on (the "
                                        "shown_hash given with the waiting step).", "shown_hash")
    if arguments is not None and not isinstance(arguments, dict):
        return _refused(out, "arguments", "Could not decide: edited arguments must be a JSON object.", "arguments")
    here = services.runs
    with here.lock:  # two decisions at once: one is taken first, the other sees it
        run = here.held(run_id)
        pages = bench is not None and bench.run is not None and bench.run.id == run_id
        if run is None and pages:
            run = bench.run  # type: ignore[union-attr]
        if run is None:
            return _refused(out, "no_run", f"No run {run_id!r} waits for a decision here (it finished, "
                                           "is running, or belongs to a studio that restarted).")
        # Who goes on with it once decided: a worker holding it, or this studio; nobody is said
        # before anything is recorded (the decision would wait for no one).
        carrier = who_carries(services, run_id, run, tools=not pages)  # the page's run: the page says
        if carrier.nobody is not None:
            return _refused(out, "nobody", f"Could not decide: {carrier.nobody}")
        step = run.plan.steps[run.plan.index_of(step_id)] if step_id in run.steps else None
        tool = services.registry.get(step.tool) if step is not None and step.tool in services.registry else None
        try:
            decision = record_decision(run, step_id, approve, actor=actor, seen_hash=seen_hash, tool=tool,
                                       channel=channel, arguments=arguments, scope=grant.scope)
        except Forbidden as exc:
            return _refused(out, "forbidden", f"Could not decide: {exc}")
        except DecisionRefused as exc:
            return _refused(out, exc.why or "not_waiting", f"Could not decide: {exc}", exc.field)
        state = run.steps[step_id]
        changed = [state]
        out.decision, out.settled = decision, state.decision is decision
        out.approvals, out.needed = approvers_so_far(state), approvals_needed(state)
        if approve and step is not None:
            with attempt(out, "keep the grant"):
                made = make_grant(services, grant, run_id=run_id, tool=step.tool, approval=decision, actor=actor,
                                  channel=channel)
                if made is not None:
                    decision.grant_id = made.id
                    changed += [run.steps[s] for s in _granted_now(run, made, services.registry, step_id)]
        if not waiting_steps(run):
            here.let_go(run_id)
        # Kept with the stored run too: the decision outlives a restart of the studio.
        with attempt(out, "keep the decision with the run"):
            services.store.records.steps_finished(run_id, changed)
            hooks.notify("step_decided", run=run, step_id=step_id, decision=decision)
        with attempt(out, "put the decision on record"):
            record_step_decision(services, run, step_id, actor=actor, channel=channel)
    tell_step_decided(services, run, step_id, out.decision, out.settled)  # queued: never blocks
    label = run.plan.label(step_id)
    out.done()
    verb = "Approved" if approve else "Rejected"
    if approve and not out.settled:
        names = ", ".join(a.actor_name or a.actor_id for a in out.approvals)
        more = out.needed - len(out.approvals)
        out.say("success", f"Approved {label} ({len(out.approvals)} of {out.needed} approvals: {names}); "
                           f"it waits for {more} more approver{'s' if more != 1 else ''}.")
    elif carrier.worker and not any(run.steps[s].decision is None for s in waiting_steps(run)):
        with attempt(out, "hand the run to its worker"):  # it waits there for word of the decisions
            worker = handed_over(services, carrier)
            out.say("success", f"{verb} {label}; the run goes on in {worker}.")
    elif bench is not None and bench.run is run and not carrier.worker:
        with attempt(out, "go on with the run"):
            going = go_on_with_run(bench, services)  # with the run's own plan, whatever the Plan JSON holds
            out.notices.extend(going.notices)
        out.say("success", f"{verb} {label}; the run goes on.")
    elif any(run.steps[s].decision is None for s in waiting_steps(run)):  # approved ones wait until run
        out.say("success", f"{verb} {label}; the run goes on once its other waiting steps are decided.")
    else:  # decided from elsewhere (the review API, MCP): nobody else would carry it on
        going = resume_stored_run(services, run_id, {}).outcome
        out.notices.extend(going.notices)
        if going.ok:
            out.say("success", f"{verb} {label}; the run goes on in the studio.")
    return out

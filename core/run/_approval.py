"""A pause for a person: which steps wait for an approval before they run, and the decisions.

The run's policy (``RunLimits.policy``, ``core.policy``) says of each step, on its resolved
arguments, whether it runs, waits, or is denied; by default a step waits when its tool may write
(``tool.effects.may_write``). A step waits when the policy asks and the run's limits say to ask
(``RunLimits.approve_writes``), or when the reviewer marked it (``Step.ask_first``); a denied
step never runs (``rejected``, the rule named as the one who decided). The run pass resolves its
arguments (references filled in from earlier results), keeps them on the step and marks it
``waiting``, with what it needs (``StepRun.ask``: how many approvers, which roles or groups, the
rule); steps that do not depend on it go on.

An approver then decides on exactly what was shown: ``shown_hash`` binds the tool, the resolved
arguments and the tool's effects, and a decision that does not name it (or names another: the
arguments moved) is refused. Each approver's answer is kept on the run's ``StepRun``
(``approvals``): who (an ``Actor``), when, the channel, the rule that asked, the hashes, and an
edit of the arguments when the approver made one (the edit is the approval's content: the step
runs with exactly the edited arguments, and ``arguments_hash`` binds to them). A step that asks
for N approvers waits until N distinct eligible actors approved the same content; one rejection
rejects it; the actor who submitted the plan may not approve it. The answer that settles the
step is ``StepRun.decision``.

On the next pass an approved step runs if its arguments resolve to those that were approved
(else it waits again, its approvals dropped); a rejected one ends ``rejected`` and its tool is
never called; the steps that depend on it are skipped. A grant (``Grant``: for this run, or
always for these exact arguments) lets a step pass without asking, recorded as its approval.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable, Literal, Protocol

from .._errors import DecisionRefused, Forbidden
from ..access import Actor, Role, require
from ._events import now
from ..plan._model import Step
from ..policy import Policy, Verdict, check_step
from ..policy import literal_arguments
from ..tooling._registry import Tool
from ._model import Ask, Grant, Run, StepDecision, StepRun
from ._policy import RunLimits
from ._status import StepStatus

__all__ = ["REJECTED_NOTE", "GrantBook", "approval_reason", "approvals_needed", "approved_arguments",
           "approvers_so_far", "arguments_hash", "ask_of", "decide_step", "denied_note", "effects_label",
           "grant_passes", "hold_step", "passes_on_a_grant", "shown_hash", "waiting_note", "waiting_steps"]

REJECTED_NOTE = "rejected: a person said no before it ran"
UNKNOWN_EFFECTS = "unknown (may write)"
SCOPES = ("once", "run", "always")


class GrantBook(Protocol):
    """Where the grants are kept (the store's ``grants``): the one that lets a step pass, if any."""

    def letting_pass(self, run_id: str, tool: str, arguments_hash: str) -> Grant | None: ...


def denied_note(verdict: Verdict) -> str:
    """A denied step's error: "denied by rule no-deletes: nothing is deleted by an agent"."""
    return f"denied by rule {verdict.rule}" + (f": {verdict.reason}" if verdict.reason else "")


def waiting_note(verdict: Verdict) -> str:
    """Why a step waits, for the approver."""
    if verdict.rule:
        return f"rule {verdict.rule} asks" + (f": {verdict.reason}" if verdict.reason else "")
    return verdict.reason


def ask_of(verdict: Verdict) -> Ask:
    """What the waiting step needs, as the policy's verdict says."""
    return Ask(approvers=max(1, verdict.approvers), roles=list(verdict.roles), groups=list(verdict.groups),
               rule=verdict.rule, reason=verdict.reason)


def arguments_hash(arguments: dict[str, Any] | None) -> str:
    """A hash of resolved arguments, the same for equal JSON whatever the order of its keys."""
    text = json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def shown_hash(tool: str, arguments: dict[str, Any] | None, effects: str) -> str:
    """A hash of exactly what an approver is shown: the tool, its resolved arguments, its effects."""
    text = json.dumps({"tool": tool, "arguments": arguments, "effects": effects}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def effects_label(tool: Tool | None) -> str:
    return tool.effects.label if tool is not None else UNKNOWN_EFFECTS


def approval_reason(step: Step, tool: Tool, approve_writes: bool, policy: Policy | None = None,
                    agent: Actor | None = None) -> str | None:
    """Why ``step`` may wait for a person when it runs, judged before the run on its literal
    params (a condition on a run-time value counts as asking), or None when it will not wait
    (it runs, or the policy denies it)."""
    verdict = check_step(policy or Policy(), step, tool, literal_arguments(step.params), agent)
    if verdict.outcome != "ask" or not (approve_writes or step.ask_first):
        return None
    note = waiting_note(verdict)
    return note if verdict.certain else f"{note} (depending on values only the run will know)"


def _runs(verdict: Verdict, limits: RunLimits, ask_first: bool) -> bool:
    """Whether a step so judged just runs: allowed, or asked about in a run that does not pause
    (``approve_writes`` off) for a step no reviewer marked."""
    return verdict.outcome == "allow" or (verdict.outcome == "ask" and not limits.approve_writes and not ask_first)


Held = Literal["run", "waiting", "ended"]


def _submitter(run: Run) -> Actor | None:
    """Who submitted the plan of ``run`` (``Run.submitted_by``), as the policy's ``agent`` rules see it."""
    if not run.submitted_by:
        return None
    kind = "agent" if run.submitted_by.startswith("agent:") else "person"
    return Actor(id=run.submitted_by, name=run.submitted_by.partition(":")[2] or run.submitted_by, kind=kind,
                 role=Role.viewer)


def hold_step(run: Run, step: Step, tool: Tool, limits: RunLimits, resolve: Callable[[], dict[str, Any]],
              grants: GrantBook | None = None) -> tuple[Held, dict[str, Any] | None]:
    """What the run pass does with a ready step of ``run`` before its tool is called, and with
    which arguments: ("run", None), it runs with its resolved arguments; ("run", arguments), it
    runs with exactly those an approver approved (an edit too); "waiting", it waits for people
    (``StepRun.ask`` says what it needs); "ended", it is rejected, denied by a rule (the tool is
    never called, whatever a person decided) or by a person. The policy is asked first without
    the arguments: most verdicts need none, and resolving them costs. ``resolve()`` gives the
    step's resolved arguments; ``grants`` may let a step pass that would wait."""
    state = run.steps[step.id]
    agent = limits.agent or _submitter(run)
    verdict = check_step(limits.rules, step, tool, None, agent)
    if verdict.certain and _runs(verdict, limits, step.ask_first):
        return "run", None
    try:
        arguments = resolve()
    except Exception:  # the step fails when it starts, saying why; nothing to decide
        return "run", None
    if not verdict.certain:
        verdict = check_step(limits.rules, step, tool, arguments, agent)
        if _runs(verdict, limits, step.ask_first):
            return "run", None
    if verdict.outcome == "deny":
        state.status, state.error, state.ask = StepStatus.rejected, denied_note(verdict), None
        state.arguments, state.result = arguments, None
        rule = Actor.rule(verdict.rule)
        state.decision = StepDecision(approved=False, arguments_hash=arguments_hash(arguments), decided_at=now(),
                                      channel="policy", actor_id=rule.id, actor_name=rule.name,
                                      actor_kind=rule.kind, rule=verdict.rule,
                                      shown_hash=shown_hash(step.tool, arguments, effects_label(tool)))
        return "ended", None
    decision = state.decision
    approved = approved_arguments(decision, arguments) if decision is not None and decision.approved else None
    if decision is not None and approved is not None:  # runs with exactly what was approved (an edit too)
        return "run", dict(approved)
    if decision is not None and not decision.approved and decision.arguments_hash == arguments_hash(arguments):
        state.status, state.error = StepStatus.rejected, REJECTED_NOTE
        return "ended", None
    asked_before = state.ask.asked_at if state.ask is not None and state.status == StepStatus.waiting else None
    state.ask = ask_of(verdict)  # before the grants: a grant is one person's word, for one-approver asks
    state.ask.asked_at = asked_before or now()
    if decision is None and passes_on_a_grant(run, step.id, tool, arguments, grants):
        return "run", None
    changed = " (its arguments changed since the last decision)" if decision is not None else ""
    if decision is not None or arguments_hash(state.arguments) != arguments_hash(arguments):
        state.approvals = []  # approvals of other arguments do not count for these
    state.status = StepStatus.waiting
    state.arguments, state.result = arguments, None
    state.error = f"waiting for a person: {waiting_note(verdict)}{changed}"
    state.decision = None
    return "waiting", None


def waiting_steps(run: Run) -> list[str]:
    """The ids of the steps of ``run`` waiting for a person, in plan order."""
    return [s.id for s in run.plan.steps if run.steps[s.id].status == StepStatus.waiting]


def approvals_needed(state: StepRun) -> int:
    """How many distinct approvers the step asks for (the policy's ``Ask``; one by default)."""
    return max(1, state.ask.approvers) if state.ask is not None else 1


def approvers_so_far(state: StepRun) -> list[StepDecision]:
    """The approvals of a waiting step so far, one per approver, oldest first."""
    return [a for a in state.approvals if a.approved]


def approved_arguments(decision: StepDecision, resolved: dict[str, Any] | None) -> dict[str, Any] | None:
    """The arguments an approval lets the step run with, when the step's arguments resolve to
    those the approver was shown (``resolved``); None when they do not (it must wait again)."""
    if decision.arguments is None:
        return resolved if decision.arguments_hash == arguments_hash(resolved) else None
    if arguments_hash(decision.original_arguments) != arguments_hash(resolved) \
            or decision.arguments_hash != arguments_hash(decision.arguments):
        return None
    return decision.arguments


def _refuse(message: str, step_id: str, why: str, field: str = "") -> DecisionRefused:
    return DecisionRefused(message, step_ids=[step_id], why=why, field=field)


def _eligible(actor: Actor, state: StepRun, label: str) -> None:
    """Refuse (``Forbidden``) an actor the step's ``Ask`` does not name."""
    ask = state.ask
    if ask is None or (not ask.roles and not ask.groups):
        return
    roles = [Role.parse(name) for name in ask.roles]
    if any(actor.can(role) for role in roles) or (set(ask.groups) & set(actor.groups)):
        return
    wanted = [f"the {r.name} role" for r in roles] + [f"group {g}" for g in ask.groups]
    raise Forbidden(f"{actor.label} may not approve {label}: it asks for approvers with "
                    f"{' or '.join(wanted)}", actor=actor.id, needed=", ".join(ask.roles or ask.groups))


def decide_step(run: Run, step_id: str, approve: bool, *, actor: Actor, seen_hash: str, tool: Tool | None = None,
                channel: str = "", arguments: dict[str, Any] | None = None, scope: str = "once",
                grant_id: str = "") -> StepDecision:
    """Record ``actor``'s decision on a waiting step of ``run`` (not being driven right now).

    ``seen_hash`` names what the approver was shown: its ``shown_hash`` (``tool`` gives the
    effects; without it they are unknown) or, from older clients, the ``arguments_hash``. A
    decision without it, or with another (the arguments changed), is refused, as is a second
    decision by the same approver or one on a step already settled. ``arguments``: the
    approver's edit, checked against ``tool``'s schema; the step runs with exactly those.

    A rejection rejects the step at once. An approval counts towards what the step asks for
    (``approvals_needed``); the one that meets it settles the step (``StepRun.decision``),
    which stays ``waiting`` until the run goes on (``resume``), which then runs it.
    """
    state = run.steps.get(step_id)
    if state is None:
        raise _refuse(f"run {run.id} has no step {step_id!r}", step_id, "unknown")
    label = run.plan.label(step_id)
    require(actor, Role.approver, f"decide on {label}")
    if state.status != StepStatus.waiting:
        raise _refuse(f"{label} is not waiting for a decision (it is {state.status.value})", step_id, "not_waiting")
    if state.decision is not None:
        settled = state.decision
        raise _refuse(f"{label} was decided already ({'approved' if settled.approved else 'rejected'} by "
                      f"{settled.actor_name or settled.actor_id or settled.channel}); it runs when the run goes on",
                      step_id, "not_waiting")
    if not seen_hash:
        raise _refuse(f"{label}: a decision must name what it decides on: pass the shown_hash (or "
                      "arguments_hash) given with the waiting step", step_id, "unnamed", "shown_hash")
    step = run.plan.steps[run.plan.index_of(step_id)]
    current = arguments_hash(state.arguments)
    shown = shown_hash(step.tool, state.arguments, effects_label(tool))
    if seen_hash not in (shown, current):
        raise _refuse(f"{label}: its arguments changed since they were shown (or its tool's effects): "
                      "look again", step_id, "stale")
    if approve and run.submitted_by and actor.id == run.submitted_by:
        raise Forbidden(f"{actor.label} submitted this plan and may not approve its own step {label}",
                        actor=actor.id, needed="another approver")
    _eligible(actor, state, label)
    if any(a.actor_id == actor.id for a in state.approvals):
        raise _refuse(f"{label}: {actor.label} decided on it already; each approver decides once",
                      step_id, "replayed")
    if scope not in SCOPES:
        raise _refuse(f"{label}: scope {scope!r} is not one of {', '.join(SCOPES)}", step_id, "arguments", "grant")
    edited = arguments if approve and arguments is not None and arguments_hash(arguments) != current else None
    if edited is not None:
        if not isinstance(edited, dict):
            raise _refuse(f"{label}: edited arguments must be a JSON object", step_id, "arguments", "arguments")
        problems = tool.check_arguments(edited) if tool is not None else []
        if problems:
            said = "; ".join(f"{field}: {message}" for field, message in problems)
            raise _refuse(f"{label}: the edited arguments do not fit {step.tool}: {said}",
                          step_id, "arguments", f"arguments.{problems[0][0]}")
    record = StepDecision(
        approved=approve, arguments_hash=arguments_hash(edited) if edited is not None else current,
        decided_at=now(), channel=channel, actor_id=actor.id, actor_name=actor.name, actor_kind=actor.kind,
        rule=state.ask.rule if state.ask is not None else "", shown_hash=shown, arguments=edited,
        original_arguments=dict(state.arguments or {}) if edited is not None else None,
        scope=scope if approve else "once", grant_id=grant_id)
    state.approvals.append(record)
    if not approve:
        state.decision = record
        state.status = StepStatus.rejected
        state.error = REJECTED_NOTE
    elif len({a.actor_id for a in approvers_so_far(state) if a.arguments_hash == record.arguments_hash}) \
            >= approvals_needed(state):
        state.decision = record
    return record


def grant_passes(run: Run, step_id: str, grant: Grant, arguments: dict[str, Any] | None,
                 effects: str) -> StepDecision:
    """Record ``grant`` as the approval that lets the step pass (who granted it, which grant)."""
    state = run.steps[step_id]
    step = run.plan.steps[run.plan.index_of(step_id)]
    record = StepDecision(approved=True, arguments_hash=arguments_hash(arguments), decided_at=now(),
                          channel="grant", actor_id=grant.granted_by, actor_name=grant.granted_by_name,
                          actor_kind=grant.granted_by_kind, rule=state.ask.rule if state.ask is not None else "",
                          shown_hash=shown_hash(step.tool, arguments, effects), grant_id=grant.id,
                          scope=grant.scope)
    state.approvals.append(record)
    state.decision = record
    return record


def passes_on_a_grant(run: Run, step_id: str, tool: Tool, arguments: dict[str, Any],
                      grants: GrantBook | None) -> bool:
    """Let a step that would wait pass on a grant (recorded as its approval); only where one
    approver is enough: a grant is one person's word. Grants that cannot be read: it waits."""
    state = run.steps[step_id]
    if grants is None or approvals_needed(state) > 1:
        return False
    try:
        grant = grants.letting_pass(run.id, tool.name, arguments_hash(arguments))
    except Exception:  # the grants cannot be read (a store away): the step asks a person
        return False
    if grant is None:
        return False
    grant_passes(run, step_id, grant, arguments, effects_label(tool))
    return True

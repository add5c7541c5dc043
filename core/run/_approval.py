"""A pause for a person: which steps wait for an approval before they run, and the decision.

The run's policy (``RunLimits.policy``, ``core.policy``) says of each step, on its resolved
arguments, whether it runs, waits, or is denied; by default a step waits when its tool may
write (``tool.effects.may_write``). A step waits when the policy asks and the run's limits say
to ask (``RunLimits.approve_writes``), or when the reviewer marked it (``Step.ask_first``); a
denied step never runs (``rejected``, the rule named). The run pass resolves its arguments (references filled in from earlier results), keeps them on the
step and marks it ``waiting``; steps that do not depend on it go on. A person then approves or
rejects exactly those arguments: the decision, with a hash of the arguments, is kept on the
run's ``StepRun``, so any recorder that stores runs keeps it and a resume sees it. On the next
pass an approved step runs if its arguments resolve to the same hash (else it waits again); a
rejected one ends ``rejected`` and the steps that depend on it are skipped.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Callable, Literal

from .._errors import DecisionRefused
from ._events import now
from ..access import Actor
from ..plan._model import Step
from ..policy import Policy, Verdict, check_step
from ..policy import literal_arguments
from ..tooling._registry import Tool
from ._model import Ask, Run, StepDecision, StepRun
from ._policy import RunLimits
from ._status import StepStatus

__all__ = ["REJECTED_NOTE", "arguments_hash", "ask_of", "decide_step", "approval_reason", "denied_note",
           "hold_step", "waiting_note", "waiting_steps"]

REJECTED_NOTE = "rejected: a person said no before it ran"


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


def hold_step(step: Step, tool: Tool, limits: RunLimits, state: StepRun,
              resolve: Callable[[], dict[str, Any]]) -> Literal["waiting", "ended"] | None:
    """What the run pass does with a ready step before its tool is called: None, it runs;
    "waiting", it waits for people (``state.ask`` says what it needs); "ended", it is rejected,
    denied by a rule (the tool is never called, whatever a person decided) or by a person.
    The policy is asked first without the arguments: most verdicts need none, and resolving
    them costs. ``resolve()`` gives the step's resolved arguments."""
    verdict = check_step(limits.rules, step, tool, None, limits.agent)
    if verdict.certain and _runs(verdict, limits, step.ask_first):
        return None
    try:
        arguments = resolve()
    except Exception:  # the step fails when it starts, saying why; nothing to decide
        return None
    if not verdict.certain:
        verdict = check_step(limits.rules, step, tool, arguments, limits.agent)
        if _runs(verdict, limits, step.ask_first):
            return None
    if verdict.outcome == "deny":
        state.status, state.error, state.ask = StepStatus.rejected, denied_note(verdict), None
        state.arguments, state.result = arguments, None
        state.decision = StepDecision(approved=False, arguments_hash=arguments_hash(arguments), decided_at=now(),
                                      by=f"rule:{verdict.rule}")
        return "ended"
    decision = state.decision
    if decision is not None and decision.arguments_hash == arguments_hash(arguments):
        if decision.approved:
            return None
        state.status, state.error = StepStatus.rejected, REJECTED_NOTE
        return "ended"
    changed = " (its arguments changed since the last decision)" if decision is not None else ""
    state.status = StepStatus.waiting
    state.arguments, state.result = arguments, None
    state.error = f"waiting for a person: {waiting_note(verdict)}{changed}"
    state.decision = None
    state.ask = ask_of(verdict)
    return "waiting"


def waiting_steps(run: Run) -> list[str]:
    """The ids of the steps of ``run`` waiting for a person, in plan order."""
    return [s.id for s in run.plan.steps if run.steps[s.id].status == StepStatus.waiting]


def decide_step(run: Run, step_id: str, approve: bool, *, seen_hash: str | None = None, by: str = "") -> StepDecision:
    """Record a person's decision on a waiting step of ``run`` (not being driven right now).

    ``seen_hash`` is the hash of the arguments the person was shown; if the step's arguments
    are others now, nothing is recorded. A rejected step is ``rejected`` at once; an approved
    one stays ``waiting`` until the run goes on (``resume``), which then runs it.
    """
    state = run.steps.get(step_id)
    if state is None:
        raise DecisionRefused(f"run {run.id} has no step {step_id!r}", step_ids=[step_id])
    label = run.plan.label(step_id)
    if state.status != StepStatus.waiting:
        raise DecisionRefused(f"{label} is not waiting for a decision (it is {state.status.value})",
                              step_ids=[step_id])
    current = arguments_hash(state.arguments)
    if seen_hash is not None and seen_hash != current:
        raise DecisionRefused(f"{label}: its arguments changed since they were shown; look again",
                              step_ids=[step_id])
    decision = StepDecision(approved=approve, arguments_hash=current, decided_at=now(), by=by)
    state.decision = decision
    if not approve:
        state.status = StepStatus.rejected
        state.error = REJECTED_NOTE
    return decision

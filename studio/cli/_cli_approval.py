"""``plan-studio run`` and the pause for a person: who approves a step that waits.

With ``--approve-writes`` the person approved every step up front (nothing waits). On a
terminal each waiting step is shown with its tool, effects and resolved arguments, and the
person answers y or n. Otherwise (a script, a pipe) nobody can answer: the run is refused
before anything runs, naming the steps that would wait, so no half of a plan runs unseen.
"""

from __future__ import annotations

import json
import sys
from typing import Callable, Collection, TextIO

from core import (LOCAL_ACTOR, Actor, DecisionRefused, Forbidden, Plan, Policy, Role, Run, RunLimits, ToolRegistry,
                  approval_reason, approvals_needed, approvers_so_far, decide_step, shown_hash, waiting_steps)

__all__ = ["approve_on_terminal", "approved_up_front", "nobody_to_ask", "steps_that_ask", "refusal"]

# Who answers at the terminal: the local user (``core.LOCAL_ACTOR``).

# Arguments come from tool results: shown as JSON with every control character escaped (no
# terminal escape sequence gets through), and cut so a huge argument cannot flood the terminal.
_SHOWN_CHARS = 2000


def steps_that_ask(plan: Plan, registry: ToolRegistry, approve_writes: bool,
                   among: Collection[str] | None = None, policy: Policy | None = None) -> list[str]:
    """Labels of the steps of ``plan`` (those of ``among``, when given) that will (or, on values
    only the run knows, may) wait for a person under ``policy``, each with why."""
    out = []
    for step in plan.steps:
        if step.tool not in registry or (among is not None and step.id not in among):
            continue  # the plan's check says so, naming the step
        reason = approval_reason(step, registry.get(step.tool), approve_writes, policy)
        if reason is not None:
            out.append(f"{plan.label(step.id)}: {reason}")
    return out


def refusal(asking: list[str]) -> str:
    return ("not run: these steps wait for a person's approval and nobody is at a terminal to give it "
            "(run with --approve-writes to approve them, or from a terminal):\n  " + "\n  ".join(asking))


def approved_up_front(plan: Plan, limits: RunLimits) -> tuple[Plan, RunLimits]:
    """``--approve-writes``: the plan and limits with nothing left to ask about."""
    steps = [s.model_copy(update={"ask_first": False}) for s in plan.steps]
    return plan.model_copy(update={"steps": steps}), limits.model_copy(update={"approve_writes": False})


def nobody_to_ask(plan: Plan, registry: ToolRegistry, limits: RunLimits) -> bool:
    """True (the refusal said on stderr) when steps would wait and stdin is no terminal."""
    asking = steps_that_ask(plan, registry, limits.approve_writes, policy=limits.policy)
    if asking and not sys.stdin.isatty():
        print(refusal(asking), file=sys.stderr)
        return True
    return False


def _shown(arguments: object) -> str:
    text = json.dumps(arguments, ensure_ascii=True, sort_keys=True, default=repr)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + f"... ({len(text)} characters)"


def approve_all(run: Run, registry: ToolRegistry) -> bool:
    """``--approve-writes`` for a run already going: approve each waiting step of ``run`` for the
    arguments it waits with, as the local user (True when there were any)."""
    waiting = waiting_steps(run)
    for step_id in waiting:
        step = run.plan.steps[run.plan.index_of(step_id)]
        tool = registry.get(step.tool)
        seen = shown_hash(step.tool, run.steps[step_id].arguments, tool.effects.label)
        decide_step(run, step_id, True, actor=LOCAL_ACTOR, seen_hash=seen, tool=tool, channel="cli")
    return bool(waiting)


def approve_on_terminal(run: Run, registry: ToolRegistry, *, ask: Callable[[str], str] = input,
                        out: TextIO = sys.stdout, actor: Actor = LOCAL_ACTOR) -> int:
    """Ask about each waiting step of ``run``; return how many were decided."""
    decided = 0
    for step_id in waiting_steps(run):
        step = run.plan.steps[run.plan.index_of(step_id)]
        tool = registry.get(step.tool)
        state = run.steps[step_id]
        print(f"{run.plan.label(step_id)} waits: {tool.name} ({tool.effects.label})", file=out)
        print(f"  arguments: {_shown(state.arguments)}", file=out)
        needed, so_far = approvals_needed(state), approvers_so_far(state)
        if needed > 1 or so_far:
            names = ", ".join(_shown(a.actor_name or a.actor_id) for a in so_far) or "nobody yet"
            print(f"  approvals: {len(so_far)} of {needed} (approved by {names})", file=out)
        seen = shown_hash(step.tool, state.arguments, tool.effects.label)  # exactly what was printed
        try:
            answer = ask("  run it with these arguments? [y/N] ").strip().lower()
        except EOFError:
            answer = ""
        try:
            decide_step(run, step_id, answer in ("y", "yes"), actor=actor, seen_hash=seen, tool=tool, channel="cli")
        except (DecisionRefused, Forbidden) as exc:
            print(f"  not decided: {exc}", file=out, flush=True)
            continue
        decided += 1
    return decided

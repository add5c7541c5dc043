"""The policy applied: to a whole plan when it is submitted or approved, and to one step when its
arguments are resolved, just before it runs.

A plan is judged on its literal params: a value that is a ``${steps...}`` reference is known only
once the run resolves it (``UNKNOWN``). A step certainly denied (its rule has no condition, or
the condition holds on the literal params) refuses the whole plan before anything runs
(``PolicyDenied``, naming each such step and rule); a step whose verdict needs a run-time value
is judged again by ``check_step`` when its arguments are resolved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .._errors import PolicyDenied, ReferenceSyntaxError
from ..access import Actor
from ..plan._model import Plan, Step
from ..plan._references import find_references, walk_strings
from ..tooling._registry import Tool, ToolRegistry
from ._expression import UNKNOWN
from ._rules import Policy, Verdict

__all__ = ["PlanVerdict", "check_plan", "check_step", "literal_arguments"]


def literal_arguments(params: Mapping[str, Any]) -> dict[str, Any] | None:
    """``params`` with every text holding a reference replaced by ``UNKNOWN``; None when the
    params cannot be read (a malformed reference: the validator names it)."""
    def known(text: str) -> Any:
        return UNKNOWN if "${" in text and find_references(text) else text

    try:
        return walk_strings(dict(params), known)
    except ReferenceSyntaxError:
        return None


@dataclass(frozen=True)
class PlanVerdict:
    """The policy's verdict on each step of a plan whose tool is known, in plan order."""

    steps: tuple[tuple[str, str, Verdict], ...]  # (step id, label, verdict)

    def with_outcome(self, outcome: str) -> list[tuple[str, str, Verdict]]:
        return [s for s in self.steps if s[2].outcome == outcome]

    @property
    def denied(self) -> list[tuple[str, str, Verdict]]:
        """The steps certainly denied."""
        return [s for s in self.steps if s[2].outcome == "deny" and s[2].certain]


def check_plan(policy: Policy, plan: Plan, registry: ToolRegistry, agent: Actor | None = None, *,
               refuse: bool = True) -> PlanVerdict:
    """Judge every step of ``plan``; with ``refuse``, raise ``PolicyDenied`` naming each step
    certainly denied and its rule. Steps of tools ``registry`` lacks are left to the validator."""
    verdicts = []
    for step in plan.steps:
        if step.tool not in registry:
            continue
        arguments = literal_arguments(step.params)
        verdict = policy.decide(registry.get(step.tool), arguments, agent, ask_first=step.ask_first)
        verdicts.append((step.id, plan.label(step.id), verdict))
    judged = PlanVerdict(tuple(verdicts))
    denied = judged.denied
    if refuse and denied:
        lines = "; ".join(f"{label}: {verdict.said}" for _id, label, verdict in denied)
        raise PolicyDenied(f"the policy denies {len(denied)} step{'s' if len(denied) != 1 else ''} of this plan, "
                           f"so none of it runs: {lines}",
                           step_ids=[s[0] for s in denied], rules=list(dict.fromkeys(s[2].rule for s in denied)))
    return judged


def check_step(policy: Policy, step: Step, tool: Tool, arguments: Mapping[str, Any] | None,
               agent: Actor | None = None) -> Verdict:
    """The verdict on ``step`` about to call ``tool`` with its resolved ``arguments`` (None: not
    resolved yet; the verdict then says whether it is ``certain`` without them)."""
    return policy.decide(tool, arguments, agent, ask_first=step.ask_first)

"""Policy replay: what a policy would have said about steps already decided, before it is saved.

Pure: the caller gathers the cases (each step of a recorded run or of a submitted plan, with its
tool, arguments, agent and what people decided); ``replay`` judges each with the new policy and
reports how many it would allow, ask about or deny, and every case where it disagrees with the
people who decided: it would allow (run without asking) what a person rejected, or deny what a
person approved. A verdict that needs a run-time value (a plan's step never run) is counted as
such and is no disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence

from ..access import Actor
from ..tooling._registry import Tool
from ._rules import Policy, Verdict

__all__ = ["Disagreement", "ReplayCase", "ReplayReport", "replay"]

Decided = Literal["approved", "rejected"]
MAX_DISAGREEMENTS = 200


@dataclass(frozen=True)
class ReplayCase:
    """One step as recorded: ``where`` names it for people ("run 3f2a, step 2 (refund)"),
    ``arguments`` are its resolved arguments (a run's) or literal params (a plan's, references
    ``UNKNOWN``), ``decided`` what a person said (None: nobody was asked)."""

    where: str
    tool: Tool
    arguments: Mapping[str, Any] | None
    decided: Decided | None = None
    agent: Actor | None = None
    ask_first: bool = False
    by: str = ""


@dataclass(frozen=True)
class Disagreement:
    case: ReplayCase
    verdict: Verdict

    @property
    def text(self) -> str:
        did = "rejected" if self.case.decided == "rejected" else "approved"
        would = "allow" if self.verdict.outcome == "allow" else "deny"
        who = f" ({self.case.by})" if self.case.by else ""
        return f"{self.case.where}: would {would} what a person{who} {did} ({self.verdict.said})"


@dataclass(frozen=True)
class ReplayReport:
    cases: int
    counts: Mapping[str, int]  # "allow", "ask", "deny", "run time" (needs a value only a run knows)
    disagreements: Sequence[Disagreement] = field(default_factory=list)
    disagreeing: int = 0  # all of them; ``disagreements`` lists at most MAX_DISAGREEMENTS

    @property
    def summary(self) -> str:
        c = self.counts
        text = (f"{self.cases} recorded step{'s' if self.cases != 1 else ''}: {c.get('allow', 0)} allowed, "
                f"{c.get('ask', 0)} asked, {c.get('deny', 0)} denied")
        if c.get("run time"):
            text += f", {c['run time']} decided only at run time"
        return text + f"; {self.disagreeing} disagreement{'s' if self.disagreeing != 1 else ''} with people's decisions"


def replay(policy: Policy, cases: Sequence[ReplayCase]) -> ReplayReport:
    """Judge ``cases`` with ``policy`` (see the module docstring)."""
    counts = {"allow": 0, "ask": 0, "deny": 0, "run time": 0}
    disagreements: list[Disagreement] = []
    disagreeing = 0
    for case in cases:
        verdict = policy.decide(case.tool, case.arguments, case.agent, ask_first=case.ask_first)
        if not verdict.certain:
            counts["run time"] += 1
            continue
        counts[verdict.outcome] += 1
        if (case.decided == "rejected" and verdict.outcome == "allow") or \
                (case.decided == "approved" and verdict.outcome == "deny"):
            disagreeing += 1
            if len(disagreements) < MAX_DISAGREEMENTS:
                disagreements.append(Disagreement(case, verdict))
    return ReplayReport(len(cases), counts, disagreements, disagreeing)

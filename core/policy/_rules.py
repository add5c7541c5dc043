"""Rules and what they decide: a policy is an ordered list of rules, and the first rule that
matches a step decides whether it runs (``allow``), waits for people (``ask``) or never runs
(``deny``).

A rule matches a step when every selector it has matches (a selector it lacks matches any):

- ``tool``: glob patterns on the tool's name (``delete_*``, ``refund``);
- ``group``: glob patterns on the tool's group (``billing``, ``mcp-*``);
- ``effect``: the tool's declared effects, one of read-only, additive, destructive, idempotent,
  unknown (a writing tool is additive or destructive, and idempotent too when it says so);
- ``agent``: glob patterns on the id or the name of the agent that submitted the plan (a rule
  with ``agent`` never matches a plan nobody submitted);
- ``when``: a condition on the step's arguments (``core.policy._expression``).

When no rule matches, the default decides, as the studio always did: a read-only tool runs, any
other asks one approver. A step the reviewer marked ``ask_first`` asks even where a rule allows.
Globs are matched by hand (``*`` any run of characters, ``?`` one), in time bounded by the
product of the two lengths: no regular expression is built from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from ..access import Actor
from ..tooling._definition import Effects
from ..tooling._registry import Tool
from ._expression import UNKNOWN, Condition

__all__ = ["EFFECT_NAMES", "OUTCOMES", "Outcome", "Policy", "Rule", "Verdict", "effect_names", "glob_match"]

EFFECT_NAMES = ("read-only", "additive", "destructive", "idempotent", "unknown")
OUTCOMES = ("allow", "ask", "deny")
Outcome = Literal["allow", "ask", "deny"]
ASK_FIRST_REASON = "the reviewer asked to approve this step before it runs"


def glob_match(pattern: str, text: str) -> bool:
    """Whether ``text`` matches the glob ``pattern`` (``*``: any run, ``?``: one character),
    whole and case-sensitive; the classic two-pointer walk, no regular expression."""
    p = t = 0
    star, mark = -1, 0
    while t < len(text):
        if p < len(pattern) and (pattern[p] == "?" or pattern[p] == text[t]):
            p, t = p + 1, t + 1
        elif p < len(pattern) and pattern[p] == "*":
            star, mark = p, t
            p += 1
        elif star != -1:
            p, mark = star + 1, mark + 1
            t = mark
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)


def effect_names(effects: Effects) -> frozenset[str]:
    """The effect names a tool's ``Effects`` answer to (``EFFECT_NAMES``)."""
    if not effects.known:
        return frozenset({"unknown"})
    if effects.read_only:
        return frozenset({"read-only"})
    names = {"destructive" if effects.destructive is not False else "additive"}
    if effects.idempotent:
        names.add("idempotent")
    return frozenset(names)


@dataclass(frozen=True)
class Verdict:
    """What the policy says about one step. ``rule`` is the rule that decided ("" for the
    default); ``certain`` is False when a condition needs a value only the run will know
    (then ``outcome`` is what the first such rule would say, and the run decides again)."""

    outcome: Outcome
    rule: str = ""
    reason: str = ""
    approvers: int = 1
    roles: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    certain: bool = True

    @property
    def said(self) -> str:
        """One phrase for people: "denied by rule no-deletes: never delete"."""
        verb = {"allow": "allowed", "ask": "asks", "deny": "denied"}[self.outcome]
        who = f"by rule {self.rule}" if self.rule else "by the default policy"
        return f"{verb} {who}" + (f": {self.reason}" if self.reason else "")


@dataclass(frozen=True)
class Rule:
    """One rule of a policy (see the module docstring)."""

    name: str
    outcome: Outcome
    tool: tuple[str, ...] = ()
    group: tuple[str, ...] = ()
    effect: tuple[str, ...] = ()
    agent: tuple[str, ...] = ()
    when: Condition | None = None
    reason: str = ""
    approvers: int = 1
    roles: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    line: int | None = None  # where it starts in its file, for messages
    when_line: int | None = None  # where its condition is

    def selects(self, tool: Tool, agent: Actor | None) -> bool:
        """Whether the rule's selectors (all but ``when``) match ``tool`` and ``agent``."""
        if self.tool and not any(glob_match(p, tool.name) for p in self.tool):
            return False
        if self.group and not any(glob_match(p, tool.group) for p in self.group):
            return False
        if self.effect and not effect_names(tool.effects) & set(self.effect):
            return False
        if self.agent:
            if agent is None or not any(glob_match(p, agent.id) or glob_match(p, agent.name) for p in self.agent):
                return False
        return True

    def verdict(self, *, certain: bool = True) -> Verdict:
        return Verdict(self.outcome, self.name, self.reason, self.approvers if self.outcome == "ask" else 0,
                       self.roles, self.groups, certain)

    @property
    def matches_text(self) -> str:
        """The selectors as one line, for the Settings table and ``policy check``."""
        parts = [f"{key} {' | '.join(values)}" for key, values in
                 (("tool", self.tool), ("group", self.group), ("effect", self.effect), ("agent", self.agent)) if values]
        return ", ".join(parts) or "every step"

    @property
    def outcome_text(self) -> str:
        if self.outcome != "ask":
            return self.outcome
        who = []
        if self.roles:
            who.append("roles " + ", ".join(self.roles))
        if self.groups:
            who.append("groups " + ", ".join(self.groups))
        text = f"ask {self.approvers} approver{'s' if self.approvers != 1 else ''}"
        return text + (f" ({'; '.join(who)})" if who else "")


@dataclass(frozen=True)
class Policy:
    """Ordered rules; the first that matches a step decides. ``Policy()`` is the default."""

    rules: tuple[Rule, ...] = ()
    source: str = ""  # where it was read from ("policy.toml", "the default policy"), for people
    text: str = field(default="", repr=False, compare=False)  # the file's text as read

    @property
    def is_default(self) -> bool:
        return not self.rules

    def decide(self, tool: Tool, arguments: Mapping[str, Any] | None, agent: Actor | None = None, *,
               ask_first: bool = False) -> Verdict:
        """The verdict on a call of ``tool`` with ``arguments`` (None: not known yet; values
        that are ``UNKNOWN`` in them are only known at run time)."""
        verdict = self._first(tool, arguments, agent)
        if ask_first and verdict.outcome == "allow":
            return Verdict("ask", "", ASK_FIRST_REASON, 1, certain=verdict.certain)
        return verdict

    def _first(self, tool: Tool, arguments: Mapping[str, Any] | None, agent: Actor | None) -> Verdict:
        for rule in self.rules:
            if not rule.selects(tool, agent):
                continue
            holds = True if rule.when is None else rule.when.holds(arguments)
            if holds is UNKNOWN:
                return rule.verdict(certain=False)
            if holds:
                return rule.verdict()
        if not tool.effects.may_write:
            return Verdict("allow")
        return Verdict("ask", reason=f"{tool.name} is not read-only ({tool.effects.label})")

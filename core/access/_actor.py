"""An actor: whoever does something in the studio, named on everything it does.

Every use case is done by an ``Actor`` (datasette's ``actor`` as the model): a person signed in
(OIDC, a trusted proxy header, or the local user of an embedded studio), an agent calling with
its own API token, a policy rule that decided on its own, or the studio itself (``system``).
Decisions, submissions and the audit name the actor's ``id``, never the channel it came by.

Roles are ordered; each holds the ones below it::

    viewer < reviewer < approver < admin

- viewer: reads plans, runs, reviews and the audit
- reviewer: plans, edits, saves, submits and runs plans; comments on reviews
- approver: decides on reviews and waiting steps (never on their own submission)
- admin: changes settings, the policy, people and agents' tokens

An agent's token usually holds ``reviewer``: it submits plans and waits for the decision.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal

from .._errors import Forbidden

__all__ = ["ANONYMOUS", "Actor", "ActorKind", "Role", "require"]

ActorKind = Literal["person", "agent", "rule", "system"]


class Role(enum.IntEnum):
    """What an actor may do; a higher role holds every lower one."""

    viewer = 1
    reviewer = 2
    approver = 3
    admin = 4

    @classmethod
    def parse(cls, text: str) -> "Role":
        try:
            return cls[text.strip().lower()]
        except KeyError:
            raise ValueError(f"unknown role {text!r}: one of {', '.join(r.name for r in cls)}") from None


@dataclass(frozen=True)
class Actor:
    """Who does something. ``id`` is stable and unique (``user:alice@example.com``,
    ``agent:ci-bot``, ``rule:reads-pass``, ``system``); ``name`` is for people to read.
    ``groups`` are the teams a person belongs to (from OIDC claims, or set in Settings)."""

    id: str
    name: str
    kind: ActorKind
    role: Role
    groups: frozenset[str] = field(default_factory=frozenset)

    def can(self, role: Role) -> bool:
        return self.role >= role

    @property
    def label(self) -> str:
        """How the actor is named to people: ``Alice (user:alice@example.com)``."""
        return self.id if self.name in ("", self.id) else f"{self.name} ({self.id})"

    @classmethod
    def rule(cls, name: str) -> "Actor":
        """A policy rule deciding on its own."""
        return cls(id=f"rule:{name}", name=f"rule {name}", kind="rule", role=Role.approver)

    @classmethod
    def system(cls) -> "Actor":
        """The studio itself (a resume after a restart, a migration): never a person's decision."""
        return cls(id="system", name="the studio", kind="system", role=Role.admin)


ANONYMOUS = Actor(id="anonymous", name="nobody signed in", kind="person", role=Role.viewer)


def require(actor: Actor, role: Role, doing: str) -> None:
    """Raise ``Forbidden`` unless ``actor`` holds ``role``; ``doing`` says what was refused
    ("approve a waiting step"), so the message names who, what and the role it needs."""
    if not actor.can(role):
        raise Forbidden(f"{actor.label} may not {doing}: that needs the {role.name} role "
                        f"(they have {actor.role.name})", actor=actor.id, needed=role.name)

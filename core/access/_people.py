"""People and agents' tokens as values, and the pure rules about them (no storage here).

A ``Person`` is someone who signs in (the local user of an embedded studio, an OIDC account,
a name a trusted proxy vouches for); an ``AgentToken`` is a named, revocable API token an
agent calls with. The store keeps only a token's SHA-256 (``token_hash``): the token itself
is shown once, when it is made, and a token presented later is compared in constant time
(``hash_matches``). A token is 32 random bytes, so a plain hash is enough (no salt, no slow
hash: nothing to guess).

Roles of people signing in through OIDC or a proxy come from their groups: the highest role
any of their groups maps to, and at least the default role (``role_from_groups``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from ._actor import Actor, Role

__all__ = ["LOCAL_ACTOR", "LOCAL_USER_ID", "TOKEN_PREFIX", "AgentToken", "Person", "agent_actor", "hash_matches", "new_token",
           "person_actor", "role_from_groups", "token_hash"]

LOCAL_USER_ID = "user:local"  # the one person of an embedded studio, made on its first start
# The local user as an actor: who the CLI, a Python caller and an embedded studio's page act as.
LOCAL_ACTOR = Actor(id=LOCAL_USER_ID, name="the local user", kind="person", role=Role.admin)
TOKEN_PREFIX = "ps_"  # agents' tokens start so: a secret scanner, or a person, can tell one
_TOKEN_BYTES = 32


@dataclass(frozen=True)
class Person:
    """Someone who signs in. ``id`` is ``user:<email or name>``; ``role`` what they may do."""

    id: str
    name: str
    email: str
    role: Role
    groups: frozenset[str] = field(default_factory=frozenset)
    created: dt.datetime | None = None


@dataclass(frozen=True)
class AgentToken:
    """An agent's API token as listed: never the token itself, only its name and what it is for."""

    name: str
    agent_id: str
    role: Role
    created: dt.datetime
    last_used: dt.datetime | None = None
    revoked_at: dt.datetime | None = None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


def new_token() -> str:
    """A new agent token: ``ps_`` and 43 URL-safe characters (256 random bits)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(_TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What the store keeps of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def hash_matches(token: str, stored_hash: str) -> bool:
    """Whether ``token`` is the one ``stored_hash`` was made from; constant time in the content."""
    return hmac.compare_digest(token_hash(token).encode("ascii"), stored_hash.encode("ascii", "replace"))


def role_from_groups(groups: Iterable[str], default: Role, mapping: Mapping[str, Role]) -> Role:
    """The highest of ``default`` and the roles ``mapping`` gives any of ``groups``."""
    return max([default, *(mapping[g] for g in groups if g in mapping)])


def person_actor(person: Person) -> Actor:
    return Actor(id=person.id, name=person.name or person.email or person.id, kind="person", role=person.role,
                 groups=person.groups)


def agent_actor(token: AgentToken) -> Actor:
    return Actor(id=token.agent_id, name=f"{token.agent_id.removeprefix('agent:')} (token {token.name})",
                 kind="agent", role=token.role)

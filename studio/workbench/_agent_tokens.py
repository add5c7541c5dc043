"""Agents' API tokens: made, listed and revoked by an admin; a call's bearer token made an actor.

Each agent calls the review API with its own token (``plan-studio token create NAME``, or
Settings); the store keeps only its hash, so the token is shown once, when it is made. The
shared token file of earlier versions (``_api_token``) keeps working as the admin token named
``default``: taken into the store the first time it is used or listed.
"""

from __future__ import annotations

import re

from core import (Actor, AgentToken, NameTaken, PlanStudioError, ReviewRequestError, Role, Unauthenticated,
                  agent_actor, require)
from core.access import hash_matches, new_token, token_hash

from ._api_token import ensure_token
from ._services import Services
from ._audit import record

__all__ = ["DEFAULT_TOKEN", "actor_for_bearer", "create_token", "list_tokens", "revoke_token"]

DEFAULT_TOKEN = "default"  # the shared token file's name in the store
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_UNAUTHORIZED = "unauthorized: send the header 'Authorization: Bearer TOKEN' (`plan-studio token` prints it)"


def _take_in_shared_token(services: Services) -> str:
    """The shared token file's token, kept in the store as ``default`` (admin) if it is not yet."""
    shared = ensure_token(services.settings.data_dir)
    people = services.store.people
    if people.token_for(shared, token_hash(shared), note_use=False) is None:
        try:
            people.add_token(DEFAULT_TOKEN, agent_id="agent:default", role=Role.admin, token_hash=token_hash(shared))
        except NameTaken:
            pass  # "default" is another token now (the file was made again): the file's is not taken in
    return shared


def create_token(services: Services, name: str, *, role: Role = Role.reviewer, agent: str | None = None,
                 actor: Actor) -> tuple[AgentToken, str]:
    """A new token named ``name`` for ``agent`` (default: the name) with ``role``; the token is
    returned this once and never kept."""
    require(actor, Role.admin, "make an agent token")
    if not _NAME.match(name or ""):
        raise ReviewRequestError("name", f"must be 1-64 letters, digits, '.', '_' or '-', starting with a letter "
                                         f"or digit, not {name!r}")
    agent_id = f"agent:{agent or name}"
    token = new_token()
    made = services.store.people.add_token(name, agent_id=agent_id, role=role, token_hash=token_hash(token))
    record(services, actor, "token.changed", {"agent": agent_id}, {"change": "made", "name": name, "role": role.name})
    return made, token


def list_tokens(services: Services, *, actor: Actor) -> list[AgentToken]:
    require(actor, Role.admin, "list the agent tokens")
    _take_in_shared_token(services)
    return services.store.people.tokens()


def revoke_token(services: Services, name: str, *, actor: Actor) -> AgentToken:
    require(actor, Role.admin, "revoke an agent token")
    _take_in_shared_token(services)
    revoked = services.store.people.revoke_token(name)
    record(services, actor, "token.changed", {"agent": revoked.agent_id}, {"change": "revoked", "name": name})
    return revoked


def actor_for_bearer(services: Services, header: str | None) -> Actor:
    """The agent an ``Authorization: Bearer TOKEN`` header names; ``Unauthenticated`` (saying
    when it was revoked) for none, an unknown token or a revoked one."""
    scheme, _, given = (header or "").partition(" ")
    token = given.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthenticated(_UNAUTHORIZED)
    found = services.store.people.token_for(token, token_hash(token))
    if found is None:
        try:
            shared = _take_in_shared_token(services)
        except PlanStudioError:
            raise
        if not hash_matches(token, token_hash(shared)):
            raise Unauthenticated(_UNAUTHORIZED)
        found = services.store.people.token_for(token, token_hash(token))
        if found is None:
            raise Unauthenticated(_UNAUTHORIZED)
    if found.revoked_at is not None:
        raise Unauthenticated(f"unauthorized: the token {found.name!r} was revoked at "
                              f"{found.revoked_at:%Y-%m-%d %H:%M:%S} UTC; ask an admin for a new one", revoked=True)
    return agent_actor(found)

"""Who is there: the actors of the studio (people, agents, rules), the roles they hold, and
people and agents' tokens as values (``_people``; the store keeps them in ``core.storage``)."""

from ._actor import ANONYMOUS, Actor, ActorKind, Role, require
from ._people import (LOCAL_ACTOR, LOCAL_USER_ID, TOKEN_PREFIX, AgentToken, Person, agent_actor, hash_matches, new_token,
                      person_actor, role_from_groups, token_hash)

__all__ = ["ANONYMOUS", "LOCAL_ACTOR", "LOCAL_USER_ID", "TOKEN_PREFIX", "Actor", "ActorKind", "AgentToken", "Person", "Role",
           "agent_actor", "hash_matches", "new_token", "person_actor", "require", "role_from_groups", "token_hash"]

"""Who is there: the actors of the studio (people, agents, rules) and the roles they hold."""

from ._actor import ANONYMOUS, Actor, ActorKind, Role, require

__all__ = ["ANONYMOUS", "Actor", "ActorKind", "Role", "require"]

"""People: who signs in, as an actor with a role, and an admin's list of them.

Three ways in, each giving a ``Person`` kept in the store (``store.people``):

- the local user of an embedded studio (``LOCAL_USER_ID``, admin), made on the first start;
  the per-start secret in the URL is what proves a browser is theirs (``studio/api``'s guard);
- a person a trusted reverse proxy names in ``PLAN_STUDIO_USER_HEADER``;
- a person signed in with OIDC (Streamlit's ``st.login``): email, name and groups from the claims.

Someone seen for the first time gets the highest role their groups map to
(``PLAN_STUDIO_GROUP_ROLES``), at least ``PLAN_STUDIO_DEFAULT_ROLE``; an admin changes it on
Settings, and later sign-ins keep it.
"""

from __future__ import annotations

from typing import Iterable

from core import LOCAL_USER_ID, Actor, Person, Role, person_actor, require
from core.access import role_from_groups

from ._services import Services
from ._audit import record

__all__ = ["list_people", "local_person", "set_person_role", "signed_in"]


def local_person(services: Services) -> Actor:
    """The local user (admin), added to the store on the first start."""
    return person_actor(services.store.people.sign_in(LOCAL_USER_ID, name="the local user", email="",
                                                      role=Role.admin))


def signed_in(services: Services, *, email: str, name: str = "", groups: Iterable[str] = ()) -> Actor:
    """The person ``email`` (or the proxy's user name) as an actor, added when first seen."""
    settings = services.settings
    groups = frozenset(str(g) for g in groups)
    role = role_from_groups(groups, Role.parse(settings.default_role),
                            {group: Role.parse(role) for group, role in settings.group_roles.items()})
    person = services.store.people.sign_in(f"user:{email}", name=name or email, email=email, role=role,
                                           groups=groups)
    return person_actor(person)


def list_people(services: Services, *, actor: Actor) -> list[Person]:
    require(actor, Role.admin, "list the people")
    return services.store.people.people()


def set_person_role(services: Services, person_id: str, role: Role, *, actor: Actor) -> Person:
    require(actor, Role.admin, "change a person's role")
    changed = services.store.people.set_role(person_id, role)
    record(services, actor, "person.changed", {}, {"person": person_id, "role": role.name})
    return changed

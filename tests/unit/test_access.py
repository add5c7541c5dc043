"""Roles are ordered, ``require`` refuses naming who, what and the role needed, groups map to
roles, and a token is kept as a hash that only the token matches."""

from __future__ import annotations

import pytest

from core import Forbidden
from core.access import (LOCAL_USER_ID, Actor, AgentToken, Person, Role, agent_actor, hash_matches, new_token,
                         person_actor, require, role_from_groups, token_hash)


def test_roles_are_ordered_and_each_holds_the_ones_below() -> None:
    assert sorted(Role, key=int) == [Role.viewer, Role.reviewer, Role.approver, Role.admin]
    reviewer = Actor(id="user:r", name="R", kind="person", role=Role.reviewer)
    assert [reviewer.can(r) for r in Role] == [True, True, False, False]
    assert Role.parse(" Approver ") is Role.approver
    with pytest.raises(ValueError, match="unknown role 'boss': one of viewer, reviewer, approver, admin"):
        Role.parse("boss")


@pytest.mark.parametrize("role", list(Role))
def test_require_passes_the_role_and_above_and_refuses_below(role: Role) -> None:
    for held in Role:
        actor = Actor(id="user:x", name="X", kind="person", role=held)
        if held >= role:
            require(actor, role, "do it")
        else:
            with pytest.raises(Forbidden) as refused:
                require(actor, role, "approve a waiting step")
            assert str(refused.value) == (f"X (user:x) may not approve a waiting step: that needs the {role.name} "
                                          f"role (they have {held.name})")
            assert (refused.value.actor, refused.value.needed) == ("user:x", role.name)


def test_a_person_gets_the_highest_role_their_groups_map_to() -> None:
    mapping = {"finance": Role.approver, "ops": Role.reviewer, "it": Role.admin}
    assert role_from_groups([], Role.viewer, mapping) is Role.viewer
    assert role_from_groups(["ops", "finance", "other"], Role.viewer, mapping) is Role.approver
    assert role_from_groups(["other"], Role.reviewer, mapping) is Role.reviewer
    assert role_from_groups(["it"], Role.viewer, mapping) is Role.admin


def test_a_token_is_new_each_time_and_only_it_matches_its_hash() -> None:
    one, two = new_token(), new_token()
    assert one != two and one.startswith("ps_") and len(one) >= 40
    assert token_hash(one) != one and len(token_hash(one)) == 64
    assert hash_matches(one, token_hash(one))
    assert not hash_matches(two, token_hash(one))
    assert not hash_matches(one, "not a hash é")


def test_people_and_agents_as_actors() -> None:
    person = Person(id=LOCAL_USER_ID, name="you", email="", role=Role.admin)
    assert person_actor(person) == Actor(id=LOCAL_USER_ID, name="you", kind="person", role=Role.admin)
    import datetime as dt
    token = AgentToken(name="nightly", agent_id="agent:ci", role=Role.reviewer, created=dt.datetime.now(dt.timezone.utc))
    actor = agent_actor(token)
    assert (actor.id, actor.kind, actor.role) == ("agent:ci", "agent", Role.reviewer)
    assert "nightly" in actor.name

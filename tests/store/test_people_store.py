"""People and agents' tokens in the store, on SQLite and PostgreSQL: only a token's hash is
kept, a token is found by what it hashes to, a revoked one says so, and names stay unique."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core import NameTaken, NotFound, Role
from core.access import LOCAL_USER_ID, new_token, token_hash
from core import Plan
from core.storage import PlanStore


@pytest.fixture
def store(store_location: str | Path) -> PlanStore:
    with PlanStore(store_location) as opened:
        yield opened


def test_a_person_is_added_on_first_sign_in_and_keeps_the_role_an_admin_gave(store: PlanStore) -> None:
    first = store.people.sign_in("user:ann@example.com", name="Ann", email="ann@example.com", role=Role.viewer,
                                 groups=frozenset({"ops"}))
    assert (first.role, first.groups, first.created is not None) == (Role.viewer, frozenset({"ops"}), True)
    store.people.set_role("user:ann@example.com", Role.approver)
    again = store.people.sign_in("user:ann@example.com", name="Ann B", email="ann@example.com", role=Role.viewer,
                                 groups=frozenset({"ops", "finance"}))
    assert (again.role, again.name, again.groups) == (Role.approver, "Ann B", frozenset({"ops", "finance"}))
    store.people.sign_in(LOCAL_USER_ID, name="you", email="", role=Role.admin)
    assert [p.id for p in store.people.people()] == ["user:ann@example.com", LOCAL_USER_ID]
    assert store.people.person("user:nobody") is None
    with pytest.raises(NotFound, match="user:nobody"):
        store.people.set_role("user:nobody", Role.admin)


def test_a_token_is_kept_as_its_hash_and_found_by_the_token(store: PlanStore) -> None:
    token = new_token()
    made = store.people.add_token("ci-bot", agent_id="agent:ci", role=Role.reviewer, token_hash=token_hash(token))
    assert (made.name, made.agent_id, made.role, made.last_used, made.revoked) == (
        "ci-bot", "agent:ci", Role.reviewer, None, False)
    found = store.people.token_for(token, token_hash(token))
    assert found is not None and found.name == "ci-bot" and found.last_used is not None
    other = new_token()
    assert store.people.token_for(other, token_hash(other)) is None
    # A hash that matches but a token that does not (the compare is on the token, not the lookup)
    assert store.people.token_for(other, token_hash(token)) is None
    assert [t.name for t in store.people.tokens()] == ["ci-bot"]


def test_only_the_hash_reaches_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    token = new_token()
    with PlanStore(path) as store:
        store.people.add_token("bot", agent_id="agent:bot", role=Role.reviewer, token_hash=token_hash(token))
    data = path.read_bytes() + (path.with_name(path.name + "-wal").read_bytes()
                                if path.with_name(path.name + "-wal").exists() else b"")
    assert token.encode() not in data
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT token_hash FROM agent_token").fetchall() == [(token_hash(token),)]


def test_a_revoked_token_is_still_found_and_says_when(store: PlanStore) -> None:
    token = new_token()
    store.people.add_token("bot", agent_id="agent:bot", role=Role.reviewer, token_hash=token_hash(token))
    revoked = store.people.revoke_token("bot")
    assert revoked.revoked
    found = store.people.token_for(token, token_hash(token))
    assert found is not None and found.revoked_at == revoked.revoked_at
    assert store.people.revoke_token("bot").revoked_at == revoked.revoked_at  # twice: the first time stays
    with pytest.raises(NotFound, match="'ghost'"):
        store.people.revoke_token("ghost")


def test_a_name_is_never_taken_twice_even_after_revoking(store: PlanStore) -> None:
    store.people.add_token("bot", agent_id="agent:bot", role=Role.reviewer, token_hash=token_hash(new_token()))
    store.people.revoke_token("bot")
    with pytest.raises(NameTaken, match="'bot' exists already"):
        store.people.add_token("bot", agent_id="agent:bot", role=Role.reviewer, token_hash=token_hash(new_token()))


def test_a_review_records_who_submitted_it(store: PlanStore) -> None:
    plan = Plan.model_validate({"goal": "g", "steps": [{"id": "a", "tool": "t", "params": {}}]})
    review = store.submit_review(plan, agent="bot", fmt="native", original_text="{}", submitted_by="agent:bot")
    assert store.get_review(review.id).submitted_by == "agent:bot"
    assert store.get_review(store.submit_review(plan, agent="x", fmt="native", original_text="{}").id).submitted_by is None

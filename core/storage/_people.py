"""People and agents' tokens kept: who signs in with which role, and which tokens agents call with.

A token is kept as its hash only (``core.access.token_hash``); the token itself never reaches
the store. A revoked token stays listed (with when it was revoked), so a call with it is told
it was revoked rather than that it is unknown, and its name is not reused by mistake.
"""

from __future__ import annotations

import datetime as dt
import json

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from .._errors import NameTaken, NotFound
from ..access import AgentToken, Person, Role, hash_matches
from ._engine import Database
from ._people_tables import AgentTokenRow, PersonRow
from ._values import now

__all__ = ["PeopleStore"]

# A token's "last used" is written at most this often: an agent polling a review every second
# must not turn every read into a write.
LAST_USED_EVERY = dt.timedelta(seconds=60)


def _person(row: PersonRow) -> Person:
    return Person(id=row.id, name=row.name, email=row.email, role=Role.parse(row.role),
                  groups=frozenset(json.loads(row.groups_json or "[]")), created=row.created)


def _token(row: AgentTokenRow) -> AgentToken:
    return AgentToken(name=row.name, agent_id=row.agent_id, role=Role.parse(row.role), created=row.created,
                      last_used=row.last_used, revoked_at=row.revoked_at)


class PeopleStore:
    """The people and agents' tokens of one store."""

    def __init__(self, database: Database) -> None:
        self._db = database

    # -- people --------------------------------------------------------------------------------
    def person(self, person_id: str) -> Person | None:
        with self._db.session("look up the person") as session:
            row = session.get(PersonRow, person_id)
            return None if row is None else _person(row)

    def people(self) -> list[Person]:
        with self._db.session("list the people") as session:
            return [_person(r) for r in session.exec(select(PersonRow).order_by(PersonRow.created, PersonRow.id))]

    def sign_in(self, person_id: str, *, name: str, email: str, role: Role,
                groups: frozenset[str] = frozenset()) -> Person:
        """The person ``person_id``, added with ``role`` when first seen; later sign-ins keep the
        role they have (an admin may have changed it) and update name, email and groups."""
        groups_json = json.dumps(sorted(groups))
        with self._db.session("look up the person") as session:  # most sign-ins change nothing
            known = session.get(PersonRow, person_id)
        if known is not None and (known.name, known.email, known.groups_json) == (name, email, groups_json):
            return _person(known)
        with self._db.session("record the person", write=True) as session:
            row = session.get(PersonRow, person_id)
            if row is None:
                row = PersonRow(id=person_id, name=name, email=email, role=role.name, groups_json=groups_json,
                                created=now())
                session.add(row)
            elif (row.name, row.email, row.groups_json) != (name, email, groups_json):
                row.name, row.email, row.groups_json = name, email, groups_json
                session.add(row)
            session.flush()
            return _person(row)

    def set_role(self, person_id: str, role: Role) -> Person:
        with self._db.session("change the person's role", write=True) as session:
            row = session.get(PersonRow, person_id)
            if row is None:
                raise NotFound(f"no person with id {person_id!r}")
            row.role = role.name
            session.add(row)
            session.flush()
            return _person(row)

    # -- agents' tokens ------------------------------------------------------------------------
    def add_token(self, name: str, *, agent_id: str, role: Role, token_hash: str) -> AgentToken:
        """Keep a new token under ``name`` (``NameTaken`` if a token, even a revoked one, has it)."""
        row = AgentTokenRow(name=name, agent_id=agent_id, role=role.name, token_hash=token_hash, created=now())
        try:
            with self._db.session("add the agent token", write=True) as session:
                if session.get(AgentTokenRow, name) is not None:
                    raise NameTaken(f"a token named {name!r} exists already (revoked tokens keep their names)")
                session.add(row)
        except IntegrityError as exc:  # pragma: no cover - two adds racing past the check
            raise NameTaken(f"a token named {name!r} exists already") from exc
        return _token(row)

    def tokens(self) -> list[AgentToken]:
        """Every token, oldest first, revoked ones included."""
        with self._db.session("list the agent tokens") as session:
            rows = session.exec(select(AgentTokenRow).order_by(AgentTokenRow.created, AgentTokenRow.name))
            return [_token(r) for r in rows]

    def token_for(self, token: str, token_hash: str, *, note_use: bool = True) -> AgentToken | None:
        """The token whose hash is ``token_hash`` (``token``'s), its use noted; None if none is."""
        with self._db.session("look up the agent token") as session:
            row = session.exec(select(AgentTokenRow).where(AgentTokenRow.token_hash == token_hash)).first()
        if row is None or not hash_matches(token, row.token_hash):
            return None
        at = now()
        if note_use and row.revoked_at is None and (row.last_used is None or at - row.last_used >= LAST_USED_EVERY):
            with self._db.session("note the agent token's use", write=True) as session:
                session.execute(update(AgentTokenRow).where(AgentTokenRow.name == row.name).values(last_used=at))
            row.last_used = at
        return _token(row)

    def revoke_token(self, name: str) -> AgentToken:
        """Revoke the token ``name`` from now on (``NotFound`` if there is none; revoking twice
        keeps the first time)."""
        with self._db.session("revoke the agent token", write=True) as session:
            row = session.get(AgentTokenRow, name)
            if row is None:
                raise NotFound(f"no agent token named {name!r}")
            if row.revoked_at is None:
                row.revoked_at = now()
                session.add(row)
            session.flush()
            return _token(row)

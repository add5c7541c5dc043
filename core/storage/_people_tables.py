"""People and agents' tokens (revision 0007), beside ``_tables`` so each record store keeps its own."""

from __future__ import annotations

import datetime as dt

from sqlmodel import Field, SQLModel

from ._tables import UTCDateTime

__all__ = ["AgentTokenRow", "PersonRow"]


class PersonRow(SQLModel, table=True):
    """Someone who signs in; ``role`` is a role's name, ``groups_json`` a JSON list of names."""

    __tablename__ = "person"

    id: str = Field(primary_key=True)
    name: str
    email: str
    role: str
    groups_json: str
    created: dt.datetime = Field(sa_type=UTCDateTime)


class AgentTokenRow(SQLModel, table=True):
    """An agent's API token: only its SHA-256 is kept (``core.access.token_hash``)."""

    __tablename__ = "agent_token"

    name: str = Field(primary_key=True)
    agent_id: str
    role: str
    token_hash: str = Field(unique=True, index=True)
    created: dt.datetime = Field(sa_type=UTCDateTime)
    last_used: dt.datetime | None = Field(default=None, sa_type=UTCDateTime)
    revoked_at: dt.datetime | None = Field(default=None, sa_type=UTCDateTime)

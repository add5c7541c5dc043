"""The Lab's tables (revision 0003), beside ``_tables`` so each record store keeps its own."""

from __future__ import annotations

import datetime as dt

from sqlmodel import Field, SQLModel

from ._tables import UTCDateTime

__all__ = ["LabExperimentRow", "LabToolSeenRow"]


class LabExperimentRow(SQLModel, table=True):
    """A Lab experiment; its content is the studio's JSON, kept whole and never read here."""

    __tablename__ = "lab_experiment"

    id: str = Field(primary_key=True)
    name: str
    version: int = Field(description="Counts saves from 1: a save from an older one is refused.")
    created_at: dt.datetime = Field(sa_type=UTCDateTime)
    updated_at: dt.datetime = Field(sa_type=UTCDateTime, index=True)
    content: str


class LabToolSeenRow(SQLModel, table=True):
    """A tool's definition fingerprint as the studio last saw it (drift)."""

    __tablename__ = "lab_tool_seen"

    name: str = Field(primary_key=True)
    digest: str
    seen_at: dt.datetime = Field(sa_type=UTCDateTime)

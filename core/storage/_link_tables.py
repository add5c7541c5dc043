"""The table of signed links already used (revision 0011), beside ``_tables`` so each record
store keeps its own."""

from __future__ import annotations

import datetime as dt

from sqlmodel import Field, SQLModel

from ._tables import UTCDateTime

__all__ = ["LinkUseRow"]


class LinkUseRow(SQLModel, table=True):
    """A signed link's nonce, once the link was used: a link is good for one decision."""

    __tablename__ = "link_use"

    nonce: str = Field(primary_key=True)
    kind: str = Field(description="step or review")
    subject: str = Field(description="The run id (a step) or the review id.")
    step_id: str = ""
    used_at: dt.datetime = Field(sa_type=UTCDateTime)
    used_by: str = Field(description="The actor's id.")

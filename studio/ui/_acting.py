"""Who acts from the pages: the one place the UI names its actor.

A stand-in until the studio knows its people (sign-in gives ``_session.current_actor()``): the
local user of an embedded studio, as an approver. Every decision the pages make names it.
"""

from __future__ import annotations

import getpass

from core import Actor, Role

__all__ = ["LOCAL_ACTOR", "page_actor"]

LOCAL_ACTOR = Actor(id=f"user:{getpass.getuser()}", name=getpass.getuser(), kind="person", role=Role.admin)


def page_actor() -> Actor:
    """The actor of this browser session."""
    return LOCAL_ACTOR

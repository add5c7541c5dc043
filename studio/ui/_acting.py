"""Who acts on the pages this slice added (the Decide page, the webhook on Settings).

Stand-in until sign-in lands (the ``people`` work gives ``studio/ui/_session.current_actor()``):
the local user of an embedded studio, an admin. Swap ``current_actor`` for that one at merge.
"""

from __future__ import annotations

from core import Actor, Role

__all__ = ["LOCAL_ACTOR", "current_actor"]

LOCAL_ACTOR = Actor(id="user:local", name="the local user", kind="person", role=Role.admin)


def current_actor() -> Actor:
    """The person using this page."""
    return LOCAL_ACTOR

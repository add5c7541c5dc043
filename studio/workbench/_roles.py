"""Who may do a use case: the role check every use case makes, said the workbench's way.

Use cases that take a ``Workbench`` act as ``bench.actor`` (the UI sets it to whoever is signed
in; the CLI and a Python caller leave the local user) and refuse with an ``Outcome`` error,
so a page shows one clear line; use cases that take only the services take ``actor=`` and raise
``core.Forbidden``, which the review API answers with 403 and the MCP server as a tool error.
"""

from __future__ import annotations

from core import Actor, Forbidden, Role, require

from ._bench import Outcome

__all__ = ["refused_for_role"]


def refused_for_role(actor: Actor, out: Outcome, role: Role, doing: str) -> bool:
    """True (and ``out`` says why) when ``actor`` lacks ``role`` for ``doing``."""
    try:
        require(actor, role, doing)
    except Forbidden as exc:
        out.say("error", str(exc))
        return True
    return False

"""Scoped approvals (grants): what an approver asks for when approving a waiting step, and the
use cases that list and revoke them (the Settings page, ``GET/DELETE /api/grants``).

``once`` (the default) approves the step alone. ``run`` lets every later step of the same tool in
this run pass, with any arguments. ``always`` lets a step of the same tool with exactly the
approved arguments pass in any run. Each has an expiry (``always``: ``ALWAYS_DAYS`` unless the
approver names another); a revoked grant lets nothing pass from then on.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from core import Actor, Forbidden, Grant, NotFound, PlanStudioError, Role, StepDecision, require

from ._bench import Outcome
from ._services import Services
from ._audit import record

__all__ = ["ALWAYS_DAYS", "GrantOutcome", "GrantRequest", "grant_from_json", "list_grants", "make_grant", "revoke_grant"]

# An ``always`` grant without an expiry named ends after this many days: never forever.
ALWAYS_DAYS = 30
SCOPES = ("once", "run", "always")


@dataclass(frozen=True)
class GrantRequest:
    """The scope an approver asks for with an approval, and when it ends (None: for ``run``,
    with the run; for ``always``, ``ALWAYS_DAYS`` from now)."""

    scope: str = "once"
    expires_at: dt.datetime | None = None


def grant_from_json(value: Any) -> GrantRequest:
    """``"run"`` or ``{"scope": "always", "expires_in_hours": 24}`` as a request; ``ValueError``
    saying what is wrong."""
    if value is None:
        return GrantRequest()
    if isinstance(value, str):
        value = {"scope": value}
    if not isinstance(value, dict):
        raise ValueError("must be a scope (once, run, always) or {\"scope\": ..., \"expires_in_hours\": n}")
    scope = value.get("scope", "once")
    if scope not in SCOPES:
        raise ValueError(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
    hours = value.get("expires_in_hours")
    if hours is None:
        return GrantRequest(scope)
    if isinstance(hours, bool) or not isinstance(hours, (int, float)) or not 0 < hours <= 24 * 366:
        raise ValueError("expires_in_hours must be a number of hours between 0 and 8784")
    return GrantRequest(scope, dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=hours))


def make_grant(services: Services, request: GrantRequest, *, run_id: str, tool: str, approval: StepDecision,
               actor: Actor, channel: str) -> Grant | None:
    """Keep the grant ``request`` asks for, made by ``approval`` (None for ``once``)."""
    if request.scope == "once":
        return None
    now = dt.datetime.now(dt.timezone.utc)
    expires = request.expires_at
    if expires is None and request.scope == "always":
        expires = now + dt.timedelta(days=ALWAYS_DAYS)
    always = request.scope == "always"
    grant = Grant(tool=tool, scope=request.scope, run_id=None if always else run_id,
                  arguments_hash=approval.arguments_hash if always else None,
                  arguments=(approval.arguments if approval.edited else approval.original_arguments) if always else None,
                  granted_by=actor.id, granted_by_name=actor.name, granted_by_kind=actor.kind, channel=channel,
                  created_at=now, expires_at=expires)
    kept = services.store.grants.add(grant)
    record(services, actor, "grant.made", {"run": run_id, "tool": tool},
           {"grant": kept.id, "scope": kept.scope, "arguments_hash": kept.arguments_hash,
            "expires_at": kept.expires_at.isoformat() if kept.expires_at else None}, channel=channel)
    return kept


def list_grants(services: Services, *, actor: Actor, active_only: bool = True) -> list[Grant]:
    """The grants (live ones by default), newest first."""
    require(actor, Role.viewer, "list the grants")
    return services.store.grants.listed(active_only=active_only)


@dataclass
class GrantOutcome(Outcome):
    """What a revocation did; ``refusal`` (``forbidden``, ``not_found``, ``store``) when not."""

    refusal: str = ""


def revoke_grant(services: Services, grant_id: str, *, actor: Actor) -> GrantOutcome:
    """Revoke a grant: from now it lets nothing pass."""
    out = GrantOutcome()
    try:
        require(actor, Role.approver, "revoke a grant")
        grant = services.store.grants.revoke(grant_id, by=actor.id)
        record(services, actor, "grant.revoked", {"tool": grant.tool, "run": grant.run_id or ""},
               {"grant": grant_id, "scope": grant.scope})
    except Forbidden as exc:
        out.refusal = "forbidden"
        return out.say("error", str(exc))  # type: ignore[return-value]
    except NotFound:
        out.refusal = "not_found"
        return out.say("error", f"No grant {grant_id!r}.")  # type: ignore[return-value]
    except PlanStudioError as exc:
        out.refusal = "store"
        return out.say("error", f"Could not revoke the grant: {exc}")  # type: ignore[return-value]
    what = f"every {grant.tool} step of run {grant.run_id}" if grant.scope == "run" else \
        f"{grant.tool} with the arguments approved"
    out.done().say("success", f"Revoked the grant for {what}: such steps ask again.")
    return out

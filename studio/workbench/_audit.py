"""The audit as the interfaces use it: put a thing done on record, read the record back.

    record(services, actor, "review.decided", {"review": review.id, "agent": review.agent},
           {"approve": True, "comment": "ok"}, channel="api")
    page = audit_events(services, actor, audit_filter({"tool": "refund", "since": "2026-11-01"}))
    text = export_csv(page.events)

Writing is the use cases' own (a submitted review, a decision on a review or a waiting step, a
run started and ended: ``core.durable`` writes those); reading needs ``Role.viewer``. Nothing
here changes or deletes an event: the store has no way to (``core.storage.AuditLog``).

"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from core import AuditQueryError, Run
from core.access import Actor, Role, require

from ._services import Services

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import AuditEvent, AuditFilter, AuditPage

__all__ = ["ACTIONS", "AUDIT_FILTERS", "CSV_COLUMNS", "audit_events", "audit_filter", "export_csv",
           "export_json", "record", "record_step_decision"]

# What the studio puts on record (others are added by the slices that do them: grants, policy, people).
ACTIONS = ("review.submitted", "review.decided", "step.decided", "run.started", "run.stopped", "run.resumed",
           "run.ended",
           "grant.made", "grant.revoked", "policy.changed", "person.changed", "token.changed")
# The filters a query takes by name (the API's query parameters, the CLI's options).
AUDIT_FILTERS = ("agent", "person", "actor", "tool", "rule", "action", "run", "review", "since", "until")
CSV_COLUMNS = ("id", "at", "actor_id", "actor_kind", "actor_name", "channel", "action", "run", "review", "plan",
               "step", "tool", "rule", "agent", "detail")
_MAX_FILTER_CHARS = 500


def record(services: Services, actor: Actor, action: str, subject: Mapping[str, object],
           detail: Mapping[str, Any], channel: str = "") -> AuditEvent:
    """Put ``action`` by ``actor`` on ``subject`` (ids: run, review, plan, step, tool, rule,
    agent) on record, with ``detail`` saying why; raises ``StorageError`` when it cannot.
    ``services`` may be the store itself (a use case that holds only the store)."""
    store = getattr(services, "store", services)
    return store.audit.append(actor, action, channel=channel, subject=subject, detail=detail)


def record_step_decision(services: Services, run: Run, step_id: str, *, actor: Actor, channel: str) -> AuditEvent:
    """Put the decision just taken on ``run``'s waiting ``step_id`` on record: approved or not,
    the tool, the hash of the arguments shown, the rule that asked (if one did)."""
    state, step = run.steps[step_id], run.plan.step(step_id)
    decision = state.decision
    ask = getattr(state, "ask", None)
    return record(services, actor, "step.decided",
                  {"run": run.id, "step": step_id, "tool": step.tool, "rule": getattr(ask, "rule", "") or ""},
                  {"approve": decision.approved if decision is not None else None,
                   "arguments_hash": decision.arguments_hash if decision is not None else None,
                   "reason": getattr(ask, "reason", "") or ""}, channel=channel)


def audit_events(services: Services, actor: Actor, filters: AuditFilter | None = None, *, limit: int = 100,
                 cursor: int | None = None) -> AuditPage:
    """A page of the audit, newest first (``Forbidden`` unless ``actor`` is at least a viewer)."""
    require(actor, Role.viewer, "read the audit")
    return services.store.audit.query(filters, limit=limit, cursor=cursor)


def _when(name: str, text: str) -> dt.datetime:
    try:
        value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise AuditQueryError(name, f"{text[:60]!r} is not a time: give ISO 8601, as 2026-11-28 or "
                                    "2026-11-28T14:00:00Z") from None
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)


def audit_filter(given: Mapping[str, object]) -> AuditFilter:
    """An ``AuditFilter`` from text values by name (``AUDIT_FILTERS``; empty ones are left out);
    ``AuditQueryError`` names a filter that is unknown or does not read."""
    from core.storage import AuditFilter

    values: dict[str, Any] = {}
    for name, raw in given.items():
        if raw is None or raw == "":
            continue
        if name not in AUDIT_FILTERS:
            raise AuditQueryError(name, f"is not a filter of the audit; the filters are {', '.join(AUDIT_FILTERS)}")
        if isinstance(raw, dt.datetime) and name in ("since", "until"):
            values[name] = raw if raw.tzinfo is not None else raw.replace(tzinfo=dt.timezone.utc)
            continue
        if not isinstance(raw, str):
            raise AuditQueryError(name, f"must be text, not {type(raw).__name__}")
        if len(raw) > _MAX_FILTER_CHARS:
            raise AuditQueryError(name, f"is {len(raw)} characters long; at most {_MAX_FILTER_CHARS} are taken")
        values[name] = _when(name, raw) if name in ("since", "until") else raw.strip()
    if "since" in values and "until" in values and values["until"] <= values["since"]:
        raise AuditQueryError("until", "must be later than since")
    return AuditFilter(**values)


def _row(event: AuditEvent) -> list[str]:
    subject = event.subject
    return [str(event.id), event.at.isoformat(), event.actor_id, event.actor_kind, event.actor_name, event.channel,
            event.action, *(subject.get(key, "") for key in ("run", "review", "plan", "step", "tool", "rule", "agent")),
            json.dumps(event.detail, ensure_ascii=False, sort_keys=True)]


def _safe_cell(text: str) -> str:
    """A cell a spreadsheet will not run as a formula (CSV injection): text from agents starts
    with ``=``, ``+``, ``-`` or ``@`` as easily as with a letter."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def export_csv(events: Iterable[AuditEvent]) -> str:
    """The events as CSV, one row each under ``CSV_COLUMNS`` (the detail as JSON)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for event in events:
        writer.writerow([_safe_cell(cell) for cell in _row(event)])
    return out.getvalue()


def export_json(events: Iterable[AuditEvent]) -> str:
    """The events as a JSON array, each as the API answers it."""
    return json.dumps([event.as_json() for event in events], ensure_ascii=False, indent=2)

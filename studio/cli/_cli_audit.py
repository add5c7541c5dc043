"""``plan-studio audit``: the audit, newest first, one line per event (``--json``: one JSON
object per line, as ``GET /api/audit`` answers each). Text from agents and tools is printed with
every control character escaped, so an event cannot drive the terminal."""

from __future__ import annotations

import argparse
import json
from typing import Any

from core._errors import CliError

from core import LOCAL_ACTOR

from ..workbench._audit import audit_events, audit_filter
from ..workbench._services import Services

__all__ = ["add_audit_command", "cmd_audit"]

_FILTERS = ("since", "until", "agent", "person", "tool", "rule", "action", "run", "review")
_MAX_LIMIT = 1000


def add_audit_command(commands: Any, common: argparse.ArgumentParser) -> None:
    audit = commands.add_parser("audit", parents=[common], help="print the audit: who did what, when and why")
    audit.add_argument("--since", metavar="TIME", help="from this time on (ISO 8601: 2026-11-28 or 2026-11-28T14:00Z)")
    audit.add_argument("--until", metavar="TIME", help="before this time")
    for name in ("agent", "person", "tool", "rule", "action", "run", "review"):
        audit.add_argument(f"--{name}", metavar=name.upper(), help=f"only events of this {name}")
    audit.add_argument("--limit", type=int, default=100, help=f"at most this many events (default 100, up to {_MAX_LIMIT})")
    audit.add_argument("--json", action="store_true", help="one JSON object per line")


def _plain(text: str) -> str:
    """``text`` on one line, control characters escaped (json's escapes, without the quotes)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def cmd_audit(args: argparse.Namespace, services: Services) -> int:
    from core import AuditQueryError

    if not 1 <= args.limit <= _MAX_LIMIT:
        raise CliError(f"--limit must be from 1 to {_MAX_LIMIT}, not {args.limit}")
    try:
        filters = audit_filter({name: getattr(args, name) for name in _FILTERS})
    except AuditQueryError as exc:
        raise CliError(f"--{exc}") from None
    page = audit_events(services, LOCAL_ACTOR, filters, limit=args.limit)
    for event in page.events:
        if args.json:
            print(json.dumps(event.as_json(), ensure_ascii=False))
            continue
        subject = " ".join(f"{key}={_plain(value)}" for key, value in event.subject.items())
        channel = f" ({_plain(event.channel)})" if event.channel else ""
        print(f"{event.at:%Y-%m-%d %H:%M:%S}  {_plain(event.action):<16}  {_plain(event.actor_id)}{channel}  "
              f"{subject}  {json.dumps(event.detail, ensure_ascii=False, sort_keys=True)}")
    if not page.events and not args.json:
        print("no events")
    return 0

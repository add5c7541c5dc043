"""The Audit page: who did what, when and why, newest first; filtered, paged, exported.

Filters (agent, person, tool, rule, action, time range) go to ``workbench.audit_events``, which
reads one index per filter; a page holds ``PAGE_SIZE`` events and Older / Newer walk the pages by
cursor. Export gives the events the filters keep (up to ``EXPORT_LIMIT``) as CSV or JSON. The
table shows text as text (``st.dataframe`` interprets no markup), whatever an agent put in it.
Nothing on the page changes the audit: there is no way to.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import streamlit as st

from ..workbench._audit import ACTIONS, audit_events, audit_filter, export_csv, export_json
from ..workbench._services import Services
from . import _actions as actions
from ._state import actor
from ._text import md_escape

__all__ = ["AuditKeys", "EXPORT_LIMIT", "PAGE_SIZE", "audit_page"]

PAGE_SIZE = 50
EXPORT_LIMIT = 10_000


class AuditKeys:
    AGENT = "audit_agent"
    PERSON = "audit_person"
    TOOL = "audit_tool"
    RULE = "audit_rule"
    ACTION = "audit_action"
    SINCE = "audit_since"
    UNTIL = "audit_until"
    CURSORS = "audit_cursors"  # the cursors of the pages before this one (Newer goes back one)
    FILTERS = "audit_filters_seen"  # the filters the cursors belong to
    OLDER = "audit_older"
    NEWER = "audit_newer"
    CSV = "audit_export_csv"
    JSON = "audit_export_json"
    TABLE = "audit_table"


def audit_page() -> None:
    services = actions.page_services("Audit", "open the audit")
    if services is None:
        return
    st.caption("Everything submitted, decided, granted, changed and run in this studio, with who did it, "
               "by which channel, and why. Nothing here can be changed or deleted. Also: `GET /api/audit`, "
               "`plan-studio audit`.")
    given = _filters()
    try:
        filters = audit_filter(given)
    except Exception as exc:  # a time range the wrong way round: said, nothing read
        st.error(md_escape(str(exc)))
        return
    seen = json.dumps(given, default=str, sort_keys=True)
    if st.session_state.get(AuditKeys.FILTERS) != seen:  # other filters: back to the newest page
        st.session_state[AuditKeys.FILTERS] = seen
        st.session_state[AuditKeys.CURSORS] = []
    cursors: list[int | None] = st.session_state.setdefault(AuditKeys.CURSORS, [])
    cursor = cursors[-1] if cursors else None
    with actions.shown("read the audit"):
        page = audit_events(services, actor(), filters, limit=PAGE_SIZE, cursor=cursor)
        count = services.store.audit.count(filters)
        _table(page.events, count, len(cursors), filtered=any(value for value in given.values()))
        _paging(cursors, page.next_cursor)
        _exports(services, filters, count)


def _filters() -> dict[str, Any]:
    first, second, third = st.columns(3)
    agent = first.text_input("Agent", key=AuditKeys.AGENT, placeholder="agent name")
    person = second.text_input("Person", key=AuditKeys.PERSON, placeholder="user:alice@example.com")
    tool = third.text_input("Tool", key=AuditKeys.TOOL, placeholder="tool name")
    fourth, fifth, sixth, seventh = st.columns(4)
    rule = fourth.text_input("Rule", key=AuditKeys.RULE, placeholder="rule name")
    action = fifth.selectbox("Action", ["", *ACTIONS], key=AuditKeys.ACTION,
                             format_func=lambda a: a or "any action")
    since = sixth.date_input("From", value=None, key=AuditKeys.SINCE)
    until = seventh.date_input("To (including)", value=None, key=AuditKeys.UNTIL)
    return {"agent": agent, "person": person, "tool": tool, "rule": rule, "action": action,
            "since": _day(since), "until": _day(until, after=True)}


def _day(day: dt.date | None, *, after: bool = False) -> dt.datetime | None:
    if day is None:
        return None
    start = dt.datetime.combine(day, dt.time(), tzinfo=dt.timezone.utc)
    return start + dt.timedelta(days=1) if after else start


def _rows(events: list[Any]) -> list[dict[str, str]]:
    return [{"When (UTC)": f"{e.at:%Y-%m-%d %H:%M:%S}", "Action": e.action, "Who": e.actor_id,
             "Kind": e.actor_kind, "Channel": e.channel,
             "Subject": " ".join(f"{k}={v}" for k, v in e.subject.items()),
             "Why": json.dumps(e.detail, ensure_ascii=False, sort_keys=True)} for e in events]


def _table(events: list[Any], count: int, before: int, *, filtered: bool) -> None:
    if not count:
        st.info("No events match these filters." if filtered else "Nothing on record yet.")
        return
    first = before * PAGE_SIZE + 1
    st.caption(f"Events {first}–{first + len(events) - 1} of {count}, newest first")
    st.dataframe(_rows(events), key=AuditKeys.TABLE, hide_index=True, use_container_width=True)


def _paging(cursors: list[int | None], next_cursor: int | None) -> None:
    newer, older, _rest = st.columns([1, 1, 6])
    if newer.button("Newer", key=AuditKeys.NEWER, disabled=not cursors):
        cursors.pop()
        st.rerun()
    if older.button("Older", key=AuditKeys.OLDER, disabled=next_cursor is None):
        cursors.append(next_cursor)
        st.rerun()


def _exported(services: Services, filters: Any) -> list[Any]:
    events, cursor = [], None
    while len(events) < EXPORT_LIMIT:
        page = audit_events(services, actor(), filters, limit=1000, cursor=cursor)
        events.extend(page.events)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    return events[:EXPORT_LIMIT]


def _exports(services: Services, filters: Any, count: int) -> None:
    if not count:
        return
    events = _exported(services, filters)
    note = f" (the newest {EXPORT_LIMIT})" if count > EXPORT_LIMIT else ""
    csv_column, json_column, _rest = st.columns([1, 1, 4])
    csv_column.download_button(f"Export CSV{note}", export_csv(events), file_name="audit.csv", mime="text/csv",
                               key=AuditKeys.CSV)
    json_column.download_button(f"Export JSON{note}", export_json(events), file_name="audit.json",
                                mime="application/json", key=AuditKeys.JSON)

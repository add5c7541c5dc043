"""Issue 27, item 5: the Audit page. Events newest first in a table (text shown as text),
filtered by tool, person and action, paged with Older / Newer, exported as CSV and JSON of what
the filters keep."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

from apptest_helpers import no_failures, texts
from core import Settings
from core.access import Actor, Role
from core.storage import PlanStore
from studio.ui._audit_page import PAGE_SIZE, AuditKeys

AUDIT = "../pages/audit.py"
ALICE = Actor(id="user:alice", name="Alice", kind="person", role=Role.approver)
BOT = Actor(id="agent:bot", name="bot", kind="agent", role=Role.reviewer)


@pytest.fixture
def exported(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What each download button of the page would hand the browser, by its key."""
    given: dict[str, Any] = {}
    original = DeltaGenerator.download_button

    def keep(self: DeltaGenerator, label: str, data: Any, *args: Any, **kwargs: Any) -> Any:
        given[kwargs.get("key")] = data
        return original(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", keep)
    return given


def _table(at: AppTest) -> list[dict[str, Any]]:
    [frame] = at.dataframe
    return frame.value.to_dict("records")


def test_the_audit_page_filters_pages_and_exports(app: AppTest, exported: dict[str, Any]) -> None:
    with PlanStore(Settings().store_path) as store:
        for number in range(PAGE_SIZE + 10):
            store.audit.append(ALICE, "step.decided", channel="page",
                               subject={"run": "u1", "step": f"s{number}", "tool": "refund"}, detail={"n": number})
        store.audit.append(BOT, "review.submitted", channel="api", subject={"review": "r1"},
                           detail={"goal": "<script>alert(1)</script> **bold** =cmd()"})
    app.switch_page(AUDIT).run()
    no_failures(app)
    rows = _table(app)
    assert len(rows) == PAGE_SIZE and f"Events 1–{PAGE_SIZE} of {PAGE_SIZE + 11}, newest first" in texts(app)
    assert rows[0]["Action"] == "review.submitted" and "<script>alert(1)</script> **bold**" in rows[0]["Why"]
    app.button(key=AuditKeys.OLDER).click().run()
    no_failures(app)
    assert len(_table(app)) == 11 and f"Events {PAGE_SIZE + 1}–{PAGE_SIZE + 11}" in texts(app)
    assert app.button(key=AuditKeys.OLDER).disabled
    app.button(key=AuditKeys.NEWER).click().run()
    assert _table(app)[0]["Action"] == "review.submitted"
    # Filters: by tool, then by person and action; a filter brings back the newest page.
    app.text_input(key=AuditKeys.TOOL).input("refund").run()
    no_failures(app)
    assert {r["Action"] for r in _table(app)} == {"step.decided"} and f"of {PAGE_SIZE + 10}" in texts(app)
    app.text_input(key=AuditKeys.TOOL).input("").run()
    app.text_input(key=AuditKeys.PERSON).input("user:alice").run()
    app.selectbox(key=AuditKeys.ACTION).set_value("review.submitted").run()
    no_failures(app)
    assert "No events match these filters." in texts(app) and not app.dataframe
    app.text_input(key=AuditKeys.PERSON).input("").run()
    no_failures(app)
    # Export: what the filters keep (here: the one submission), as CSV and JSON.
    [row] = list(csv.DictReader(io.StringIO(exported[AuditKeys.CSV])))
    assert (row["action"], row["actor_id"], row["review"]) == ("review.submitted", "agent:bot", "r1")
    [event] = json.loads(exported[AuditKeys.JSON])
    assert event["detail"]["goal"].startswith("<script>") and event["actor"]["kind"] == "agent"
    app.selectbox(key=AuditKeys.ACTION).set_value("").run()
    assert len(list(csv.DictReader(io.StringIO(exported[AuditKeys.CSV])))) == PAGE_SIZE + 11


def test_an_empty_audit_says_so(app: AppTest) -> None:
    app.switch_page(AUDIT).run()
    no_failures(app)
    assert "Nothing on record yet." in texts(app) and not app.download_button

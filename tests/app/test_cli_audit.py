"""Issue 27, item 5 (CLI): ``plan-studio audit`` prints what a run put on record, newest first,
filtered; ``--json`` one object per line; a bad time is one line and exit 2; an agent's text
cannot drive the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import Settings
from core.access import Actor, Role
from core.storage import PlanStore
from studio.cli._main import main

pytestmark = pytest.mark.usefixtures("stop_durable_runs")
PLAN = {"steps": [{"tool": "facilities_list", "params": {"location": "Berlin"}}]}


def test_a_run_is_on_record_and_the_audit_command_prints_it(tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    options = ["--data-dir", str(data), "--today", "2025-10-12"]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN), encoding="utf-8")
    assert main(["run", str(plan), *options]) == 0
    capsys.readouterr()
    assert main(["audit", *options]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines] == ["run.ended", "run.started"]
    assert all("user:local (cli)" in line for line in lines)
    assert main(["audit", "--action", "run.ended", "--json", *options]) == 0
    [event] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert event["detail"]["status"] == "succeeded" and event["channel"] == "cli"
    with PlanStore(Settings(data_dir=data).store_path) as store:
        store.audit.append(Actor(id="agent:evil\x1b[2J", name="evil", kind="agent", role=Role.reviewer),
                           "review.submitted", detail={"goal": "\x1b]0;owned\x07"})
    assert main(["audit", "--limit", "1", *options]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\u001b[2J" in out
    assert main(["audit", "--since", "last week", *options]) == 2
    assert capsys.readouterr().err == ("plan-studio: error: --since: 'last week' is not a time: give ISO 8601, "
                                       "as 2026-11-28 or 2026-11-28T14:00:00Z\n")
    assert main(["audit", "--since", "2099-01-01", *options]) == 0
    assert capsys.readouterr().out == "no events\n"

"""``plan-studio run FILE --rehearse``: pins from a file, a stored real run as the recording,
refused naming the write without a result, every step's line saying where its result came from,
and ``runs`` marking the rehearsal. The tools file's tools leave a mark in a file when called: a
rehearsal leaves none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.storage import PlanStore
from studio.cli._main import main

pytestmark = pytest.mark.usefixtures("stop_durable_runs")

TOOLS = '''
from pathlib import Path

from pydantic import BaseModel

from core import tool

CALLS = Path(__file__).with_name("calls.txt")


class City(BaseModel):
    name: str
    people: int


@tool(read_only=True)
def read_city(city: str) -> City:
    """Read what is known of a city."""
    with CALLS.open("a") as calls:
        calls.write("read_city\\n")
    return City(name=city, people=3)


def write_note(city: str, note: str) -> dict:
    """Write a note on a city."""
    with CALLS.open("a") as calls:
        calls.write("write_note\\n")
    return {"written": note}
'''

PLAN = {"goal": "note a city", "steps": [
    {"id": "read", "tool": "read_city", "params": {"city": "Rome"}},
    {"id": "note", "tool": "write_note", "params": {"city": "${steps.read.name}", "note": "seen"},
     "depends_on": ["read"]}]}


def test_a_rehearsal_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "plan.json").write_text(json.dumps(PLAN), encoding="utf-8")
    (tmp_path / "pins.json").write_text(json.dumps({"note": {"written": "pinned"}}), encoding="utf-8")
    calls = tmp_path / "calls.txt"
    options = ["--data-dir", str(tmp_path / "data"), "--tools", str(tmp_path / "tools.py")]

    def cli(*argv: str) -> tuple[int, str, str]:
        status = main([*argv, *options])
        out, err = capsys.readouterr()
        return status, out, err

    status, out, err = cli("run", str(tmp_path / "plan.json"), "--rehearse")
    assert status == 1 and out == ""
    assert "not rehearsed: 1 step of tools that may write has no recorded or pinned result: step 1 (write_note)" in err
    status, _out, err = cli("run", str(tmp_path / "plan.json"), "--pins", str(tmp_path / "pins.json"))
    assert status == 2 and "--pins and --recording go with --rehearse" in err

    status, out, err = cli("run", str(tmp_path / "plan.json"), "--rehearse", "--pins", str(tmp_path / "pins.json"))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].endswith("[rehearsal · made from the output schema]")
    assert lines[1].endswith("[rehearsal · pinned result]")
    assert lines[2].startswith("rehearsal succeeded: 2 succeeded") and "no tool was called" in lines[2]
    assert not calls.exists()

    status, out, err = cli("run", str(tmp_path / "plan.json"), "--approve-writes")  # a real run
    assert status == 0, err
    assert calls.read_text().split() == ["read_city", "write_note"]
    with PlanStore(tmp_path / "data" / "studio.sqlite3") as store:
        real = next(r for r in store.records.recent() if not r.rehearsal)
    status, out, err = cli("run", str(tmp_path / "plan.json"), "--rehearse", "--recording", real.id)
    assert status == 0, err
    assert out.splitlines()[1].endswith(f"[rehearsal · recorded in run {real.id}]")
    assert calls.read_text().split() == ["read_city", "write_note"], "a rehearsal called a real tool"
    status, out, err = cli("run", str(tmp_path / "plan.json"), "--rehearse", "--recording", "nope")
    assert status == 1 and "not rehearsed: no run with id 'nope'" in err

    status, out, _err = cli("runs")
    marked = [line.endswith("(rehearsal)") for line in out.splitlines()]
    assert marked == [True, False, True]  # newest first: the recorded rehearsal, the real run, the pinned one

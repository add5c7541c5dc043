"""Issue 17, item 5 (CLI): ``plan-studio run`` and a step that waits for a person."""

from __future__ import annotations

import io
import json

import pytest

from core import Executor, RunLimits, StepStatus
from core.formats import plan_from_seed
from studio.cli._cli_approval import approve_on_terminal
from studio.cli._main import main

TOOLS = '''
import pathlib

from core import READ_ONLY

def read_name(key: str) -> str:
    """Read a name.

    Args:
        key: Which name.
    """
    return key.upper()

def save_note(text: str) -> str:
    """Save a note to notes.txt beside this file.

    Args:
        text: The note.
    """
    with open(pathlib.Path(__file__).with_name("notes.txt"), "a") as f:
        f.write(text + "\\n")
    return "saved"

def register(registry):
    registry.register(read_name, effects=READ_ONLY)
    registry.register(save_note, effects="additive")
'''


@pytest.fixture
def writing_plan(tmp_path, monkeypatch):
    monkeypatch.delenv("PLAN_STUDIO_APPROVE_WRITES")  # the default: on
    (tmp_path / "note_tools.py").write_text(TOOLS, encoding="utf-8")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": [{"tool": "read_name", "params": {"key": "ann"}},
                                          {"tool": "save_note", "params": {"text": "hi ${step[0]}"}}]}),
                    encoding="utf-8")
    return plan, ["--tools", str(tmp_path / "note_tools.py"), "--data-dir", str(tmp_path / "data")]


def test_without_a_terminal_run_refuses_a_writing_step_naming_it_and_runs_nothing(
        writing_plan, tmp_path, capsys, monkeypatch):
    plan, options = writing_plan
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    status = main(["run", str(plan), *options])
    err = capsys.readouterr().err
    assert status == 1
    assert "step 1 (save_note): save_note is not read-only (writes, additive)" in err
    assert "--approve-writes" in err and "Traceback" not in err
    assert not (tmp_path / "notes.txt").exists()


def test_approve_writes_runs_the_writing_step(writing_plan, tmp_path, capsys, monkeypatch):
    plan, options = writing_plan
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    status = main(["run", str(plan), "--approve-writes", *options])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "step 1 (save_note): succeeded" in out
    assert (tmp_path / "notes.txt").read_text() == "hi ANN\n"


def test_on_a_terminal_a_rejected_step_and_its_dependants_are_reported(writing_plan, tmp_path, capsys, monkeypatch):
    plan, options = writing_plan
    plan.write_text(json.dumps({"steps": [{"tool": "save_note", "params": {"text": "a"}},
                                          {"tool": "read_name", "params": {"key": "${step[0]}"}}]}), encoding="utf-8")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal("n\n"))
    status = main(["run", str(plan), *options])
    out = capsys.readouterr().out
    assert status == 1
    assert "step 0 (save_note): rejected: a person said no before it ran" in out
    assert "step 1 (read_name): skipped: depends on step 0 (save_note), which did not succeed" in out
    assert not (tmp_path / "notes.txt").exists()


def test_on_a_terminal_each_waiting_step_is_shown_with_its_resolved_arguments_escaped(tmp_path):
    registry_file = tmp_path / "t.py"
    registry_file.write_text(TOOLS, encoding="utf-8")
    from tools import load_tools
    from core import Settings
    registry, _ = load_tools(Settings(tools=[str(registry_file)], data_dir=tmp_path / "d"))
    plan = plan_from_seed({"steps": [{"tool": "save_note", "params": {"text": "evil \x1b[2J"}},
                                     {"tool": "save_note", "params": {"text": "no"}}]})
    executor = Executor(registry, limits=RunLimits(approve_writes=True))
    run = executor.start(plan)
    list(executor.run_all(run))
    out = io.StringIO()
    answers = iter(["y", "n"])
    assert approve_on_terminal(run, registry, ask=lambda prompt: next(answers), out=out) == 2
    shown = out.getvalue()
    assert "step 0 (save_note) waits: save_note (writes, additive)" in shown
    assert '{"text": "evil \\u001b[2J"}' in shown and "\x1b" not in shown
    list(executor.run_all(run))
    assert [run.steps[s.id].status for s in plan.steps] == [StepStatus.succeeded, StepStatus.rejected]
    assert (tmp_path / "notes.txt").read_text() == "evil \x1b[2J\n"


def test_on_a_terminal_an_approved_step_runs_in_the_recorded_run_which_keeps_the_decision(
        writing_plan, tmp_path, capsys, monkeypatch):
    from core.storage import PlanStore

    plan, options = writing_plan

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal("y\n"))
    status = main(["run", str(plan), *options])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "step 1 (save_note): succeeded" in out and "waiting" not in out.split("run ")[0]
    assert (tmp_path / "notes.txt").read_text() == "hi ANN\n"
    with PlanStore(tmp_path / "data" / "studio.sqlite3") as store:
        [listing] = store.records.recent()
        run = store.load_run(listing.id)
    assert run.status == "succeeded"
    save = run.steps[run.plan.steps[1].id]
    assert save.decision is not None and save.decision.approved and save.decision.by == "cli"


def test_a_rerun_of_a_writing_step_asks_as_run_does(writing_plan, tmp_path, capsys, monkeypatch):
    """Without a terminal a rerun whose writing step would wait is refused before any run is
    made; with ``--approve-writes`` it runs; a run left waiting is finished by ``resume``."""
    from core.storage import PlanStore

    plan, options = writing_plan

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal("n\n"))  # the first run: its note rejected
    assert main(["run", str(plan), *options]) == 1
    capsys.readouterr()
    with PlanStore(tmp_path / "data" / "studio.sqlite3") as store:
        [first] = store.records.recent()
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["rerun", first.id, "--from", "1", *options]) == 1
    said = capsys.readouterr()
    assert "run again  step 1 (save_note) [s2]  (writes: its effect happens again)" in said.out
    assert "step 1 (save_note): save_note is not read-only (writes, additive)" in said.err
    with PlanStore(tmp_path / "data" / "studio.sqlite3") as store:
        assert [r.id for r in store.records.recent()] == [first.id]  # nothing made
    assert main(["rerun", first.id, "--from", "1", "--approve-writes", *options]) == 0
    assert "step 1 (save_note): succeeded" in capsys.readouterr().out
    assert (tmp_path / "notes.txt").read_text() == "hi ANN\n"
    with PlanStore(tmp_path / "data" / "studio.sqlite3") as store:
        rerun = store.load_run(store.records.recent()[0].id)
    save = rerun.steps[rerun.plan.steps[1].id]
    assert save.decision is not None and save.decision.approved and save.decision.by == "cli"

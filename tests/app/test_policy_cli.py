"""Issue 27, item 2 (CLI): ``plan-studio policy check FILE`` and ``plan-studio run --policy FILE``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from studio.cli._main import main

GOOD = """\
[[rules]]
name = "lists are kept"
tool = ["deleteList", "removeItem"]
outcome = "deny"
reason = "nothing is removed"

[[rules]]
name = "milk needs two"
tool = "addItem"
when = 'item == "milk"'
outcome = "ask"
approvers = 2
roles = ["approver"]

[[rules]]
name = "lists pass"
group = "lists"
outcome = "allow"
"""


@pytest.fixture
def options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.delenv("PLAN_STUDIO_POLICY", raising=False)
    monkeypatch.delenv("PLAN_STUDIO_APPROVE_WRITES", raising=False)  # the default: on
    return ["--data-dir", str(tmp_path / "data")]


def test_policy_check_prints_the_rules_in_order(tmp_path: Path, options: list[str], capsys) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(GOOD)
    assert main(["policy", "check", str(policy), *options]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{policy}: 3 rules, the first that matches a step decides",
                   "1. lists are kept: tool deleteList | removeItem -> deny (nothing is removed)",
                   '2. milk needs two: tool addItem when item == "milk" -> ask 2 approvers (roles approver)',
                   "3. lists pass: group lists -> allow",
                   "otherwise: read-only steps run; any other step asks 1 approver"]


@pytest.mark.parametrize("text, said", [
    ('[[rules]]\nname = "x"\noutcome = "deny"\nwhen = "amount >"\n', "line 4: rule 'x': when: expected a value"),
    ('[[rules]]\nname = "x"\n\noutcome = = "deny"\n', "line 4: not TOML"),
    ('[[rules]]\nname = "x"\ntool = "addItem"\nwhen = "amount > 1"\noutcome = "deny"\n',
     "line 4: rule 'x': when: names the argument 'amount', which no tool this rule matches has (addItem)"),
])
def test_policy_check_names_the_line_and_exits_2(tmp_path: Path, options: list[str], capsys, text: str,
                                                 said: str) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(text)
    assert main(["policy", "check", str(policy), *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and said in captured.err and "Traceback" not in captured.err


def test_run_with_a_policy_refuses_a_denied_plan_and_runs_one_it_allows(tmp_path: Path, options: list[str],
                                                                        capsys, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # no terminal: nobody to ask
    policy = tmp_path / "policy.toml"
    policy.write_text(GOOD)
    denied = tmp_path / "denied.json"
    denied.write_text(json.dumps({"goal": "g", "steps": [{"id": "d", "tool": "deleteList", "params": {"list": "x"}}]}))
    assert main(["run", str(denied), "--policy", str(policy), "--approve-writes", *options]) == 1
    err = capsys.readouterr().err
    assert "not run: the policy denies 1 step" in err and "step 0 (deleteList): denied by rule lists are kept" in err
    allowed = tmp_path / "allowed.json"
    allowed.write_text(json.dumps({"goal": "g", "steps": [
        {"id": "c", "tool": "createList", "params": {"list": "shop"}},
        {"id": "a", "tool": "addItem", "params": {"list": "shop", "item": "bread"}, "depends_on": ["c"]}]}))
    # writes, but the policy allows them: nothing waits, so no terminal is needed
    assert main(["run", str(allowed), "--policy", str(policy), *options]) == 0, capsys.readouterr().err
    assert "run succeeded" in capsys.readouterr().out
    asking = tmp_path / "asking.json"
    asking.write_text(json.dumps({"goal": "g", "steps": [
        {"id": "a", "tool": "addItem", "params": {"list": "shop", "item": "milk"}}]}))
    assert main(["run", str(asking), "--policy", str(policy), *options]) == 1
    assert "step 0 (addItem): rule milk needs two asks" in capsys.readouterr().err


def test_run_with_a_broken_policy_runs_nothing(tmp_path: Path, options: list[str], capsys) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("[[rules]\n")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"goal": "g", "steps": [{"id": "c", "tool": "createList", "params": {"list": "s"}}]}))
    assert main(["run", str(plan), "--policy", str(policy), "--approve-writes", *options]) == 2
    err = capsys.readouterr().err
    assert "line 1: not TOML" in err and "nothing runs under another policy than the one asked for" in err

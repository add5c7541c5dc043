"""docs/policy.md's example policies are the ones the studio reads: the TOML and the YAML say the
same, every argument their conditions name is one the demo tools have, and they decide as the page says."""

from __future__ import annotations

import re
from pathlib import Path

from core import Settings
from core.policy import check_against, parse_policy
from studio.workbench._services import build_services

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "policy.md").read_text(encoding="utf-8")


def _block(language: str) -> str:
    [text] = re.findall(rf"^```{language}\n(.*?)^```", PAGE, re.M | re.S)
    return text


def test_the_pages_policy_reads_against_the_demo_tools_and_decides_as_it_says(tmp_path: Path) -> None:
    registry = build_services(Settings(data_dir=tmp_path / "data")).registry
    toml, yaml = parse_policy(_block("toml")), parse_policy(_block("yaml"), "yaml")
    check_against(toml, registry)
    check_against(yaml, registry)
    assert [r.name for r in toml.rules] == ["no deletes", "milk needs two", "reads pass",
                                            "the list bot may write lists"]
    assert [(r.name, r.tool, r.outcome, r.approvers, r.roles, r.when and r.when.text) for r in yaml.rules] == \
        [(r.name, r.tool, r.outcome, r.approvers, r.roles, r.when and r.when.text) for r in toml.rules[:2]]
    add, delete = registry.get("addItem"), registry.get("deleteList")
    assert toml.decide(delete, {"list": "x"}).said == "denied by rule no deletes: an agent never removes anything"
    milk = toml.decide(add, {"list": "home", "item": "milk"})
    assert (milk.outcome, milk.approvers, milk.roles) == ("ask", 2, ("approver",))
    assert toml.decide(registry.get("showList"), {"list": "home"}).rule == "reads pass"
    assert toml.decide(add, {"list": "home", "item": "tea"}).rule == ""  # the default: it writes, it asks

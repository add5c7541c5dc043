"""A policy read from its file (TOML or YAML), every mistake named by line and rule.

    # policy.toml
    [[rules]]
    name = "no deletes"
    tool = "delete_*"
    outcome = "deny"
    reason = "nothing is deleted by an agent"

The YAML form is the same under a ``rules:`` list. A file that does not parse, a rule with an
unknown field, outcome, effect or role, and (``check_against``) a condition naming an argument
none of the rule's tools has are each a ``PolicyError`` naming the line and the rule; nothing is
half-read, so the policy in force stays as it was. YAML aliases are refused (a few lines of
them expand to millions of nodes).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from .._errors import PolicyError
from ..access import Role
from ..tooling._registry import ToolRegistry
from ._expression import parse_condition
from ._rules import EFFECT_NAMES, OUTCOMES, Policy, Rule

__all__ = ["MAX_POLICY_CHARS", "MAX_RULES", "RULE_FIELDS", "check_against", "load_policy", "parse_policy",
           "policy_format"]

MAX_POLICY_CHARS = 256_000
MAX_RULES = 500
MAX_APPROVERS = 20
RULE_FIELDS = ("name", "tool", "group", "effect", "agent", "when", "outcome", "reason", "approvers", "roles",
               "groups")
_LIST_FIELDS = ("tool", "group", "effect", "agent", "roles", "groups")
_MAX_TEXT = 500
_TOML_LINE = re.compile(r"at line (\d+)")
_TOML_HEADER = re.compile(r"^\s*\[\[\s*rules\s*\]\]")


def policy_format(path: Path | str) -> str:
    """"yaml" for a ``.yaml``/``.yml`` file, else "toml"."""
    return "yaml" if str(path).lower().endswith((".yaml", ".yml")) else "toml"


def load_policy(path: Path | str) -> Policy:
    """The policy in the file at ``path``; ``PolicyError`` when it cannot be read or is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"{path}: cannot be read: {exc}") from None
    return parse_policy(text, policy_format(path), source=str(path))


def parse_policy(text: str, fmt: str = "toml", *, source: str = "") -> Policy:
    """The policy ``text`` (in ``fmt``, "toml" or "yaml") says."""
    if len(text) > MAX_POLICY_CHARS:
        raise PolicyError(f"the policy is {len(text)} characters long; at most {MAX_POLICY_CHARS} are read")
    data, lines = (_yaml(text) if fmt == "yaml" else _toml(text))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise PolicyError(f"the policy must be a table with a list of rules, not {type(data).__name__}", line=1)
    unknown = sorted(set(data) - {"rules"})
    if unknown:
        raise PolicyError(f"{unknown[0]!r} is not part of a policy; a policy is a list of rules under 'rules'")
    raw = data.get("rules", [])
    if not isinstance(raw, list):
        raise PolicyError(f"'rules' must be a list of rules, not {type(raw).__name__}")
    if len(raw) > MAX_RULES:
        raise PolicyError(f"the policy has {len(raw)} rules; at most {MAX_RULES}")
    rules: list[Rule] = []
    for index, item in enumerate(raw):
        line, field_lines = lines[index] if index < len(lines) else (None, {})
        rule = _rule(item, index, line, field_lines)
        if any(r.name == rule.name for r in rules):
            raise PolicyError("another rule has this name; each rule's name is its own", rule=rule.name, line=line)
        rules.append(rule)
    return Policy(tuple(rules), source=source or "the policy", text=text)


def _toml(text: str) -> tuple[Any, list[tuple[int | None, dict[str, int]]]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        raise PolicyError(f"not TOML: {exc}", line=int(found.group(1)) if found else None) from None
    lines: list[tuple[int | None, dict[str, int]]] = []
    field_pattern = re.compile(r"^\s*(%s)\s*=" % "|".join(RULE_FIELDS + ("[A-Za-z_][\\w-]*",)))
    in_rule = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _TOML_HEADER.match(line):
            lines.append((number, {}))
            in_rule = True
        elif line.lstrip().startswith("["):
            in_rule = False  # another table: the rule's fields end
        elif in_rule:
            m = field_pattern.match(line)
            if m:
                lines[-1][1].setdefault(m.group(1), number)
    return data, lines


def _yaml(text: str) -> tuple[Any, list[tuple[int | None, dict[str, int]]]]:
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                raise PolicyError("YAML aliases (*name) are not read in a policy: write the value out",
                                  line=mark.line + 1 if mark else None)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise PolicyError(f"not YAML: {exc.problem or exc}", line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise PolicyError(f"not YAML: {exc}") from None
    lines: list[tuple[int | None, dict[str, int]]] = []
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if getattr(key, "value", None) == "rules" and isinstance(value, yaml.SequenceNode):
                for item in value.value:
                    fields = {k.value: k.start_mark.line + 1 for k, _v in item.value} \
                        if isinstance(item, yaml.MappingNode) else {}
                    lines.append((item.start_mark.line + 1, fields))
    return data, lines


def _rule(item: Any, index: int, line: int | None, field_lines: dict[str, int]) -> Rule:
    where = f"rule {index + 1}"
    if not isinstance(item, dict):
        raise PolicyError(f"{where} must be a table of fields, not {type(item).__name__}", line=line)
    name = item.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise PolicyError(f"{where}: name: every rule needs a name (text, at most 100 characters)",
                          line=field_lines.get("name", line))
    name = name.strip()

    def bad(field: str, message: str) -> PolicyError:
        return PolicyError(f"{field}: {message}", rule=name, line=field_lines.get(field, line))

    for key in item:
        if key not in RULE_FIELDS:
            raise bad(str(key), f"is not a field of a rule; the fields are {', '.join(RULE_FIELDS)}")
    lists: dict[str, tuple[str, ...]] = {}
    for key in _LIST_FIELDS:
        value = item.get(key, [])
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() and len(v) <= _MAX_TEXT
                                                  for v in value) or len(value) > 100:
            raise bad(key, "must be a pattern or a list of them (text)")
        lists[key] = tuple(v.strip() for v in value)
    for effect in lists["effect"]:
        if effect not in EFFECT_NAMES:
            raise bad("effect", f"unknown effect {effect!r}; one of {', '.join(EFFECT_NAMES)}")
    for role in lists["roles"]:
        try:
            Role.parse(role)
        except ValueError as exc:
            raise bad("roles", str(exc)) from None
    outcome = item.get("outcome")
    if outcome not in OUTCOMES:
        raise bad("outcome", f"must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
    approvers = item.get("approvers", 1)
    if outcome != "ask" and any(k in item for k in ("approvers", "roles", "groups")):
        raise bad(next(k for k in ("approvers", "roles", "groups") if k in item),
                  "only a rule whose outcome is ask names approvers, roles or groups")
    if isinstance(approvers, bool) or not isinstance(approvers, int) or not 1 <= approvers <= MAX_APPROVERS:
        raise bad("approvers", f"must be a whole number from 1 to {MAX_APPROVERS}, not {approvers!r}")
    reason = item.get("reason", "")
    if not isinstance(reason, str) or len(reason) > _MAX_TEXT:
        raise bad("reason", f"must be text of at most {_MAX_TEXT} characters")
    when = None
    if "when" in item:
        when = parse_condition(item["when"], rule=name, line=field_lines.get("when", line))
    return Rule(name=name, outcome=outcome, tool=lists["tool"], group=lists["group"], effect=lists["effect"],
                agent=lists["agent"], when=when, reason=reason.strip(), approvers=approvers,
                roles=tuple(Role.parse(r).name for r in lists["roles"]), groups=lists["groups"], line=line,
                when_line=field_lines.get("when", line))


def _has_path(schema: Any, parts: tuple[str | int, ...]) -> bool:
    """Whether an input schema can hold ``parts``: each name a property where properties are
    listed and no others are said to be allowed; an index where an array is."""
    for part in parts:
        if not isinstance(schema, dict):
            return True  # nothing said: anything may be there
        if isinstance(part, int):
            if schema.get("type") not in (None, "array"):
                return False
            schema = schema.get("items", {})
            continue
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return schema.get("type") in (None, "object")
        if part not in properties:
            if schema.get("additionalProperties") not in (None, False) or schema.get("patternProperties"):
                return True  # other names are allowed
            return False
        schema = properties[part]
    return True


def check_against(policy: Policy, registry: ToolRegistry) -> None:
    """``PolicyError`` for a rule whose condition names an argument that none of the tools it
    matches (by tool, group and effect) has, naming the rule, its line and the argument."""
    for rule in policy.rules:
        if rule.when is None:
            continue
        tools = [t for t in registry if _selects_tool(rule, t)]
        if not tools:
            continue
        for parts in rule.when.paths:
            if not any(_has_path(t.parameters, parts) for t in tools):
                path = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(parts))
                names = ", ".join(sorted(t.name for t in tools)[:8]) + (", ..." if len(tools) > 8 else "")
                raise PolicyError(f"when: names the argument {path!r}, which no tool this rule matches has "
                                  f"({names})", rule=rule.name, line=rule.when_line or rule.line)


def _selects_tool(rule: Rule, tool: Any) -> bool:
    """``rule.selects`` without its agent patterns (checked against tools, whoever submits)."""
    return replace(rule, agent=()).selects(tool, None)

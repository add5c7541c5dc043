"""Policy as data (issue 27, item 2): the condition language (bounded, no eval), rules matched
first to last, files read with every mistake named by its line and rule, and the plan check."""

from __future__ import annotations

import time

import pytest

from core import ADDITIVE, DESTRUCTIVE, IDEMPOTENT, READ_ONLY, Actor, Effects, Plan, PolicyDenied, PolicyError, Role, \
    Step, Tool, ToolDefinition, ToolRegistry
from core import UNKNOWN as UNKNOWN_EFFECTS
from core.policy import (UNKNOWN, Policy, ReplayCase, check_against, check_plan, glob_match, literal_arguments,
                         parse_condition, parse_policy, replay)
from core.policy._syntax import MAX_DEPTH, MAX_TOKENS


def holds(text: str, arguments: dict | None) -> object:
    return parse_condition(text).holds(arguments)


# -- the language --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, arguments, expected", [
    ("amount > 100", {"amount": 150}, True),
    ("amount > 100", {"amount": 100}, False),
    ("amount >= 100 and currency == 'EUR'", {"amount": 100, "currency": "EUR"}, True),
    ("amount > 100", {"amount": "150"}, False),  # ordering only between two numbers or two strings
    ("amount > 100", {}, False),  # an argument the step lacks is null
    ("missing == null", {}, True),
    ("to.domain == \"example.com\"", {"to": {"domain": "example.com"}}, True),
    ("items[1].price < 5", {"items": [{"price": 9}, {"price": 3}]}, True),
    ("items[7].price < 5", {"items": []}, False),
    ("not endswith(to, \"@example.com\")", {"to": "eve@evil.test"}, True),
    ("startswith(lower(name), \"adm\")", {"name": "ADMIN"}, True),
    ("tier in [\"gold\", \"platinum\"]", {"tier": "gold"}, True),
    ("tier not in [\"gold\", \"platinum\"]", {"tier": "gold"}, False),
    ("\"@\" in to", {"to": "a@b"}, True),
    ("contains(tags, \"urgent\") or len(tags) > 3", {"tags": ["urgent"]}, True),
    ("matches(ref, \"^INV-[0-9]+$\")", {"ref": "INV-042"}, True),
    ("matches(ref, \"^INV-[0-9]+$\")", {"ref": 42}, False),
    ("(a or b) and not c", {"a": False, "b": True, "c": False}, True),
    ("flag", {"flag": "yes"}, False),  # only true is true
    ("amount == 1.0", {"amount": 1}, True),
    ("flag == 1", {"flag": True}, False),  # a boolean is no number
    ("amount > -5", {"amount": 0}, True),
])
def test_the_language(text: str, arguments: dict, expected: bool) -> None:
    assert holds(text, arguments) is expected


def test_values_known_only_at_run_time_are_three_valued() -> None:
    args = {"amount": UNKNOWN, "to": "x@example.com"}
    assert holds("amount > 100", args) is UNKNOWN
    assert holds("amount > 100 and endswith(to, \"@other.test\")", args) is False  # false and ? = false
    assert holds("amount > 100 or endswith(to, \"@example.com\")", args) is True  # ? or true = true
    assert holds("not (amount > 100)", args) is UNKNOWN
    assert holds("amount > 100", None) is UNKNOWN  # nothing known yet
    assert holds("to.x == 1", {"to": UNKNOWN}) is UNKNOWN
    assert holds("list == [1, 2]", {"list": [1, UNKNOWN]}) is UNKNOWN
    assert literal_arguments({"amount": "${steps.s1.amount}", "note": "for ${steps.s1.name}", "n": 3,
                              "nested": {"x": "${steps.s1.y}", "plain": "text"}}) == \
        {"amount": UNKNOWN, "note": UNKNOWN, "n": 3, "nested": {"x": UNKNOWN, "plain": "text"}}


@pytest.mark.parametrize("text, said", [
    ("amount >", "expected a value"),
    ("amount > 100 100", "after a whole condition"),
    ("eval(x)", "no function is named 'eval'"),
    ("endswith(x)", "takes 2 arguments, not 1"),
    ("__import__('os')", "no function is named '__import__'"),
    ("a.b()", "unexpected '(' after a whole condition"),
    ("'open", "a string is not closed"),
    ("a $ b", "unexpected character '$'"),
    ("x == 1e999", "not a finite number"),
    ("matches(x, \"(a+)+(?=b)\")", "RE2"),
    ("matches(x, y)", "pattern as a string literal"),
    ("", "the condition is empty"),
])
def test_a_bad_condition_is_named(text: str, said: str) -> None:
    with pytest.raises(PolicyError, match="when: ") as caught:
        parse_condition(text, rule="r", line=4)
    assert said in str(caught.value)
    assert str(caught.value).startswith("line 4: rule 'r': when: ")


@pytest.mark.parametrize("hostile", [
    "(" * 5000 + "a" + ")" * 5000,  # too long
    "(" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1),  # too deep
    "not " * (MAX_DEPTH + 1) + "a",
    " or ".join(["a"] * (MAX_TOKENS // 2 + 1)),  # too many tokens
    "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    "len(" * 30 + "x" + ")" * 30,
])
def test_hostile_conditions_are_refused_by_their_bounds(hostile: str) -> None:
    with pytest.raises(PolicyError):
        parse_condition(hostile)


def test_the_largest_conditions_and_values_stay_bounded() -> None:
    """The most a condition may be, over the longest values, costs one visit each: a pattern
    that backtracks for hours in ``re`` is linear in RE2, and a wide ``or`` is read once."""
    widest = " or ".join(f"matches(s{i}, \"^(a+)+$\")" for i in range(45))
    assert len(widest) < 2000
    condition = parse_condition(widest)
    arguments = {f"s{i}": "a" * 50_000 + "!" for i in range(45)}
    started = time.process_time()
    assert condition.holds(arguments) is False
    assert time.process_time() - started < 5  # seconds of CPU at most, not hours (a loose bound)
    members = parse_condition("x in [" + ", ".join(str(i) for i in range(150)) + "]")
    assert members.holds({"x": 149}) is True and members.holds({"x": 150}) is False


def test_no_condition_reaches_python() -> None:
    for text in ["__class__ == 1", "x.__class__.__bases__ == 1", "globals == 1"]:
        assert parse_condition(text).holds({"x": 1}) is False  # names are argument paths, nothing else


# -- rules and matching --------------------------------------------------------------------------

def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    def tool(name: str, group: str, effects: Effects, **params: str) -> None:
        schema = {"type": "object", "properties": {p: {"type": t} for p, t in params.items()},
                  "additionalProperties": False}
        registry.add(Tool(ToolDefinition(name, "A tool.", schema, effects=effects), lambda n, a: "ok", group=group))

    tool("read_orders", "shop", READ_ONLY, customer="string")
    tool("refund", "billing", ADDITIVE, amount="number", to="string")
    tool("delete_customer", "shop", DESTRUCTIVE, customer="string")
    tool("tag_order", "shop", IDEMPOTENT, tag="string")
    tool("mystery", "other", UNKNOWN_EFFECTS, x="string")
    return registry


POLICY = """\
[[rules]]
name = "no deletes"
tool = "delete_*"
outcome = "deny"
reason = "never by an agent"

[[rules]]
name = "big refunds"
tool = "refund"
when = "amount > 100"
outcome = "ask"
approvers = 2
roles = ["approver"]
groups = ["finance"]

[[rules]]
name = "small refunds to us"
group = "billing"
when = "endswith(to, '@example.com')"
outcome = "allow"

[[rules]]
name = "ci bot tags"
agent = "agent:ci-*"
effect = ["idempotent"]
outcome = "allow"
"""


def test_glob_patterns() -> None:
    assert glob_match("delete_*", "delete_customer") and not glob_match("delete_*", "undelete_x")
    assert glob_match("*", "") and glob_match("a?c", "abc") and not glob_match("a?c", "ac")
    assert glob_match("*a*b*c*", "xxaxxbxxcxx") and not glob_match("*a*b*c*", "cba")
    assert not glob_match("a" * 50 + "*" * 50 + "b", "a" * 5000)  # no regex, no blow-up


def test_the_first_rule_that_matches_decides() -> None:
    registry = _registry()
    policy = parse_policy(POLICY)
    check_against(policy, registry)
    refund, delete = registry.get("refund"), registry.get("delete_customer")
    big = policy.decide(refund, {"amount": 500, "to": "a@example.com"})
    assert (big.outcome, big.rule, big.approvers, big.roles, big.groups) == \
        ("ask", "big refunds", 2, ("approver",), ("finance",))
    small = policy.decide(refund, {"amount": 5, "to": "a@example.com"})
    assert (small.outcome, small.rule) == ("allow", "small refunds to us")
    outside = policy.decide(refund, {"amount": 5, "to": "eve@evil.test"})
    assert (outside.outcome, outside.rule) == ("ask", "")  # the default: it writes
    assert policy.decide(delete, {"customer": "c1"}).said == "denied by rule no deletes: never by an agent"
    assert policy.decide(registry.get("read_orders"), {}).outcome == "allow"  # default: read-only runs
    # the agent pattern: the bot's idempotent tag passes, anyone else's asks
    bot = Actor(id="agent:ci-bot", name="CI", kind="agent", role=Role.reviewer)
    assert policy.decide(registry.get("tag_order"), {}, bot).rule == "ci bot tags"
    assert policy.decide(registry.get("tag_order"), {}, None).outcome == "ask"
    assert policy.decide(registry.get("mystery"), {}).reason == "mystery is not read-only (unknown (may write))"


def test_order_matters_and_ask_first_still_asks() -> None:
    registry = _registry()
    swapped = parse_policy('[[rules]]\nname = "all pass"\noutcome = "allow"\n\n[[rules]]\nname = "no deletes"\n'
                           'tool = "delete_*"\noutcome = "deny"\n')
    assert swapped.decide(registry.get("delete_customer"), {}).rule == "all pass"
    asked = swapped.decide(registry.get("read_orders"), {}, ask_first=True)
    assert (asked.outcome, asked.approvers) == ("ask", 1) and "reviewer asked" in asked.reason


def test_effect_matching() -> None:
    registry = _registry()
    policy = parse_policy('[[rules]]\nname = "d"\neffect = "destructive"\noutcome = "deny"\n'
                          '[[rules]]\nname = "u"\neffect = "unknown"\noutcome = "deny"\n'
                          '[[rules]]\nname = "a"\neffect = ["additive", "read-only"]\noutcome = "allow"\n')
    assert [policy.decide(registry.get(n), {}).rule for n in
            ("delete_customer", "mystery", "refund", "read_orders", "tag_order")] == ["d", "u", "a", "a", "a"]


# -- files ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, fmt, line, said", [
    ('[[rules]]\nname = "x"\noutcome = = "deny"\n', "toml", 3, "not TOML"),
    ('rules:\n  - name: x\n    outcome: [deny\n', "yaml", 4, "not YAML"),
    ('[[rules]]\nname = "x"\noutcome = "allow"\n\n[[rules]]\nname = "y"\nolour = 3\noutcome = "deny"\n', "toml", 7,
     "rule 'y': olour: is not a field of a rule"),
    ('[[rules]]\nname = "x"\noutcome = "maybe"\n', "toml", 3, "rule 'x': outcome: must be one of allow, ask, deny"),
    ('[[rules]]\nname = "x"\neffect = "sideways"\noutcome = "deny"\n', "toml", 3, "unknown effect 'sideways'"),
    ('[[rules]]\nname = "x"\noutcome = "ask"\nroles = ["boss"]\n', "toml", 4, "unknown role 'boss'"),
    ('[[rules]]\nname = "x"\noutcome = "ask"\napprovers = 0\n', "toml", 4, "approvers: must be a whole number"),
    ('[[rules]]\nname = "x"\noutcome = "deny"\napprovers = 2\n', "toml", 4, "only a rule whose outcome is ask"),
    ('[[rules]]\nname = "x"\noutcome = "deny"\n[[rules]]\nname = "x"\noutcome = "allow"\n', "toml", 4,
     "another rule has this name"),
    ('rules:\n  - name: a\n    outcome: deny\n    when: "amount >"\n', "yaml", 4, "rule 'a': when: expected a value"),
    ('rules:\n  - &r {name: a, outcome: deny}\n  - *r\n', "yaml", 3, "aliases"),
    ('[[rules]]\noutcome = "deny"\n', "toml", 1, "every rule needs a name"),
])
def test_file_errors_name_the_line(text: str, fmt: str, line: int, said: str) -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, fmt)
    assert caught.value.line == line, str(caught.value)
    assert said in str(caught.value) and str(caught.value).startswith(f"line {line}: ")


def test_yaml_and_toml_say_the_same() -> None:
    yaml_text = """\
rules:
  - name: no deletes
    tool: delete_*
    outcome: deny
    reason: never by an agent
  - name: big refunds
    tool: refund
    when: amount > 100
    outcome: ask
    approvers: 2
    roles: [approver]
    groups: [finance]
"""
    from_yaml, from_toml = parse_policy(yaml_text, "yaml"), parse_policy(POLICY)
    assert [(r.name, r.tool, r.outcome, r.approvers, r.when and r.when.text) for r in from_yaml.rules] == \
        [(r.name, r.tool, r.outcome, r.approvers, r.when and r.when.text) for r in from_toml.rules[:2]]
    assert parse_policy("", "toml").is_default and parse_policy("", "yaml").is_default


def test_a_condition_naming_an_argument_no_matched_tool_has_is_named() -> None:
    registry = _registry()
    typo = parse_policy('[[rules]]\nname = "big refunds"\ntool = "refund"\n\nwhen = "amout > 100"\noutcome = "ask"\n')
    with pytest.raises(PolicyError) as caught:
        check_against(typo, registry)
    assert caught.value.line == 5 and caught.value.rule == "big refunds"
    assert "'amout', which no tool this rule matches has (refund)" in str(caught.value)
    nested = parse_policy('[[rules]]\nname = "n"\ntool = "refund"\nwhen = "to.domain == 1"\noutcome = "deny"\n')
    with pytest.raises(PolicyError, match="'to.domain'"):
        check_against(nested, registry)  # ``to`` is a string: nothing is under it
    check_against(parse_policy(POLICY), registry)  # every argument named exists


# -- the plan check and replay --------------------------------------------------------------------

def test_a_plan_with_a_certainly_denied_step_is_refused_naming_step_and_rule() -> None:
    registry, policy = _registry(), parse_policy(POLICY + '\n[[rules]]\nname = "refunds from results"\ntool = "refund"'
                                                          '\nwhen = "amount > 1000"\noutcome = "deny"\n')
    plan = Plan(goal="g", steps=[Step(id="r", tool="read_orders", params={"customer": "c1"}),
                                 Step(id="d", tool="delete_customer", params={"customer": "c1"}, depends_on=["r"])])
    with pytest.raises(PolicyDenied) as caught:
        check_plan(policy, plan, registry)
    assert caught.value.step_ids == ["d"] and caught.value.rules == ["no deletes"]
    assert "step 1 (delete_customer): denied by rule no deletes: never by an agent" in str(caught.value)
    # A condition on a value only the run knows is judged again then: the plan passes for now.
    later = Plan(goal="g", steps=[Step(id="r", tool="read_orders", params={"customer": "c1"}),
                                  Step(id="f", tool="refund", params={"amount": "${steps.r.total}", "to": "x@y.z"},
                                       depends_on=["r"])])
    verdict = check_plan(policy, later, registry)
    [(step_id, _label, judged)] = [s for s in verdict.steps if s[0] == "f"]
    assert not judged.certain and judged.rule == "big refunds"


def test_replay_counts_and_names_disagreements() -> None:
    registry, policy = _registry(), parse_policy(POLICY)
    cases = [
        ReplayCase("run a, step 0", registry.get("delete_customer"), {"customer": "c"}, "approved", by="page"),
        ReplayCase("run a, step 1", registry.get("refund"), {"amount": 5, "to": "a@example.com"}, "rejected"),
        ReplayCase("run b, step 0", registry.get("refund"), {"amount": 500, "to": "a@example.com"}, "approved"),
        ReplayCase("run b, step 1", registry.get("read_orders"), {"customer": "c"}),
        ReplayCase("plan c, step 0", registry.get("refund"), {"amount": UNKNOWN, "to": "a@example.com"}, "approved"),
    ]
    report = replay(policy, cases)
    assert dict(report.counts) == {"allow": 2, "ask": 1, "deny": 1, "run time": 1}
    assert [d.text for d in report.disagreements] == [
        "run a, step 0: would deny what a person (page) approved (denied by rule no deletes: never by an agent)",
        "run a, step 1: would allow what a person rejected (allowed by rule small refunds to us)"]
    assert report.summary == ("5 recorded steps: 2 allowed, 1 asked, 1 denied, 1 decided only at run time; "
                              "2 disagreements with people's decisions")
    assert replay(Policy(), cases).disagreeing == 0  # the default asks about writes: no disagreement

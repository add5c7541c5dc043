"""Policy as data: ordered rules, read from a TOML or YAML file, that decide whether each step of a
plan runs, waits for people, or never runs; the small expression language of their conditions;
the checks of a whole plan and of one step; and the replay of a policy over recorded decisions."""

from ._checks import PlanVerdict, check_plan, check_step, literal_arguments
from ._expression import UNKNOWN, Condition, parse_condition
from ._loading import MAX_POLICY_CHARS, check_against, load_policy, parse_policy, policy_format
from ._replay import Disagreement, ReplayCase, ReplayReport, replay
from ._rules import EFFECT_NAMES, OUTCOMES, Policy, Rule, Verdict, effect_names, glob_match

DEFAULT_POLICY = Policy(source="the default policy")

__all__ = ["DEFAULT_POLICY", "EFFECT_NAMES", "MAX_POLICY_CHARS", "OUTCOMES", "UNKNOWN", "Condition", "Disagreement",
           "PlanVerdict", "Policy", "ReplayCase", "ReplayReport", "Rule", "Verdict", "check_against", "check_plan",
           "check_step", "effect_names", "glob_match", "literal_arguments", "load_policy", "parse_condition",
           "parse_policy", "policy_format", "replay"]

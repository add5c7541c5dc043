"""The studio's policy: read from its file when the services are built, applied to plans when they
are submitted or approved, replayed over the recorded decisions before a change, and saved.

The policy in force is the one in the services' run limits (``services.executor.limits.policy``);
a file that cannot be read leaves the default policy in force at start (every write asks) and
says why (``Services.policy_problem``), and a change that does not read is refused whole, so the
policy in force stays as it was.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from core import Actor, Plan, PolicyDenied, Role, ToolRegistry, private_file, require
from core.policy import (PlanVerdict, Policy, ReplayCase, ReplayReport, check_against, check_plan, literal_arguments,
                         parse_policy, policy_format, replay)

from ._intake import submitting_agent, registry_for
from ._services import Services, policy_file
from ._audit import record

__all__ = ["POLICY_TEMPLATE", "check_plan_policy", "current_policy", "policy_refusal", "policy_text", "read_policy",
           "replay_policy", "save_policy"]

MAX_REPLAYED_RUNS = 200
MAX_REPLAYED_REVIEWS = 200

POLICY_TEMPLATE = """\
# The studio's policy: ordered rules; the first rule that matches a step decides.
# With no rules, read-only steps run and every other step waits for one approver.
# See docs/policy.md. An example:
#
# [[rules]]
# name = "no deletes"
# tool = "delete_*"
# outcome = "deny"
# reason = "nothing is deleted by an agent"
"""


def current_policy(services: Services) -> Policy:
    return services.executor.limits.rules


def policy_text(services: Services) -> str:
    """The text of the policy file in force, or a commented template when there is none."""
    policy = current_policy(services)
    if policy.text:
        return policy.text
    path = services.settings.policy_path
    if path is not None:
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
    return POLICY_TEMPLATE


def read_policy(services: Services, text: str) -> Policy:
    """``text`` as a policy, in the format of the policy file, checked against the studio's tools;
    ``PolicyError`` naming the line and rule when it is wrong."""
    path = policy_file(services.settings)
    policy = parse_policy(text, policy_format(path), source=str(path))
    check_against(policy, services.registry)
    return policy


def check_plan_policy(services: Services, plan: Plan, *, agent: Actor | str | None = None,
                      registry: ToolRegistry | None = None) -> PlanVerdict:
    """The policy's verdict on ``plan``; ``PolicyDenied`` naming each step certainly denied and
    its rule (a submission or an approval of such a plan is refused before anything runs)."""
    return check_plan(current_policy(services), plan, registry or services.registry, submitting_agent(agent))


def policy_refusal(services: Services, plan: Plan, *, agent: Actor | str | None = None,
                   registry: ToolRegistry | None = None) -> str | None:
    """Why the policy refuses ``plan`` (a step certainly denied, named with its rule), or None."""
    try:
        check_plan_policy(services, plan, agent=agent, registry=registry)
    except PolicyDenied as exc:
        return str(exc)
    return None


def _run_cases(services: Services, registry: ToolRegistry) -> list[ReplayCase]:
    cases: list[ReplayCase] = []
    for listing in services.store.records.recent(MAX_REPLAYED_RUNS):
        try:
            run = services.store.load_run(listing.id)
        except Exception:  # a run that cannot be read is no case; the Runs pages say why
            continue
        for step in run.plan.steps:
            state = run.steps.get(step.id)
            if state is None or step.tool not in registry:
                continue
            decision = state.decision
            decided: Any = None
            if decision is not None and decision.actor_kind != "rule":  # a rule's own word is no person's
                decided = "approved" if decision.approved else "rejected"
            arguments = state.arguments if state.arguments is not None else literal_arguments(step.params)
            who = ", ".join(a.actor_name or a.actor_id for a in state.approvals) if state.approvals else \
                (decision.actor_name or decision.actor_id or decision.channel) if decision is not None else ""
            cases.append(ReplayCase(f"run {run.id}, {run.plan.label(step.id)}", registry.get(step.tool), arguments,
                                    decided, agent=submitting_agent(run.submitted_by), ask_first=step.ask_first,
                                    by=who if decided else ""))
    return cases


def _review_cases(services: Services) -> list[ReplayCase]:
    cases: list[ReplayCase] = []
    for summary in services.store.list_reviews(limit=MAX_REPLAYED_REVIEWS):
        try:
            review = services.store.get_review(summary.id)
            registry = registry_for(services, review.tools)
        except Exception:  # unreadable: no case
            continue
        by_step = {d.step_id: d.decision for d in review.decisions}
        for step in review.plan.steps:
            if step.tool not in registry:
                continue
            decided: Any = None
            if review.status == "rejected" or by_step.get(step.id) == "removed":
                decided = "rejected"
            elif review.status == "approved":
                decided = "approved"
            cases.append(ReplayCase(f"review {review.id} from {review.agent}, {review.plan.label(step.id)}",
                                    registry.get(step.tool), literal_arguments(step.params), decided,
                                    agent=submitting_agent(review.agent), ask_first=step.ask_first,
                                    by="the reviewer" if decided else ""))
    return cases


def replay_policy(services: Services, text: str) -> ReplayReport:
    """What the policy ``text`` would have said about the recorded steps of the latest runs and
    reviews, and where it disagrees with people's decisions; ``PolicyError`` when it does not read."""
    policy = read_policy(services, text)
    return replay(policy, _run_cases(services, services.registry) + _review_cases(services))


def save_policy(services: Services, text: str, *, actor: Actor) -> Policy:
    """Save ``text`` as the studio's policy and put it in force (admins only). Nothing changes
    when it does not read (``PolicyError``) or the file cannot be written."""
    require(actor, Role.admin, "change the policy")
    policy = read_policy(services, text)
    path = policy_file(services.settings)
    # Written beside it and moved over it: a crash mid-write leaves the old file whole.
    new = private_file(path.with_name(path.name + ".new"))
    new.write_text(text, encoding="utf-8")
    os.replace(new, path)
    services.executor.limits = services.executor.limits.model_copy(update={"policy": policy})
    services.policy_problem = None
    # The whole text on record (a policy is at most MAX_POLICY_CHARS): what was in force, and when.
    record(services, actor, "policy.changed", {}, {"rules": [rule.name for rule in policy.rules],
                                                   "sha256": hashlib.sha256(text.encode()).hexdigest(), "text": text})
    return policy

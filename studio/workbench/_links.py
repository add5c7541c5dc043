"""Signed links: answer a waiting step or a pending review from a link a notification carries.

    url, link, shown = step_link(settings, registry, run, step_id)   # a step waiting for a person
    url, link = review_decision_link(settings, review)                # a pending review
    view = open_link(services, token)                     # what it decides, shown before the buttons
    out = answer_link(services, token, approve=True, actor=actor)   # the decision, once

A link is ``PUBLIC_URL/decide?link=TOKEN`` (``_link_signing``: HMAC-SHA256 over kind, run or
review id, step id, the hash of what it shows, expiry and a nonce). It decides one thing once:
its nonce is claimed in the store (``store.links``) when it decides, and only if what it
would decide is still what it showed when it was signed: for a step, its tool, resolved
arguments and effects (``StepShown.hash``); for a review, the plan that would run
(``shown_review_hash``). Anything else is refused with ``LinkRefused`` naming why (forged,
expired, used, changed, gone) and nothing is decided.

The decision goes through the same use cases as the page's and the API's (``_deciding.decide_step``,
``_reviewing.decide_review``), made by the signed-in person the interface names (``actor``),
on the channel "link".
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core import ANONYMOUS, Actor, Forbidden, LinkRefused, Role, Validator, arguments_hash, require

from ._bench import Outcome, Workbench
from ._deciding import decide_step, waiting_run, waiting_view
from ._link_making import (DECIDE_URL_PATH, DEFAULT_PUBLIC_URL, LINK_PARAM, link_url, review_decision_link,
                           shown_review_hash, step_link, step_shown)
from ._link_signing import LinkKind, SignedLink, ensure_link_secret, read_token
from ._reviewing import decide_review, open_review, services_with_tools

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import LinkUse, Review

    from ._services import Services

__all__ = ["CHANNEL", "DECIDE_URL_PATH", "DEFAULT_PUBLIC_URL", "LINK_PARAM", "LinkView", "PlanLine", "answer_link",
           "link_url", "open_link", "review_decision_link", "shown_review_hash", "step_link", "step_shown"]

CHANNEL = "link"


@dataclass(frozen=True)
class PlanLine:
    """One step of the plan around what a link decides."""

    step_id: str
    label: str
    tool: str
    status: str  # a run's step status, or "" for a review's plan
    detail: dict[str, Any]  # resolved arguments (a run's step that has them) or params as planned
    current: bool = False  # the step the link decides


@dataclass(frozen=True)
class LinkView:
    """What a link decides, as its page shows it before the buttons. All text from agents and
    tools (arguments, goals, names) is untrusted: escaped wherever drawn."""

    link: SignedLink
    title: str
    tool: str = ""
    effects: str = ""
    reason: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    agent: str = ""
    goal: str = ""
    problems: list[str] = field(default_factory=list)
    plan: list[PlanLine] = field(default_factory=list)

    @property
    def kind(self) -> LinkKind:
        return self.link.kind


def _used(use: LinkUse) -> LinkRefused:
    when = use.used_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    return LinkRefused(f"This link was used already, at {when} by {use.used_by}: a link decides once. "
                       "Open the studio to see the decision.", why="used")


def _changed(what: str) -> LinkRefused:
    return LinkRefused(f"{what} changed since this link was made: nothing was decided. Look at it again in the "
                       "studio.", why="changed")


def _step_view(services: Services, link: SignedLink) -> LinkView:
    run = waiting_run(services, link.subject)
    waiting = None if run is None else next(
        (w for w in waiting_view(run, services.registry) if w.step_id == link.step_id), None)
    if run is None or waiting is None or run.steps[link.step_id].decision is not None:
        raise LinkRefused(f"Step {link.step_id!r} of run {link.subject} no longer waits for a decision (it was "
                          "decided elsewhere, or the run ended or is running): nothing was decided.", why="gone")
    shown = step_shown(run, link.step_id, services.registry)
    if shown is None or shown.hash != link.shown:
        raise _changed(f"What {waiting.label} would run (its tool, resolved arguments or effects)")
    plan = [PlanLine(s.id, run.plan.label(s.id), s.tool, run.steps[s.id].status.value,
                     dict(run.steps[s.id].arguments) if run.steps[s.id].arguments is not None else dict(s.params),
                     current=s.id == link.step_id) for s in run.plan.steps]
    return LinkView(link, f"{waiting.label} of run {run.id} waits for your decision", tool=waiting.tool,
                    effects=waiting.effects, reason=waiting.reason, arguments=waiting.arguments,
                    goal=run.plan.goal, plan=plan)


def _review_view(services: Services, link: SignedLink) -> tuple[LinkView, Review]:
    review = services.store.get_review(link.subject)  # NotFound: said by the caller
    if review.status != "pending":
        raise LinkRefused(f"This review was {review.status} already: nothing was decided.", why="gone")
    if shown_review_hash(review.plan) != link.shown:
        raise _changed("The plan of this review")
    validator = services_with_tools(services, review.tools).validator
    problems = [f"{p.severity}: {p.message}" for p in validator.validate(review.plan)]
    plan = [PlanLine(s.id, review.plan.label(s.id), s.tool, "", dict(s.params)) for s in review.plan.steps]
    return LinkView(link, f"The plan {review.agent} sent waits for your review", agent=review.agent,
                    goal=review.goal, problems=problems, plan=plan), review


def _use(link: SignedLink, actor: Actor) -> str:
    """What one use of a link is kept as: the link and who used it. A link goes to everyone a
    webhook reaches, and a step may ask several people: each may use it once (their second
    decision would be a replay), and once the step is settled it is gone for all."""
    return f"{link.nonce}/{actor.id}"


def open_link(services: Services, token: str, *, actor: Actor | None = None) -> LinkView:
    """What the link of ``token`` would decide (for ``actor``: refused when they used it
    already); ``LinkRefused`` naming why it cannot (forged, expired, used, changed, gone).
    Opening decides nothing and uses nothing up."""
    link = read_token(ensure_link_secret(services.settings.data_dir), token)
    use = services.store.links.get(_use(link, actor)) if actor is not None else None
    if use is not None:
        raise _used(use)
    if link.kind == "step":
        return _step_view(services, link)
    return _review_view(services, link)[0]


def answer_link(services: Services, token: str, *, approve: bool, actor: Actor, comment: str = "") -> Outcome:
    """Approve or reject what the link of ``token`` shows, as ``actor`` (a signed-in person
    holding the approver role), on the channel "link". Everything ``open_link`` checks is
    checked again now; the link is claimed before the decision and given back if the decision
    could not be made (the run moved on meanwhile, say), so one link decides at most once."""
    out = Outcome()
    try:
        if actor.id == ANONYMOUS.id:
            raise Forbidden("Sign in to decide from a link: a decision names the person who made it.",
                            actor=actor.id, needed=Role.approver.name)
        require(actor, Role.approver, "decide from a link")
        view = open_link(services, token, actor=actor)
    except (LinkRefused, Forbidden) as exc:
        return out.say("error", str(exc))
    link = view.link
    earlier = services.store.links.claim(_use(link, actor), kind=link.kind, subject=link.subject, step_id=link.step_id,
                                         by=actor.id)
    if earlier is not None:  # another tab used it between the checks and now
        return out.say("error", str(_used(earlier)))
    try:
        decided = _decide(services, view, approve, actor, comment)
    except Exception:
        services.store.links.release(_use(link, actor))
        raise
    if not decided.ok:
        services.store.links.release(_use(link, actor))
    return decided


def _decide(services: Services, view: LinkView, approve: bool, actor: Actor, comment: str) -> Outcome:
    """The one place a link's decision is made, through the use cases every interface uses."""
    link = view.link
    if link.kind == "step":
        # The link checked what it showed (tool, effects, arguments) against the step just now.
        return decide_step(services, link.subject, link.step_id, approve, actor=actor, channel=CHANNEL,
                           seen_hash=arguments_hash(view.arguments))
    bench = Workbench()
    opened = open_review(bench, services.store, link.subject)
    if not opened.ok or bench.plan is None:
        return opened
    if approve and shown_review_hash(bench.plan) != link.shown:
        # The reviewer's work in progress in the studio (edits) would be approved, not what the link showed.
        return Outcome().say("error", str(_changed("The plan of this review (someone is editing it in the studio)")))
    bench.comment = comment
    review_tools = services.store.get_review(link.subject).tools

    def validator() -> Validator:
        return services_with_tools(services, review_tools).validator
    return decide_review(bench, services.store, link.subject, approve=approve, validator=validator,
                         services=services)

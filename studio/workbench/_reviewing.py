"""An agent's review in the editor: open it (with the reviewer's work so far), and decide it.

Approving a review uses the one approval rule of the editor (``approval_problem``), with the
agent's own tools counted (``services_with_tools``). The reviewer's work on a pending review is
kept in a work record of its own in the store (a draft named ``review-<id>``, written by the
front end), so opening the review again brings it back; deciding the review forgets it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Callable

from core import Role, Plan, PlanError, ReviewDecided, Validator, hooks, load_plan

from core.access import LOCAL_ACTOR, Actor

from ._agent_callbacks import tell_review_decided
from ._audit import record
from ._services import Services
from ._roles import refused_for_role
from ._bench import Outcome, SavedRef, Workbench
from ._editing import approval_problem, edit_refused, fingerprint, run_in_progress, show_plan, write_panel
from ._intake import registry_for
from ._messages import attempt, failure_message, log, plain_message
from ._policy import policy_refusal

if TYPE_CHECKING:  # SQLAlchemy is slow to import; the CLI starts without it
    from core.storage import PlanStore

__all__ = ["close_review", "decide_review", "open_review", "services_with_tools", "work_id"]


def work_id(review_id: str) -> str:
    """The store draft holding the reviewer's work on ``review_id``."""
    # Not 16 hex digits: no ?draft= URL can name it, so no tab takes it for its own draft.
    return f"review-{review_id}"


def services_with_tools(services: Services, tools: list[dict] | None) -> Services:
    """``services`` whose registry and validator also know the agent's own ``tools``."""
    if not tools:
        return services
    registry = registry_for(services, tools)
    return dataclasses.replace(services, registry=registry, validator=Validator(registry))


def _bring_back_work(bench: Workbench, store: PlanStore, review_id: str, out: Outcome) -> bool:
    """Put the reviewer's kept work on ``review_id`` (plan, Plan JSON text, comment) in the
    editor over the plan as sent; False when there is none (or it no longer reads: said)."""
    draft = store.load_draft(work_id(review_id))
    if draft is None:
        return False
    try:
        data = json.loads(draft.content)
        plan = Plan.model_validate(data["plan"])
        text, comment = data.get("json"), data.get("comment")
    except (ValueError, TypeError, KeyError, PlanError) as exc:
        out.say("warning", f"Your earlier work on this review could not be brought back ({exc}); "
                           "this is the plan as the agent sent it.")
        return False
    show_plan(bench, plan, saved=None, keeps_review=True)
    if isinstance(text, str) and text.strip():  # the text as typed, even when it does not parse
        write_panel(bench, text)
        try:
            load_plan(text, "native")
        except PlanError as exc:
            bench.json_error = plain_message(exc)
    bench.comment = comment if isinstance(comment, str) else ""
    return True


def open_review(bench: Workbench, store: PlanStore, review_id: str) -> Outcome:
    """Put the review in the editor: while it is pending, the reviewer's work on it where there
    is some, else the plan as sent; once decided, the plan as approved, or as sent when rejected."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.viewer, "open a review"):
        return out
    if run_in_progress(bench):
        return out.say("info", "A run is in progress: stop it or let it finish, then open the review.")
    with attempt(out, "open the review"):
        review = store.get_review(review_id)
        pending = review.status == "pending"
        if pending and bench.review_id == review.id:  # already in the editor: the work, its undo steps and all
            return out.done().say("info", f"Back to the plan {review.agent} sent, with your edits and comment "
                                          "as you left them.")
        plan = review.approved_plan or review.plan
        saved = (SavedRef(review.plan_id, review.version, fingerprint(plan))
                 if review.plan_id is not None and review.version is not None else None)
        show_plan(bench, plan, saved=saved, keeps_review=True)
        bench.review_id = review.id
        bench.comment = review.comment
        bench.review_tools = (review.id, review.tools)
        if pending:
            earlier = _bring_back_work(bench, store, review.id, out)
            out.say("info", f"Reviewing the plan {review.agent} sent"
                            + (", with your edits and comment so far" if earlier else "")
                            + ". Edit it here if it needs it, then approve or reject it in the review bar.")
        out.done()
    return out


def close_review(bench: Workbench) -> Outcome:
    """Leave the review (pending, it stays in Reviews); the plan stays in the editor."""
    bench.review_id = None
    bench.comment = ""
    return Outcome().done()


def _policy_problem(services: Services, store: PlanStore, review_id: str, plan: Plan) -> str | None:
    """Why the policy refuses the plan of review ``review_id`` as edited (its agent and tools
    counted), or None."""
    try:
        review = store.get_review(review_id)
        return policy_refusal(services, plan, agent=review.agent, registry=registry_for(services, review.tools))
    except Exception as exc:  # said, never raised
        return failure_message("check the plan against the policy", exc)


def decide_review(bench: Workbench, store: PlanStore, review_id: str, *, approve: bool,
                  validator: Callable[[], Validator], services: Services | None = None,
                  actor: Actor = LOCAL_ACTOR, channel: str = "page") -> Outcome:
    """Approve the plan in the editor (edits included, saved as a version) or reject it, with
    ``bench.comment`` for the agent. Approval is checked here, not only by a disabled button: a
    click sent before the button was drawn disabled must not send the agent a plan with problems.
    ``validator`` gives the validator that knows the agent's tools."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.approver, "decide on a review"):
        return out
    if approve and edit_refused(bench, out, "approve the review"):  # a run going on, or the JSON not parsing
        return out
    plan = bench.plan
    if approve:
        try:
            problem = approval_problem(bench, validator())
        except Exception as exc:  # said, never raised
            problem = failure_message("check the plan", exc)
        if problem is None and services is not None and plan is not None:
            problem = _policy_problem(services, store, review_id, plan)
        if problem is not None:
            return out.say("error", f"Not approved. {problem}. The agent is still waiting for your decision.")
    saved = bench.saved
    try:
        review = store.decide_review(review_id, approve=approve, plan=plan, comment=bench.comment.strip(),
                                     plan_id=saved.plan_id if saved is not None else None)
    except ReviewDecided as exc:
        return out.say("error", f"Not recorded: this review was already {exc.status} (in another tab or by "
                                "someone else). Open it from Reviews to see the decision.")
    except Exception as exc:  # said, never raised
        return out.say("error", failure_message("record the decision", exc))
    with attempt(out, "put the decision on record"):
        record(store, actor, "review.decided", {"review": review_id, "agent": review.agent, "plan": review.plan_id},
               {"approve": approve, "comment": review.comment, "version": review.version,
                "steps": [{"step_id": d.step_id, "decision": d.decision} for d in review.decisions]}, channel=channel)
    try:
        store.delete_draft(work_id(review_id))  # the review is decided: its work in progress is done
    except Exception as exc:  # housekeeping: the record is pruned with old drafts anyway
        log.warning("could not forget the work on review %s: %s", review_id, exc)
    hooks.notify("review_decided", review=review, actor=actor)
    if services is not None:  # the agent, at its callback URL (never blocks: a queue)
        tell_review_decided(services, review)
    if approve and plan is not None:
        hooks.notify("plan_approved", plan=plan, review_id=review_id)
    if approve and plan is not None and review.plan_id is not None and review.version is not None:
        bench.saved = SavedRef(review.plan_id, review.version, fingerprint(plan))
        edited = any(d.decision != "approved" for d in review.decisions)  # "with your edits" only when there were
        out.say("success", f"Approved and sent back to {review.agent}{', with your edits' if edited else ' as sent'}; "
                           f"saved as version {review.version} of this plan.")
    else:
        out.say("success", f"Rejected; {review.agent} gets your comment.")
    return out.done()

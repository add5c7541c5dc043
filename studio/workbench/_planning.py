"""Where a plan comes from: a goal, a re-plan of the plan under review, an import."""

from __future__ import annotations

from core import FORMATS, LOCAL_ACTOR, Actor, Plan, Role, VersionConflict, load_plan, require
from core.planners import PlanContext, planner_notices

from ._changes import describe_changes
from ._services import Services
from ._roles import refused_for_role
from ._bench import Outcome, SavedRef, Workbench
from ._editing import fingerprint, refused_during_run, refused_for_json, show_plan
from ._messages import attempt
from ._saving import hold_conflict, store_current

__all__ = ["GOAL_FIRST", "import_plan", "plan_for_goal", "plan_goal", "replan", "replanned"]

GOAL_FIRST = "Type a goal first, e.g. “Get contaminated shipments from Berlin facilities”."


def plan_for_goal(services: Services, goal: str, previous: Plan | None = None, *, actor: Actor = LOCAL_ACTOR) -> Plan:
    """The planner's plan for ``goal`` as of the settings' today; ``previous`` (a plan being
    refined) is its context. Raises ``PlanStudioError`` saying why there is none. The studio's
    Plan button and the CLI's ``plan`` both plan here."""
    require(actor, Role.reviewer, "make a plan")
    context = PlanContext(previous.goal, previous) if previous is not None and previous.steps else None
    return services.planner.plan(goal, today=services.settings.effective_today(), context=context)


def replanned(services: Services, plan: Plan, feedback: str, *, actor: Actor = LOCAL_ACTOR) -> Plan:
    """``plan`` changed as ``feedback`` asks (locked steps kept); the studio's Re-plan and the
    CLI's ``replan`` both re-plan here."""
    require(actor, Role.reviewer, "re-plan")
    return services.planner.replan(plan, feedback, today=services.settings.effective_today())


def plan_goal(bench: Workbench, services: Services, goal: str | None = None) -> Outcome:
    """Plan ``goal`` (the goal box's by default); the plan in the editor, if any, is the
    planner's context (the user may be refining it)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "make a plan"):
        return out
    if refused_during_run(bench, out, "make a new plan"):
        return out
    goal = (bench.goal if goal is None else goal).strip()
    if not goal:
        return out.say("error", GOAL_FIRST)
    with attempt(out, "make a plan"):
        plan = plan_for_goal(services, goal, bench.plan, actor=bench.actor)
        show_plan(bench, plan, saved=None)
        out.done()
        for kind, notice in planner_notices(plan):  # escaped where drawn: words of the user's own goal
            out.say(kind, notice)
    return out


def replan(bench: Workbench, services: Services, feedback: str) -> Outcome:
    """Change the plan as ``feedback`` asks; both versions are stored, so the old one stays in
    the history (locked steps are kept by the planner). ``ok`` when the feedback is used up."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "re-plan"):
        return out
    if refused_during_run(bench, out, "re-plan"):
        return out
    feedback, plan = feedback.strip(), bench.plan
    if plan is None or not feedback:
        return out.say("error", "Write what should change in the plan first.")
    if refused_for_json(bench, out, "re-plan"):
        return out
    with attempt(out, "re-plan"):
        store = services.store
        new_plan = replanned(services, plan, feedback, actor=bench.actor)
        try:
            saved = store_current(bench, store, plan, message="before re-plan")
        except VersionConflict as conflict:
            # Nothing is stored and the re-planned plan is let go: the user first settles
            # which version to build on, then asks again (the feedback stays in its box).
            hold_conflict(bench, store, conflict, save_message="before re-plan")
            return out
        version = store.save_plan(new_plan, plan_id=saved.plan_id, message=f"re-plan: {feedback}")
        show_plan(bench, new_plan, saved=SavedRef(version.plan_id, version.version, fingerprint(new_plan)),
                  keeps_review=True)
        out.done().say("success", f"Re-planned as version {version.version} ({describe_changes(plan, new_plan)}); "
                                  f"version {saved.version} stays in the history. Review it, then approve again.")
    return out


def import_plan(bench: Workbench, services: Services, text: str, fmt: str) -> Outcome:
    """Put a plan written in ``fmt`` in the editor; ``ok`` when the import text is used up."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "import a plan"):
        return out
    if refused_during_run(bench, out, "import a plan"):
        return out
    if not text.strip():
        return out.say("error", "Paste a plan or choose a file to import first.")
    with attempt(out, f"import the {FORMATS[fmt].label}"):
        plan = load_plan(text, fmt, services.registry)
        show_plan(bench, plan, saved=None)
        out.done().say("success", f"Imported {len(plan.steps)} step{'s' if len(plan.steps) != 1 else ''} "
                                  f"from the {FORMATS[fmt].label}. Review it, then approve it.")
    return out

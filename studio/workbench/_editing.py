"""The plan under review and its edits: putting a plan in the editor, every edit (JSON panel,
graph, inspector, locks, undo and redo), and approval.

Every edit goes through ``take_edit``: the plan is replaced, the edit is one undo step,
approval is withdrawn when what runs changed (locks and notes are review metadata, so they
keep it: ``core.plan._identity``), and ``revision`` moves so a front end draws its fields afresh.
While a run goes on, or the run shown waits for a person's decision (``edits_wait``), an edit
waits in the Plan JSON as pending text (``hold_edit``), never thrown away, so the run stays in
view and its decision apart from the edit; while the Plan JSON holds text that is not a plan, actions that would act on the
last valid plan wait (``json_blocker``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from core import Role, hooks, waiting_steps, EditHistory, Plan, PlanError, PlanIdentity, PlanStudioError, Validator, dump_plan, load_plan, \
    plan_identity

from ._roles import refused_for_role
from ._bench import Outcome, SavedRef, Workbench
from ._messages import failure_message, plain_message
from ._policy import policy_refusal

if TYPE_CHECKING:  # pragma: no cover
    from ._services import Services

__all__ = [
    "PENDING_EDIT", "RUN_IN_PROGRESS", "apply_edit", "apply_pending_edit", "approval_problem", "approve", "discard_pending_edit", "edit_history", "edit_json",
    "edit_refused", "edits_wait", "execution_fingerprint", "run_waits", "fingerprint", "is_approved", "json_blocker", "redo",
    "refused_during_run", "refused_for_json", "run_in_progress", "set_locks", "show_plan", "start_empty_plan",
    "take_edit", "undo", "write_panel",
]

RUN_IN_PROGRESS = "A run is in progress: wait for it to finish or press Stop"
PENDING_EDIT = ("Your edit is kept in the Plan JSON, not applied yet: a run is in progress, and it goes on with "
                "the plan it started. Apply it (or discard it) below the Plan JSON once the run has ended.")
PENDING_WHILE_WAITING = ("Your edit is kept in the Plan JSON, not applied yet: the run shown waits for a decision, "
                         "and goes on with the plan it started. Decide its waiting steps first; applying the edit "
                         "now takes the run off this page (it stays waiting, listed on Reviews).")


def fingerprint(plan: Plan) -> PlanIdentity:
    """Equal for plans that would save as the same version."""
    return plan_identity(plan)


def execution_fingerprint(plan: Plan) -> str:
    """Equal for plans that would run the same way (locks and notes left out)."""
    return plan_identity(plan).runs


def is_approved(bench: Workbench, plan: Plan | None = None) -> bool:
    """True only for a plan that runs exactly as the one the user approved."""
    plan = bench.plan if plan is None else plan
    return plan is not None and bench.approved == execution_fingerprint(plan)


def run_in_progress(bench: Workbench) -> bool:
    return bench.worker is not None and bench.worker.alive


def run_waits(bench: Workbench) -> bool:
    """The run shown (no handle carries it) waits for a person's decision on a step."""
    return bench.worker is None and bench.run is not None and not bench.run.finished and bool(waiting_steps(bench.run))


def edits_wait(bench: Workbench) -> bool:
    """An edit of what runs is held as pending text, not applied: it would take the run off the
    page (a run in progress, or one waiting for a decision)."""
    return run_in_progress(bench) or run_waits(bench)


def _pending_note(bench: Workbench) -> str:
    return PENDING_EDIT if run_in_progress(bench) else PENDING_WHILE_WAITING


def refused_during_run(bench: Workbench, out: Outcome, action: str) -> bool:
    """True, with a notice saying why, when a run is in progress and ``action`` must wait."""
    if not run_in_progress(bench):
        return False
    out.say("warning", f"{RUN_IN_PROGRESS} before you {action}.")
    return True


def json_blocker(bench: Workbench) -> str | None:
    """Why Approve, Run and Save must wait, or None: while the Plan JSON holds text that is not a
    plan, the plan they would act on (the last valid one) is not what the panel shows."""
    if bench.json_pending and run_waits(bench):
        return ("Apply or discard the edit waiting below the Plan JSON first (the waiting step's decision, under "
                "Run, goes on without it)")
    if bench.json_pending:
        return "Apply or discard the edit you made during the run first (below the Plan JSON)"
    return None if bench.json_error is None else f"Fix the Plan JSON first ({bench.json_error})"


def refused_for_json(bench: Workbench, out: Outcome, action: str) -> bool:
    """Refuse ``action`` while the JSON does not parse (a click sent before the page drew the
    button disabled must not act on the last valid plan)."""
    if bench.panel_text != bench.json_read:
        # Text typed then a click send one rerun, and the click's callback may come before the
        # panel's: read the text first, so the click acts on what the panel shows.
        out.notices.extend(edit_json(bench).notices)
    blocker = json_blocker(bench)
    if blocker is not None:
        out.say("error", f"Could not {action}. {blocker}: it would act on the last valid plan, "
                         "not the text in the panel.")
    return blocker is not None


def edit_refused(bench: Workbench, out: Outcome, action: str) -> bool:
    """Refuse an edit while a run is in progress or the Plan JSON does not parse."""
    return refused_during_run(bench, out, action) or refused_for_json(bench, out, action)


def write_panel(bench: Workbench, text: str) -> None:
    """Put ``text`` in the Plan JSON from code: noted as read, since nobody typed it."""
    bench.panel_text = text
    bench.json_read = text
    bench.json_pending = False


def edit_history(bench: Workbench, *, reset: Plan | None = None) -> EditHistory:
    """The undo history of the plan under review."""
    if bench.history is None or reset is not None:
        current = reset if reset is not None else bench.plan
        bench.history = EditHistory(current) if current is not None else EditHistory()
    return bench.history


def _review(bench: Workbench, plan: Plan) -> None:
    """``plan`` becomes the one under review: approval and run start over."""
    bench.plan = plan
    bench.approved = None
    bench.run = None
    bench.run_saved = None
    bench.confirm_new_run = None
    bench.live_run = None
    bench.goal = plan.goal


def show_plan(bench: Workbench, plan: Plan, *, saved: SavedRef | None, keeps_review: bool = False) -> None:
    """Put ``plan`` in the editor as the plan to review: not approved, not run, its edit history
    starting from it. Another plan also ends an agent's review held open, so its approval cannot
    send a plan the agent never sent; a re-plan of the plan under review (``keeps_review``) does not."""
    if not keeps_review:
        bench.review_id = None
    _review(bench, plan)
    edit_history(bench, reset=plan)
    bench.approved_plan = None
    bench.json_error = None
    bench.saved = saved
    bench.conflict = None  # about the plan the editor held before
    bench.baseline = fingerprint(plan)  # edits since are unsaved
    bench.pins, bench.recording = {}, None  # a rehearsal's stand-ins were the plan before's
    bench.opened += 1
    write_panel(bench, dump_plan(plan, "native"))


def take_edit(bench: Workbench, out: Outcome, plan: Plan, label: str, *, record: bool = True) -> bool:
    """Every edit of the plan under review goes through here (``record=False`` for undo and redo
    themselves). False when nothing changed."""
    current = bench.plan
    if current is not None and fingerprint(plan) == fingerprint(current):
        return False
    if record:
        kept = edit_history(bench)
        if kept.current is None and current is not None:
            kept.reset(current)
        kept.push(plan, label)
    bench.revision += 1
    run = bench.run
    if current is not None and execution_fingerprint(plan) == execution_fingerprint(current):
        # Only locks or notes changed: what runs is the same, so approval and run stay; the
        # run carries the plan as it is now, so Save stores it with the version holding it.
        bench.plan = plan
        if run is not None:
            bench.run = run.model_copy(update={"plan": plan})
        return True
    if run is not None and run.started_at is not None:
        # The results disappear with the run; say so, or it looks like they were lost.
        stored = " (it stays stored with the saved version)" if bench.run_saved == run.id else ""
        if bench.run_saved == run.id and run_waits(bench):
            stored = " (it still waits for a decision: find it on Reviews)"
        out.say("info", f"The plan changed, so its run was cleared{stored}. Approve the plan to run it again.")
    _review(bench, plan)
    return True


def edit_json(bench: Workbench, *, hold: bool = True) -> Outcome:
    """The Plan JSON changed: take the plan if it parses, else keep the text and say why.
    ``hold``: while ``edits_wait``, keep it pending instead (Apply gives False)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "edit the plan"):
        return out
    text = bench.panel_text
    bench.json_read = text
    if bench.plan is not None and (run_in_progress(bench) or (hold and run_waits(bench))):
        # The run goes on with the plan it started; the edit waits in the panel, as typed.
        bench.json_pending = text != dump_plan(bench.plan, "native")
        if bench.json_pending:
            out.say("info", _pending_note(bench))
        return out
    bench.json_pending = False
    try:
        plan, read_as = (load_plan(text, "native"), None) if bench.read_panel is None else bench.read_panel(text)
    except PlanError as exc:
        bench.json_error = plain_message(exc)
        return out
    bench.json_error = None
    take_edit(bench, out, plan, "edit the Plan JSON")
    if read_as is not None:  # another format pasted: the panel shows it as Plan Studio JSON now
        write_panel(bench, dump_plan(bench.plan, "native"))
        out.say("info", read_as)
    return out.done()


def apply_pending_edit(bench: Workbench) -> Outcome:
    """After the run: the edit that waited in the Plan JSON replaces the plan (if it parses)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "edit the plan"):
        return out
    if run_in_progress(bench):
        return out.say("warning", f"{RUN_IN_PROGRESS} before you apply your edit.")
    out = edit_json(bench, hold=False)  # the edit is the text in the panel, read afresh
    if bench.json_error is None:
        out.say("success", "Your edit made during the run is applied. Approve the plan to run it.")
    return out


def discard_pending_edit(bench: Workbench) -> Outcome:
    """The edit that waited in the Plan JSON goes; the panel shows the plan again."""
    if bench.plan is not None:
        write_panel(bench, dump_plan(bench.plan, "native"))
    return Outcome().done().say("info", "Your edit made during the run is discarded: the Plan JSON shows the "
                                        "plan again.")


def changed_plan(out: Outcome, label: str, change: Callable[[Plan], Plan], plan: Plan) -> Plan | None:
    """``change(plan)``, or None with the reason as a notice."""
    try:
        return change(plan)
    except PlanStudioError as exc:
        out.say("error", f"Could not {label}: {plain_message(exc)}")
    except Exception as exc:  # noqa: BLE001 (said to the user, not raised)
        out.say("error", failure_message(label, exc))
    return None


def hold_edit(bench: Workbench, out: Outcome, label: str, change: Callable[[Plan], Plan]) -> Plan | None:
    """During a run: make the edit to the pending text (or to the running plan, when nothing
    waits yet) and keep the outcome in the Plan JSON; None, with a notice, if it failed."""
    base = bench.plan
    if bench.json_pending:
        try:
            base = load_plan(bench.panel_text, "native")
        except PlanError as exc:
            out.say("error", f"Could not {label}: the edit waiting in the Plan JSON does not parse "
                             f"({plain_message(exc)}); fix it there first.")
            return None
    edited = changed_plan(out, label, change, base)
    if edited is None:
        return None
    write_panel(bench, dump_plan(edited, "native"))
    bench.json_pending = True
    out.say("info", _pending_note(bench))
    return edited


def apply_edit(bench: Workbench, label: str, change: Callable[[Plan], Plan]) -> tuple[Outcome, Plan | None]:
    """An edit made in the graph or the inspector: ``change`` made to the plan under review as
    one undo step, or held as pending text during a run. Gives the edited plan, or None when
    the edit was refused (the notice says why; the plan stays as it was)."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "edit the plan"):
        return (out, None)
    if bench.plan is None:
        return out, None
    if edits_wait(bench):
        return out, hold_edit(bench, out, label, change)
    if edit_refused(bench, out, label):
        return out, None
    edited = changed_plan(out, label, change, bench.plan)
    if edited is None:
        return out, None
    if take_edit(bench, out, edited, label):
        write_panel(bench, dump_plan(edited, "native"))
    out.done()
    return out, edited


def _move(bench: Workbench, label: str, step: Callable[[EditHistory], Plan | None]) -> Outcome:
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, label) or edit_refused(bench, out, label):
        return out
    if run_waits(bench):  # undo past the run's plan would take the waiting run off the page
        return out.say("warning", f"The run shown waits for a decision: decide its waiting steps before you {label} "
                                  "(or edit the plan: your edit is kept apart until you apply it).")
    plan = step(edit_history(bench))
    if plan is None:
        return out.say("info", f"Nothing to {label}.")
    take_edit(bench, out, plan, label, record=False)
    write_panel(bench, dump_plan(plan, "native"))
    bench.json_error = None
    return out.done()


def undo(bench: Workbench) -> Outcome:
    return _move(bench, "undo", EditHistory.undo)


def redo(bench: Workbench) -> Outcome:
    return _move(bench, "redo", EditHistory.redo)


def start_empty_plan(bench: Workbench) -> Outcome:
    """An empty plan to build step by step, for the goal typed so far."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "start a plan"):
        return out
    if edit_refused(bench, out, "start an empty plan"):
        return out
    show_plan(bench, Plan(goal=bench.goal.strip()), saved=None)
    return out.done()


def set_locks(bench: Workbench, locked: list[str]) -> Outcome:
    """Mark the steps ``locked`` so a re-plan keeps them; refused (the plan keeps its locks)
    during a run or while the Plan JSON does not parse."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "lock steps"):
        return out
    plan = bench.plan
    if plan is None:
        return out
    if refused_during_run(bench, out, "lock steps") or refused_for_json(bench, out, "change the locked steps"):
        return out
    steps = [s.model_copy(update={"locked": s.id in set(locked)}) for s in plan.steps]
    take_edit(bench, out, plan.model_copy(update={"steps": steps}), "change the locked steps")
    write_panel(bench, dump_plan(bench.plan, "native"))
    return out.done()


def approval_problem(bench: Workbench, validator: Validator) -> str | None:
    """Why the plan in the editor cannot be approved now, or None: the one rule of the Plan
    page's Approve and of an agent's review (the Plan JSON is a plan, the plan has no problems)."""
    blocker = json_blocker(bench)
    if blocker is not None:
        return blocker
    errors = [] if bench.plan is None else validator.errors(bench.plan)
    if errors:
        return (f"The plan has {len(errors)} problem{'s' if len(errors) != 1 else ''} to fix first "
                "(listed below the graph)")
    return None


def approve(bench: Workbench, validator: Validator, services: Services | None = None) -> Outcome:
    """Approve the plan in the editor, so it may run; refused while ``approval_problem`` says why,
    or (with ``services``) while the policy denies a step of it."""
    out = Outcome()
    if refused_for_role(bench.actor, out, Role.reviewer, "approve the plan to run"):
        return out
    plan = bench.plan
    if plan is None or refused_during_run(bench, out, "approve the plan") \
            or refused_for_json(bench, out, "approve the plan"):
        return out
    try:
        problem = approval_problem(bench, validator)
    except Exception as exc:
        return out.say("error", failure_message("approve the plan", exc))
    if problem is not None:
        return out.say("error", f"Could not approve the plan: {problem[0].lower()}{problem[1:]}.")
    if services is not None and (denied := policy_refusal(services, plan)) is not None:
        return out.say("error", f"Could not approve the plan: {denied}")
    bench.approved = execution_fingerprint(plan)
    bench.approved_plan = plan  # kept after approval is withdrawn: the editor marks steps changed since
    hooks.notify("plan_approved", plan=plan, review_id=None)
    return out.done()

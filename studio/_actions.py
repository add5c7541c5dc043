"""What the user can do to a plan: make it, edit it, approve it, run it, save it, open it.

Each action reads and writes the session state (``_state``) and uses the shared services.
Buttons call them as callbacks, so the state is settled before the page is drawn. An action
never lets an exception reach the page: a ``PlanStudioError`` becomes its message; anything
else becomes a short notice and a full entry in the log.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator, Literal

import streamlit as st

from core import (FINISHED, FORMATS, BackgroundRun, EditHistory, Plan, PlanError, PlanFormatError, PlanStudioError,
                  PlanIdentity, Run, RunKind, StepStatus, Validator, VersionConflict, dump_plan, load_plan,
                  plan_identity)
from core.planners import PlanContext, planner_notices

from ._changes import describe_changes
from ._json_panel_read import read_panel_text
from ._services import Services
from ._session import get_services
from ._state import Conflict, Keys, SavedRef
from ._text import md_escape

__all__ = [
    "PENDING_EDIT", "RUN_IN_PROGRESS", "approve", "cancel_new_run", "collect_finished_run", "confirm_new_run",
    "delete_saved_plan", "describe_changes", "edit_json", "edit_refused", "execution_fingerprint",
    "failure_message", "fingerprint", "history", "import_plan", "is_approved", "json_blocker", "make_plan",
    "notify", "open_saved_plan", "open_saved_run", "page_services", "plain_message", "reload_newer_version",
    "replan", "reported", "request_run", "run_in_progress", "save", "save_on_top", "set_locks", "settled_run",
    "show_notices", "show_plan", "shown", "stop_run", "take_edit", "write_json_panel",
]

log = logging.getLogger("studio")

NoticeKind = Literal["error", "warning", "success", "info"]


def notify(kind: NoticeKind, text: str) -> None:
    st.session_state[Keys.NOTICES].append((kind, text))


def plain_message(exc: PlanStudioError) -> str:
    """The message without the parts meant for a log: the format's short name before a format
    error (the page names the format in words) and pydantic's "Value error, "."""
    message = str(exc)
    if isinstance(exc, PlanFormatError):
        message = message.removeprefix(f"{exc.format}: ")
    return message.replace("Value error, ", "")


def failure_message(action: str, exc: Exception) -> str:
    """What the user reads when ``action`` failed: the message of our errors, a hint otherwise."""
    if isinstance(exc, PlanStudioError):
        return f"Could not {action}: {plain_message(exc)}"
    # The UI shows no tracebacks; the log keeps the details.
    log.error("unexpected error while trying to %s", action, exc_info=exc)
    return f"Could not {action}: unexpected {type(exc).__name__}. The details are in the studio's log."


@contextmanager
def reported(action: str) -> Iterator[None]:
    """In a callback: turn any failure inside the block into a notice for the page."""
    try:
        yield
    except Exception as exc:
        notify("error", failure_message(action, exc))


@contextmanager
def shown(action: str) -> Iterator[None]:
    """While the page is drawn: show any failure inside the block where it happened."""
    try:
        yield
    except Exception as exc:
        st.error(failure_message(action, exc))


def page_services(action: str) -> Services | None:
    """The services for a page, or None once the page shows why they could not be had."""
    with shown(action):
        return get_services()
    return None


def fingerprint(plan: Plan) -> PlanIdentity:
    """Equal for plans that would save as the same version."""
    return plan_identity(plan)


def execution_fingerprint(plan: Plan) -> str:
    """Equal for plans that would run the same way: locks and notes are review metadata
    (``core._identity``), so locking or annotating a step keeps the approval and the run."""
    return plan_identity(plan).runs


def is_approved(plan: Plan) -> bool:
    """True only for a plan that runs exactly as the one the user approved: any change to what
    runs (JSON, import, re-plan) gives it another fingerprint, so approval never carries over to
    it; locking a step or editing a note does not change what runs, so approval stays."""
    return st.session_state[Keys.APPROVED] == execution_fingerprint(plan)


def json_blocker() -> str | None:
    """Why Approve, Run and Save must wait, or None: while the Plan JSON holds text that is not a
    plan, the plan they would act on (the last valid one) is not what the panel shows."""
    if st.session_state[Keys.JSON_PENDING]:
        return "Apply or discard the edit you made during the run first (below the Plan JSON)"
    error = st.session_state[Keys.JSON_ERROR]
    return None if error is None else f"Fix the Plan JSON first ({error})"


def _refused_for_json(action: str) -> bool:
    """In a callback: refuse ``action`` while the JSON does not parse (a click the page sent
    before it drew the button disabled must not act on the last valid plan)."""
    if st.session_state.get(Keys.JSON, "") != st.session_state[Keys.JSON_READ]:
        # Text typed then a click send one rerun, and Streamlit may call the click's callback
        # before the panel's: read the text first, so the click acts on what the panel shows.
        edit_json()
    blocker = json_blocker()
    if blocker is not None:
        notify("error", f"Could not {action}. {blocker}: it would act on the last valid plan, "
                        "not the text in the panel.")
    return blocker is not None


def edit_refused(action: str) -> bool:
    """In a callback: refuse an edit while a run is in progress or the Plan JSON does not parse
    (writing the plan back would overwrite the text being fixed), with a notice saying why."""
    return _refused_during_run(action) or _refused_for_json(action)


def show_notices() -> None:
    """The notices the last action left, where the page is being drawn."""
    for kind, text in st.session_state[Keys.NOTICES]:
        getattr(st, kind)(md_escape(text))


def write_json_panel(text: str) -> None:
    """Put ``text`` in the Plan JSON panel from code: noted as read, since nobody typed it
    (``_refused_for_json`` reads only what the user typed and no callback has read yet)."""
    st.session_state[Keys.JSON] = text
    st.session_state[Keys.JSON_READ] = text
    st.session_state[Keys.JSON_PENDING] = False


def show_plan(plan: Plan, *, saved: SavedRef | None, keeps_review: bool = False) -> None:
    """Put ``plan`` in the editor as the plan to review: not approved, not run, its edit history
    starting from it. Another plan (a new goal, an import, one from the Library) also ends an
    agent's review held open here, so its approval cannot send a plan the agent never sent;
    a re-plan of the plan under review (``keeps_review``) does not."""
    if not keeps_review:
        st.session_state[Keys.REVIEW_OPEN] = None
    _review(plan)
    history(reset=plan)
    st.session_state[Keys.EDITOR_APPROVED_PLAN] = None
    st.session_state[Keys.EDITOR_SELECTED] = None
    st.session_state[Keys.EDITOR_DELETE] = None
    st.session_state[Keys.EDITOR_FIELD_ERRORS] = {}
    st.session_state[Keys.EDITOR_CONFIRM_APPROVE] = False
    st.session_state[Keys.JSON_ERROR] = None
    st.session_state[Keys.SAVED] = saved
    st.session_state[Keys.CONFLICT] = None  # about the plan the editor held before
    st.session_state[Keys.EDITOR_BASELINE] = fingerprint(plan)  # edits since are unsaved (_unsaved)
    write_json_panel(dump_plan(plan, "native"))


def _review(plan: Plan) -> None:
    """``plan`` becomes the one under review: approval and run start over."""
    st.session_state[Keys.PLAN] = plan
    st.session_state[Keys.LOCKS] = [s.id for s in plan.steps if s.locked]
    st.session_state[Keys.APPROVED] = None
    st.session_state[Keys.RUN] = None
    st.session_state[Keys.RUN_SAVED] = None
    st.session_state[Keys.CONFIRM_NEW_RUN] = None
    st.session_state[Keys.GOAL] = plan.goal


def make_plan() -> None:
    st.session_state[Keys.NOTICES] = []
    if _refused_during_run("make a new plan"):
        return
    goal = st.session_state.get(Keys.GOAL, "").strip()
    if not goal:
        notify("error", "Type a goal first, e.g. “Get contaminated shipments from Berlin facilities”.")
        return
    with reported("make a plan"):
        services = get_services()
        previous: Plan | None = st.session_state[Keys.PLAN]
        context = PlanContext(previous.goal, previous) if previous is not None and previous.steps else None
        plan = services.planner.plan(goal, today=services.settings.effective_today(), context=context)
        show_plan(plan, saved=None)
        for kind, notice in planner_notices(plan):
            notify(kind, notice)  # escaped where drawn: the words are the user's own text


def replan() -> None:
    """Change the plan as the feedback asks; both versions are stored, so the old one stays in
    the history (locked steps are kept by the planner)."""
    st.session_state[Keys.NOTICES] = []
    if _refused_during_run("re-plan"):
        return
    feedback = st.session_state.get(Keys.FEEDBACK, "").strip()
    plan: Plan | None = st.session_state[Keys.PLAN]
    if plan is None or not feedback:
        notify("error", "Write what should change in the plan first.")
        return
    if _refused_for_json("re-plan"):
        return
    with reported("re-plan"):
        services = get_services()
        new_plan = services.planner.replan(plan, feedback, today=services.settings.effective_today())
        try:
            saved = _store_current(plan, message="before re-plan")
        except VersionConflict as conflict:
            # Nothing is stored and the re-planned plan is let go: the user first settles
            # which version to build on, then asks again (the feedback stays in its box).
            _hold_conflict(conflict, plan, save_message="before re-plan")
            return
        version = services.store.save_plan(new_plan, plan_id=saved.plan_id, message=f"re-plan: {feedback}")
        show_plan(new_plan, saved=SavedRef(version.plan_id, version.version, fingerprint(new_plan)),
                  keeps_review=True)
        st.session_state[Keys.FEEDBACK] = ""
        changes = describe_changes(plan, new_plan)
        notify("success", f"Re-planned as version {version.version} ({changes}); version "
                          f"{saved.version} stays in the history. Review it, then approve again.")


def _store_current(plan: Plan, *, message: str, over: int | None = None) -> SavedRef:
    """The stored version holding ``plan``: the saved one if unchanged, else a new version.

    The new version must follow the one this tab opened (or ``over``, a newer one the user
    chose to save on top of); when another tab saved in between, the store raises
    ``VersionConflict`` and nothing is written.
    """
    saved: SavedRef | None = st.session_state[Keys.SAVED]
    if saved is not None and saved.fingerprint == fingerprint(plan):
        return saved
    expected = None if saved is None else (saved.version if over is None else over)
    version = get_services().store.save_plan(plan, plan_id=saved.plan_id if saved else None,
                                             message=message, expected_version=expected)
    saved = SavedRef(version.plan_id, version.version, fingerprint(plan))
    st.session_state[Keys.SAVED] = saved
    st.session_state[Keys.CONFLICT] = None
    return saved


def _hold_conflict(conflict: VersionConflict, plan: Plan, *, save_message: str) -> None:
    """Keep what the refused save needs to tell the user and to be made again on request."""
    store = get_services().store
    changes = describe_changes(store.load_plan(conflict.plan_id, conflict.expected),
                               store.load_plan(conflict.plan_id, conflict.latest))
    st.session_state[Keys.CONFLICT] = Conflict(
        plan_id=conflict.plan_id, opened=conflict.expected, latest=conflict.latest,
        saved_at=conflict.saved_at, message=conflict.message, changes=changes, save_message=save_message)


def reload_newer_version() -> None:
    """Give up this tab's unsaved edits and open the newer version another tab saved."""
    conflict: Conflict | None = st.session_state[Keys.CONFLICT]
    if conflict is not None:
        open_saved_plan(conflict.plan_id, conflict.latest)


def save_on_top() -> None:
    """Save this tab's plan as the version after the newer one; its message says so."""
    st.session_state[Keys.NOTICES] = []
    conflict: Conflict | None = st.session_state[Keys.CONFLICT]
    plan: Plan | None = st.session_state[Keys.PLAN]
    if conflict is None or plan is None or _refused_for_json("save the plan"):
        return
    note = f"saved over version {conflict.latest} (edited from version {conflict.opened})"
    message = f"{conflict.save_message} · {note}" if conflict.save_message else note
    with reported("save the plan"):
        try:
            saved = _store_current(plan, message=message, over=conflict.latest)
        except VersionConflict as newer:  # yet another save came in meanwhile
            _hold_conflict(newer, plan, save_message=conflict.save_message)
            return
        st.session_state[Keys.SAVE_MESSAGE] = ""
        notify("success", f"Saved as version {saved.version}, after version {conflict.latest}; "
                          f"its changes are not in yours ({conflict.changes}).")


def set_locks() -> None:
    """The locked-steps picker changed: mark those steps so a re-plan keeps them."""
    plan: Plan | None = st.session_state[Keys.PLAN]
    if plan is None:
        return
    if _refused_during_run("lock steps") or _refused_for_json("change the locked steps"):
        # Writing the plan back would overwrite the text being fixed (or the running plan);
        # keep the locks it has.
        st.session_state[Keys.LOCKS] = [s.id for s in plan.steps if s.locked]
        return
    locked = set(st.session_state.get(Keys.LOCKS) or [])
    steps = [s.model_copy(update={"locked": s.id in locked}) for s in plan.steps]
    take_edit(plan.model_copy(update={"steps": steps}), "change the locked steps")
    write_json_panel(dump_plan(st.session_state[Keys.PLAN], "native"))


def import_plan(text: str, fmt: str) -> None:
    """Put a plan written in ``fmt`` into the editor; on failure the import text is kept."""
    st.session_state[Keys.NOTICES] = []
    if _refused_during_run("import a plan"):
        return
    if not text.strip():
        notify("error", "Paste a plan or choose a file to import first.")
        return
    with reported(f"import the {FORMATS[fmt].label}"):
        plan = load_plan(text, fmt, get_services().registry)
        show_plan(plan, saved=None)
        st.session_state[Keys.IMPORT_TEXT] = ""
        notify("success", f"Imported {len(plan.steps)} step{'s' if len(plan.steps) != 1 else ''} "
                          f"from the {FORMATS[fmt].label}. Review it, then approve it.")


def edit_json() -> None:
    """The JSON panel changed: take the plan if it parses, else keep the text and say why."""
    if st.session_state.get(Keys.JSON, "") == st.session_state[Keys.JSON_READ]:
        return  # read already, by a click sent in the same rerun (_refused_for_json)
    st.session_state[Keys.NOTICES] = []
    running: Plan | None = st.session_state[Keys.PLAN]
    text = st.session_state.get(Keys.JSON, "")
    st.session_state[Keys.JSON_READ] = text
    if running is not None and run_in_progress():
        # The run goes on with the plan it started; the edit waits in the panel, as typed,
        # until the user applies it after the run (_pending_edit).
        st.session_state[Keys.JSON_PENDING] = text != dump_plan(running, "native")
        if st.session_state[Keys.JSON_PENDING]:
            notify("info", PENDING_EDIT)
        return
    st.session_state[Keys.JSON_PENDING] = False
    try:
        plan, read_as = read_panel_text(text, get_services().registry)
    except PlanError as exc:
        st.session_state[Keys.JSON_ERROR] = plain_message(exc)
        return
    st.session_state[Keys.JSON_ERROR] = None
    take_edit(plan, "edit the Plan JSON")
    if read_as is not None:  # another format pasted: the panel shows it as native JSON now
        write_json_panel(dump_plan(st.session_state[Keys.PLAN], "native"))
        notify("info", read_as)


def history(*, reset: Plan | None = None) -> EditHistory:
    """The undo history of the plan under review, kept in the session across reruns."""
    kept: EditHistory | None = st.session_state[Keys.EDITOR_HISTORY]
    if kept is None or reset is not None:
        current = reset if reset is not None else st.session_state[Keys.PLAN]
        kept = EditHistory(current) if current is not None else EditHistory()
        st.session_state[Keys.EDITOR_HISTORY] = kept
    return kept


def take_edit(plan: Plan, label: str, *, record: bool = True) -> bool:
    """Every edit of the plan under review goes through here, from the graph, the inspector,
    the JSON panel or the lock picker: the plan is replaced, the edit is one undo step
    (``record=False`` for undo and redo themselves), approval is withdrawn when what runs
    changed, and the inspector's fields are drawn afresh. False when nothing changed."""
    current: Plan | None = st.session_state[Keys.PLAN]
    if current is not None and fingerprint(plan) == fingerprint(current):
        return False
    if record:
        kept = history()
        if kept.current is None and current is not None:
            kept.reset(current)
        kept.push(plan, label)
    st.session_state[Keys.EDITOR_REVISION] += 1
    st.session_state[Keys.EDITOR_FIELD_ERRORS] = {}
    if st.session_state[Keys.EDITOR_SELECTED] not in {s.id for s in plan.steps}:
        st.session_state[Keys.EDITOR_SELECTED] = None
    _take_edit(plan)
    return True


def _take_edit(plan: Plan) -> None:
    """An edited plan replaces the one under review: approval and run start over."""
    current: Plan | None = st.session_state[Keys.PLAN]
    if current is not None and fingerprint(plan) == fingerprint(current):
        return
    run: Run | None = st.session_state[Keys.RUN]
    if current is not None and execution_fingerprint(plan) == execution_fingerprint(current):
        # Only locks or notes changed: what runs is the same, so approval and run stay; the
        # run carries the plan as it is now, so Save stores it with the version holding it.
        st.session_state[Keys.PLAN] = plan
        st.session_state[Keys.LOCKS] = [s.id for s in plan.steps if s.locked]
        if run is not None:
            st.session_state[Keys.RUN] = run.model_copy(update={"plan": plan})
        return
    if run is not None and run.started_at is not None:
        # The results disappear with the run; say so, or it looks like they were lost.
        stored = " (it stays stored with the saved version)" if st.session_state[Keys.RUN_SAVED] == run.id else ""
        notify("info", f"The plan changed, so its run was cleared{stored}. Approve the plan to run it again.")
    _review(plan)


def approve(validator: Validator) -> None:
    st.session_state[Keys.NOTICES] = []
    plan: Plan | None = st.session_state[Keys.PLAN]
    if plan is None or _refused_during_run("approve the plan") or _refused_for_json("approve the plan"):
        return
    with reported("approve the plan"):
        errors = validator.errors(plan)
        if errors:
            notify("error", f"The plan has {len(errors)} problem(s); fix them before approving.")
            return
        st.session_state[Keys.APPROVED] = execution_fingerprint(plan)
        # Kept after approval is withdrawn: the editor marks the steps changed since.
        st.session_state[Keys.EDITOR_APPROVED_PLAN] = plan
        st.session_state[Keys.EDITOR_CONFIRM_APPROVE] = False


# -- runs ----------------------------------------------------------------------------------------
# A run is carried out by a BackgroundRun, not by the script that draws the page: Streamlit stops
# that script at the next click, which would cut the run off mid-step. While the worker is
# alive it owns the run (Keys.RUN is None); the page shows its progress and collects the run
# when it ends. Clicks that would change the plan or start another run meanwhile are refused.

RUN_IN_PROGRESS = "A run is in progress: wait for it to finish or press Stop"
PENDING_EDIT = ("Your edit is kept in the Plan JSON, not applied yet: a run is in progress, and it goes on with "
                "the plan it started. Apply it (or discard it) below the Plan JSON once the run has ended.")


def run_in_progress() -> bool:
    worker: BackgroundRun | None = st.session_state[Keys.WORKER]
    return worker is not None and worker.alive


def _refused_during_run(action: str) -> bool:
    """True, with a notice saying why, when a run is in progress and ``action`` must wait."""
    if not run_in_progress():
        return False
    notify("warning", f"{RUN_IN_PROGRESS} before you {action}.")
    return True


def request_run(kind: RunKind) -> None:
    """Start running the next step or the rest of the approved plan in the background.

    A paused or interrupted run carries on. After a finished run, "Run next step" asks first
    (the user may expect a next step where there is none, and a new run replaces the results
    on the page); "Run all" is plainly a new run.
    """
    st.session_state[Keys.NOTICES] = []
    st.session_state[Keys.CONFIRM_NEW_RUN] = None
    if _refused_during_run("start another run") or _refused_for_json("run the plan"):
        return
    plan: Plan | None = st.session_state[Keys.PLAN]
    if plan is None or not is_approved(plan):
        notify("error", "Could not run the plan: approve this version of it first.")
        return
    run: Run | None = st.session_state[Keys.RUN]
    if kind == "next" and run is not None and run.finished and _same_run(run, plan):
        st.session_state[Keys.CONFIRM_NEW_RUN] = kind
        return
    _start_run(plan, kind)


def confirm_new_run() -> None:
    """The user confirmed: start the new run that "Run next step" asked about."""
    kind: RunKind | None = st.session_state[Keys.CONFIRM_NEW_RUN]
    st.session_state[Keys.CONFIRM_NEW_RUN] = None
    st.session_state[Keys.NOTICES] = []
    plan: Plan | None = st.session_state[Keys.PLAN]
    if kind is None or plan is None or _refused_during_run("start another run") or _refused_for_json("run the plan"):
        return
    if not is_approved(plan):
        notify("error", "Could not run the plan: approve this version of it first.")
        return
    _start_run(plan, kind)


def cancel_new_run() -> None:
    st.session_state[Keys.CONFIRM_NEW_RUN] = None


def _same_run(run: Run, plan: Plan) -> bool:
    return execution_fingerprint(run.plan) == execution_fingerprint(plan)


def _start_run(plan: Plan, kind: RunKind) -> None:
    with reported("run the plan"):
        services = get_services()
        run: Run | None = st.session_state[Keys.RUN]
        if run is None or run.finished or not _same_run(run, plan):
            run = services.executor.start(plan)
            st.session_state[Keys.RUN_SAVED] = None
        st.session_state[Keys.RUN] = None  # the worker's until collected
        st.session_state[Keys.WORKER] = BackgroundRun(services.executor, run, kind).start()


def stop_run() -> None:
    """Stop the run in progress after its current step; the steps not started stay pending."""
    worker: BackgroundRun | None = st.session_state[Keys.WORKER]
    if worker is not None:
        worker.stop()


def collect_finished_run() -> None:
    """Take the run back from a worker that has finished: show it, and store it with the plan
    when the plan is saved. Every page calls it, so a run is stored wherever the user is."""
    worker: BackgroundRun | None = st.session_state.get(Keys.WORKER)
    if worker is None or worker.alive:
        return
    st.session_state[Keys.WORKER] = None
    run = worker.run
    st.session_state[Keys.RUN] = run
    if worker.error is not None:
        notify("error", failure_message("finish the run", worker.error))
    with reported("save the run"):
        _save_run_if_plan_saved(run)


def _save_run_if_plan_saved(run: Run) -> None:
    saved: SavedRef | None = st.session_state[Keys.SAVED]
    if saved is None or saved.fingerprint != fingerprint(run.plan):
        return
    get_services().store.save_run(run, plan_id=saved.plan_id, version=saved.version)
    st.session_state[Keys.RUN_SAVED] = run.id


def save() -> None:
    """Store the plan (a new version when it changed since the last save) and its run."""
    st.session_state[Keys.NOTICES] = []
    plan: Plan | None = st.session_state[Keys.PLAN]
    if plan is None or _refused_for_json("save the plan"):
        return
    with reported("save the plan"):
        saved: SavedRef | None = st.session_state[Keys.SAVED]
        if saved is not None and saved.fingerprint == fingerprint(plan):
            notify("info", f"No changes since version {saved.version}.")
        else:
            message = st.session_state.get(Keys.SAVE_MESSAGE, "").strip()
            try:
                saved = _store_current(plan, message=message)
            except VersionConflict as conflict:
                _hold_conflict(conflict, plan, save_message=message)
                return
            st.session_state[Keys.SAVE_MESSAGE] = ""
            notify("success", f"Saved as version {saved.version}.")
        run: Run | None = st.session_state[Keys.RUN]
        if run_in_progress():
            notify("info", "The run in progress is saved with this version when it finishes.")
        elif run is not None and run.started_at is not None:
            _save_run_if_plan_saved(run)


def open_saved_plan(plan_id: str, version: int | None = None) -> bool:
    """Load a stored plan (its latest version by default) into the editor, with the latest run
    stored for that version; False if it failed."""
    st.session_state[Keys.NOTICES] = []
    if _refused_during_run("open another plan"):
        return False
    with reported("open the plan"):
        store = get_services().store
        if version is None:
            version = max(v.version for v in store.versions(plan_id))
        plan = store.load_plan(plan_id, version)
        run_id = store.latest_run_id(plan_id, version)
        run = None if run_id is None else store.load_run(run_id)
        show_plan(plan, saved=SavedRef(plan_id, version, fingerprint(plan)))
        said = f"Opened version {version} of this plan."
        if run is not None:
            _show_stored_run(run)
            said += f" Its latest run is shown below ({_run_state(run)})."
        notify("info", said)
        return True
    return False


def open_saved_run(plan_id: str, version: int, run_id: str) -> bool:
    """Load a stored run with the plan version it ran into the editor; False if it failed."""
    st.session_state[Keys.NOTICES] = []
    if _refused_during_run("open another run"):
        return False
    with reported("open the run"):
        store = get_services().store
        plan = store.load_plan(plan_id, version)
        run = store.load_run(run_id)
        show_plan(plan, saved=SavedRef(plan_id, version, fingerprint(plan)))
        _show_stored_run(run)
        notify("info", f"Opened run {run.id} ({_run_state(run)}) of version {version} of this plan. "
                       "Approve the plan to run it again" + (" or carry on." if not run.finished else "."))
        return True
    return False


# A stored run is not running, whatever its steps said when it was stored: the studio stopped or
# the tab went away mid-step. Such steps show, and run again, as interrupted.
_CUT_OFF = "interrupted: the run stopped while this step was running; it runs again on the next run"


def settled_run(run: Run) -> Run:
    """``run`` as it stands when nothing carries it out: steps left running become interrupted."""
    cut = {step_id: state.model_copy(update={"status": StepStatus.interrupted, "error": _CUT_OFF, "worker": None})
           for step_id, state in run.steps.items() if state.status == StepStatus.running}
    return run.model_copy(update={"steps": {**run.steps, **cut}}) if cut else run


def _show_stored_run(run: Run) -> None:
    st.session_state[Keys.RUN] = settled_run(run)
    st.session_state[Keys.RUN_SAVED] = run.id


def _run_state(run: Run) -> str:
    done = sum(s.status in FINISHED for s in run.steps.values())
    return run.status if run.finished else f"paused, {done} of {len(run.steps)} steps done"


def delete_saved_plan(plan_id: str, goal: str) -> None:
    """Delete a stored plan with its versions and runs; a copy open in the editor stays, unsaved.

    The outcome goes to the Library's own message, not the Plan page's notices."""
    try:
        get_services().store.delete_plan(plan_id)
    except Exception as exc:
        st.session_state[Keys.LIBRARY_MESSAGE] = ("error", failure_message("delete the plan", exc))
        return
    saved: SavedRef | None = st.session_state[Keys.SAVED]
    if saved is not None and saved.plan_id == plan_id:
        st.session_state[Keys.SAVED] = None
        st.session_state[Keys.RUN_SAVED] = None
        st.session_state[Keys.NOTICES] = []  # "Opened version N" would now be wrong
    st.session_state[Keys.LIBRARY_MESSAGE] = ("success", f"Deleted “{goal or plan_id}” with its versions and runs.")

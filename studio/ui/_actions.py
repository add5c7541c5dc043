"""The Plan page's buttons, as thin adapters over the workbench (``studio.workbench``).

Each callback copies the widgets' text into the session's ``Workbench`` (``sync_in``), calls one
use case, keeps the notices it returns, and writes back what the use case changed into the
widgets and the editor's view state (``sync_out``). The rules live in the workbench; this module
only knows Streamlit. Buttons call these as callbacks, so the state is settled before the page
is drawn; nothing here lets an exception reach the page.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import streamlit as st

from core import (EditHistory, Plan, PlanError, RunKind, Validator, dump_plan, load_plan, plan_with_positions,
                  text_with_ids, text_with_positions)

from .. import workbench as wb
from ..workbench._changes import describe_changes
from ._json_panel_read import read_panel_text
from ..workbench._services import Services
from ._session import get_services
from ._state import Keys, SavedRef, bench
from ._text import md_escape
from ..workbench import (PENDING_EDIT, RUN_IN_PROGRESS, Outcome, Workbench, execution_fingerprint, failure_message,
                        fingerprint, log, plain_message, settled_run)

__all__ = [
    "PENDING_EDIT", "RUN_IN_PROGRESS", "act", "approve", "bench", "cancel_new_run", "collect_finished_run",
    "confirm_new_run", "delete_saved_plan", "describe_changes", "edit_json",
    "execution_fingerprint", "failure_message", "fingerprint", "history", "import_plan", "is_approved",
    "json_blocker", "log", "make_plan", "notify", "open_live_run", "open_saved_plan", "open_saved_run", "page_services",
    "plain_message", "refresh_run", "reload_newer_version", "replan", "reported", "request_run", "run_in_progress", "save",
    "save_on_top", "set_locks", "settled_run", "show_notices", "show_plan", "shown", "stop_run",
    "switch_reference_form", "write_json_panel",
]


# -- between the widgets and the workbench ---------------------------------------------------------

def _put(key: str, value: Any) -> None:
    """Write a widget's value only when it differs (a widget drawn in this run may not be written)."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value


def sync_in(b: Workbench) -> None:
    """The widgets' text as the user left it, into the workbench."""
    state = st.session_state
    b.goal = str(state.get(Keys.GOAL) or "")
    b.panel_text = str(state.get(Keys.JSON) or "")
    b.comment = str(state.get(Keys.REVIEW_COMMENT) or "")
    b.read_panel = lambda text: read_panel_text(text, get_services().registry)  # any format, named


@dataclass(frozen=True)
class _Seen:
    opened: int
    revision: int

    @classmethod
    def of(cls, b: Workbench) -> "_Seen":
        return cls(b.opened, b.revision)


def _in_reference_form(b: Workbench) -> None:
    """The Plan JSON with its references in the form the page shows (by id, or by position as
    the seed writes them), when the text is the plan: text nobody has read yet, text that does
    not parse and an edit waiting during a run stay exactly as typed. Only the references
    change, and only when the text still reads as the same plan (a reference-like text in a
    note is text)."""
    text, plan = b.panel_text, b.plan
    if plan is None or b.json_error is not None or b.json_pending or text != b.json_read:
        return
    ids = [s.id for s in plan.steps]
    by_position = bool(st.session_state.get(Keys.JSON_POSITIONS))
    shown = text_with_positions(text, ids) if by_position else text_with_ids(text, ids)
    if shown == text:
        return
    if not _reads_as(shown, plan):
        # Something else in the text looked like a reference (a note): write the plan afresh,
        # only its params in the form picked.
        shown = dump_plan(plan_with_positions(plan) if by_position else plan, "native")
        if not _reads_as(shown, plan):
            return
    wb.write_panel(b, shown)


def _reads_as(text: str, plan: Plan) -> bool:
    try:
        return load_plan(text, "native") == plan
    except PlanError:
        return False


def sync_out(b: Workbench, before: _Seen) -> None:
    """What the use case changed, into the widgets and the editor's view state."""
    _put(Keys.GOAL, b.goal)
    _in_reference_form(b)
    _put(Keys.JSON, b.panel_text)
    _put(Keys.REVIEW_COMMENT, b.comment)
    if b.plan is not None:
        _put(Keys.LOCKS, [s.id for s in b.plan.steps if s.locked])
    state = st.session_state
    if b.opened != before.opened:  # another plan: nothing selected, asked or marked of the old one
        state[Keys.EDITOR_SELECTED] = None
        state[Keys.EDITOR_DELETE] = None
        state[Keys.EDITOR_FIELD_ERRORS] = {}
        state[Keys.EDITOR_CONFIRM_APPROVE] = False
    elif b.revision != before.revision:  # an edit: the inspector's fields are drawn afresh
        state[Keys.EDITOR_FIELD_ERRORS] = {}
        if b.plan is None or state[Keys.EDITOR_SELECTED] not in {s.id for s in b.plan.steps}:
            state[Keys.EDITOR_SELECTED] = None


def act(use_case: Callable[[Workbench], Outcome], action: str, *, clear: bool = True) -> Outcome:
    """Run ``use_case`` on this session's workbench; its notices replace the last action's
    (``clear``) or join them. A failure to get there (no services, say) is a notice too."""
    b = bench()
    sync_in(b)
    before = _Seen.of(b)
    out = Outcome()
    with wb.attempt(out, action):
        out = use_case(b)
    if clear:
        b.notices = []
    b.notices.extend(out.notices)
    sync_out(b, before)
    return out


def notify(kind: wb.NoticeKind, text: str) -> None:
    bench().notices.append(wb.Notice(kind, text))


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


def page_services(title: str, action: str, *, heading: bool = True) -> Services | None:
    """A page's title (unless not ``heading``), then the services for it; None once the page
    shows why they could not be had (``action`` says what the page was about to do)."""
    if heading:
        st.title(title)
    with shown(action):
        return get_services()
    return None


def show_notices() -> None:
    """The notices the last action left, where the page is being drawn."""
    for kind, text in bench().notices:
        getattr(st, kind)(md_escape(text))


# -- what the page reads -----------------------------------------------------------------------------

def is_approved(plan: Plan) -> bool:
    return wb.is_approved(bench(), plan)


def json_blocker() -> str | None:
    return wb.json_blocker(bench())


def run_in_progress() -> bool:
    return wb.run_in_progress(bench())


def history() -> EditHistory:
    return wb.edit_history(bench())


def write_json_panel(text: str) -> None:
    """Put ``text`` in the Plan JSON panel from code, noted as read."""
    b = bench()
    wb.write_panel(b, text)
    _in_reference_form(b)
    _put(Keys.JSON, b.panel_text)


def switch_reference_form() -> None:
    """The toggle changed: show the references in the form picked, or say why not yet."""
    def switch(b: Workbench) -> Outcome:
        out = Outcome()
        if b.json_error is not None or b.json_pending or b.panel_text != b.json_read:
            out.say("info", "The references switch form once the Plan JSON is applied and parses; your text "
                            "is kept as typed.")
        return out
    act(switch, "switch the form of references", clear=False)


def show_plan(plan: Plan, *, saved: SavedRef | None, keeps_review: bool = False) -> None:
    act(lambda b: (wb.show_plan(b, plan, saved=saved, keeps_review=keeps_review), Outcome().done())[1],
        "show the plan", clear=False)


# -- the callbacks ----------------------------------------------------------------------------------

def make_plan() -> None:
    act(lambda b: wb.plan_goal(b, get_services()), "make a plan")


def replan() -> None:
    if act(lambda b: wb.replan(b, get_services(), str(st.session_state.get(Keys.FEEDBACK) or "")), "re-plan").ok:
        st.session_state[Keys.FEEDBACK] = ""


def import_plan(text: str, fmt: str) -> None:
    """Put a plan written in ``fmt`` into the editor; on failure the import text is kept."""
    if act(lambda b: wb.import_plan(b, get_services(), text, fmt), "import the plan").ok:
        st.session_state[Keys.IMPORT_TEXT] = ""


def edit_json() -> None:
    """The JSON panel changed: take the plan if it parses, else keep the text and say why."""
    if st.session_state.get(Keys.JSON, "") == bench().json_read:
        return  # read already, by a click sent in the same rerun (workbench.refused_for_json)
    act(wb.edit_json, "edit the Plan JSON")


def set_locks() -> None:
    """The locked-steps picker changed: mark those steps so a re-plan keeps them."""
    locked = list(st.session_state.get(Keys.LOCKS) or [])
    act(lambda b: wb.set_locks(b, locked), "change the locked steps", clear=False)


def approve(validator: Validator) -> None:
    if act(lambda b: wb.approve(b, validator, get_services()), "approve the plan").ok:
        st.session_state[Keys.EDITOR_CONFIRM_APPROVE] = False


# A run this short (the demo plan's two steps) ends before the click's own rerun would draw its
# progress: waiting that long draws it finished at once, where watching it took a poll of the
# progress view (every 0.5 s) and a rerun more. A longer run shows its progress that much later.
QUICK_RUN_SECONDS = 0.3


def _settle() -> None:
    """Give a run just started ``QUICK_RUN_SECONDS`` to end (``collect_finished_run`` takes it)."""
    worker = bench().worker
    if worker is not None:
        worker.join(QUICK_RUN_SECONDS)


def request_run(kind: RunKind) -> None:
    act(lambda b: wb.request_run(b, get_services(), kind), "run the plan")
    _settle()


def confirm_new_run() -> None:
    act(lambda b: wb.confirm_new_run(b, get_services()), "run the plan")
    _settle()


def open_live_run() -> None:
    """Open the live run the new-run question is about (watch it, decide, resume), in place of
    a second run; the editor holds that very version, so nothing unsaved is lost."""
    live = bench().live_run
    if live is not None:
        open_saved_run(live.plan_id, live.version, live.id)


def refresh_run() -> bool:
    """Read the run shown again from the store (it moved there); True when the page changed."""
    b = bench()
    try:
        return wb.refresh_run(b, get_services())
    except Exception as exc:  # said on the page, never a traceback
        notify("error", failure_message("read the run again", exc))
        return True


def cancel_new_run() -> None:
    act(wb.cancel_new_run, "cancel the new run", clear=False)


def stop_run() -> None:
    act(wb.stop_run, "stop the run", clear=False)


def cancel_run() -> None:
    act(wb.cancel_run, "cancel the run", clear=False)


def collect_finished_run() -> None:
    """Every page calls it, so a run is stored wherever the user is."""
    act(lambda b: wb.collect_finished_run(b, lambda: get_services().store), "save the run", clear=False)


def save() -> None:
    message = str(st.session_state.get(Keys.SAVE_MESSAGE) or "")
    if act(lambda b: wb.save(b, get_services().store, message), "save the plan").ok:
        st.session_state[Keys.SAVE_MESSAGE] = ""


def save_on_top() -> None:
    if act(lambda b: wb.save_on_top(b, get_services().store), "save the plan").ok:
        st.session_state[Keys.SAVE_MESSAGE] = ""


def reload_newer_version() -> None:
    """Give up this tab's unsaved edits and open the newer version another tab saved."""
    conflict = bench().conflict
    if conflict is not None:
        open_saved_plan(conflict.plan_id, conflict.latest)


def open_saved_plan(plan_id: str, version: int | None = None) -> bool:
    return act(lambda b: wb.open_saved_plan(b, get_services(), plan_id, version), "open the plan").ok


def open_saved_run(plan_id: str, version: int, run_id: str) -> bool:
    return act(lambda b: wb.open_saved_run(b, get_services(), plan_id, version, run_id), "open the run").ok


def delete_saved_plan(plan_id: str, goal: str) -> None:
    """The outcome goes to the Library's own message, not the Plan page's notices."""
    b = bench()
    try:
        out = wb.delete_saved_plan(b, get_services().store, plan_id, goal)
    except Exception as exc:
        out = Outcome().say("error", failure_message("delete the plan", exc))
    st.session_state[Keys.LIBRARY_MESSAGE] = tuple(out.notices[-1]) if out.notices else None

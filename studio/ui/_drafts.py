"""A tab's work kept in the store and named in its URL, so a reload or a link brings it back.

Each tab (browser session) has a draft id, in its URL as ``?draft=…``; the entry script writes
the Plan page's state to that draft in the store whenever it changed (``keep_draft``: one
upsert, only when the state differs from what was last written, compared by reference first,
so a rerun that changed nothing costs a few comparisons, not a serialisation). The draft names
the tab's run by id: the run is in the store, once (``_draft_run``), from its first step, and
the draft names it while it goes on too. Once the plan is saved, the URL also names it
(``plan``, ``version``, and ``run``: the run shown or going on), so the URL alone brings the
saved plan and its run back where the draft is gone, and a kill -9 of the studio leaves a URL
that opens the run cut off, for Resume.

On a session's first run (``restore_draft``):

- ``draft`` names a stored draft: its work comes back. If another tab that is still open holds
  that draft (a duplicated tab, or the link pasted into another browser), this tab gets a copy
  under a new id, so the two never write over each other. A run that was going on in the
  draft's tab, which a reload left behind, is picked up from the registry of runs live in this
  process (``Services.runs``) and shown live; so is a run the draft names that another tab (or
  the review API) carries out here now (``workbench.watch_if_going``): watched, never run again.
- otherwise ``plan`` (and ``version``, ``run``) open the saved plan with its run, as the
  Library does.
- otherwise the tab starts empty, with a new draft id.

A draft that no longer reads (another version of the studio wrote it, say) never stops the
page: what can be read comes back, the Plan JSON keeps the text, and a notice says what was
lost. Drafts not written for ``DRAFT_MAX_AGE`` are deleted when a session starts.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
import threading
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core import Plan, PlanError, PlanStudioError, Run, load_plan
from core.storage import PlanStore

from . import _actions as actions
from . import _draft_run as draft_run
from . import _review_work as review_work
from ._review_work import ReviewKeys
from ._unsaved import unsaved_edits
from ._session import get_services
from ._state import Keys, SavedRef, bench
from ..workbench import RunHandle, store_current, watch_if_going

__all__ = ["DRAFT_MAX_AGE", "DRAFT_PARAM", "PLAN_PARAM", "RUN_PARAM", "VERSION_PARAM", "keep_draft",
           "restore_draft", "sync_url"]

DRAFT_PARAM, PLAN_PARAM, VERSION_PARAM, RUN_PARAM = "draft", "plan", "version", "run"
# Long enough to come back to after a holiday; short enough that abandoned tabs do not pile up.
DRAFT_MAX_AGE = dt.timedelta(days=30)
_FORMAT = 1  # the draft content's layout; a draft of another layout is read as far as it can be
_ID = re.compile(r"[0-9a-f]{16}")

# Module-level on purpose: which browser session holds which draft is the Streamlit server's
# (one per process, ``Runtime.instance()``), not one settings' services; it holds no run.
_lock = threading.Lock()
_holders: dict[str, str] = {}  # draft id -> the session (of this process) that holds it


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The session state a draft holds, as references: comparing two costs no serialisation."""

    values: tuple[Any, ...]

    def same(self, other: "Snapshot | None") -> bool:
        return other is not None and all(a is b or a == b for a, b in zip(self.values, other.values))


_KEPT_WIDGETS = (Keys.GOAL, Keys.JSON, Keys.FEEDBACK, Keys.SAVE_MESSAGE, ReviewKeys.COMMENT)
_KEPT_BENCH = ("json_error", "json_pending", "plan", "approved", "saved", "run", "run_saved", "review_id",
               "review_tools", "pins", "recording")


def _snapshot() -> Snapshot:
    b = bench()
    return Snapshot(tuple(st.session_state.get(key) for key in _KEPT_WIDGETS)
                    + tuple(getattr(b, name) for name in _KEPT_BENCH))


def _session_id() -> str | None:
    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else ctx.session_id


def _held_elsewhere(draft_id: str, session_id: str | None) -> bool:
    """True when another session that is still connected holds the draft (a reload's old
    session has disconnected by the time the new one runs)."""
    holder = _holders.get(draft_id)
    if holder is None or holder == session_id or not Runtime.exists():
        return False
    return Runtime.instance().is_active_session(holder)


def _new_id() -> str:
    return secrets.token_hex(8)


# -- writing -------------------------------------------------------------------------------------

def _run_id() -> str | None:
    """The id of the run this tab shows, or watches going on."""
    b = bench()
    if b.run is not None:
        return b.run.id
    return None if b.worker is None else b.worker.run_id


def _content() -> str:
    state = st.session_state
    b = bench()
    plan, run_id, saved = b.plan, _run_id(), b.saved
    data = {
        "format": _FORMAT,
        "goal": state.get(Keys.GOAL, ""),
        "json": state.get(Keys.JSON, ""),
        "json_pending": b.json_pending,  # an edit made during a run, not applied
        "edited": unsaved_edits() is not None,  # so a new goal still asks after a reload
        "plan": None if plan is None else plan.model_dump(mode="json"),
        "approved": plan is not None and actions.is_approved(plan),
        "saved": None if saved is None else {"plan_id": saved.plan_id, "version": saved.version},
        "run": draft_run.run_reference(run_id),  # by id: the run is in the store
        "run_saved": run_id is not None and b.run_saved == run_id,
        "feedback": state.get(Keys.FEEDBACK, ""),
        "save_message": state.get(Keys.SAVE_MESSAGE, ""),
        "review": review_work.draft_part(),  # the review held open: its bar, comment and the agent's tools
        "pins": b.pins, "recording": b.recording,  # a rehearsal's pinned results and recorded run
    }
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"))


def keep_draft() -> None:
    """Write this tab's draft if its state changed since the last write; the entry script calls
    it on every run. A failure is logged and retried on the next change, never shown as a crash."""
    draft_id = st.session_state[Keys.DRAFT_ID]
    if draft_id is None:
        return
    review_work.keep_review_work()  # the reviewer's work on the review held open, for reopening it
    worker = bench().worker
    if worker is not st.session_state[Keys.DRAFT_WORKER]:  # a run started or collected: told once
        try:
            get_services().runs.tab_left(draft_id, worker)
            st.session_state[Keys.DRAFT_WORKER] = worker
        except Exception as exc:  # no services: nothing runs either; told on the next run
            actions.log.warning("could not note the run of the draft %s: %s", draft_id, exc)
    snapshot = _snapshot()
    if snapshot.same(st.session_state[Keys.DRAFT_WRITTEN]):
        return
    try:
        store = get_services().store
        store.save_draft(draft_id, _content())
    except Exception as exc:  # the work is still in the session; the next change tries again
        actions.log.warning("could not keep the draft %s: %s", draft_id, exc)
        return
    st.session_state[Keys.DRAFT_WRITTEN] = snapshot


# -- the URL -------------------------------------------------------------------------------------

def _wanted_params() -> dict[str, str]:
    wanted = {DRAFT_PARAM: st.session_state[Keys.DRAFT_ID]}
    saved: SavedRef | None = bench().saved
    if saved is not None:
        wanted[PLAN_PARAM] = saved.plan_id
        wanted[VERSION_PARAM] = str(saved.version)
        run_id = _run_id()
        if run_id is not None and bench().run_saved == run_id:
            wanted[RUN_PARAM] = run_id
    return wanted


def sync_url() -> None:
    """Name this tab's draft and saved plan in the URL; only what differs is sent to the browser."""
    if st.session_state[Keys.DRAFT_ID] is None:
        return
    wanted = _wanted_params()
    params = st.query_params
    for name in (DRAFT_PARAM, PLAN_PARAM, VERSION_PARAM, RUN_PARAM):
        if name not in wanted:
            if name in params:
                del params[name]
        elif params.get(name) != wanted[name]:
            params[name] = wanted[name]


# -- restoring -----------------------------------------------------------------------------------

def restore_draft() -> None:
    """On the session's first run, bring back the work the URL names (see the module docstring)."""
    if st.session_state[Keys.DRAFT_ID] is not None:
        return
    session_id = _session_id()
    draft_id, rewrite = _new_id(), False
    try:
        kept, rewrite = _restore(session_id)
        draft_id = kept or draft_id
    except Exception as exc:
        actions.notify("warning", actions.failure_message("bring back this tab's work", exc))
    with _lock:
        _holders[draft_id] = session_id or ""
    st.session_state[Keys.DRAFT_ID] = draft_id
    # A draft of an older release (a copy of its run in it) is written again at once, by id.
    st.session_state[Keys.DRAFT_WRITTEN] = None if rewrite else _snapshot()
    st.session_state[Keys.DRAFT_WORKER] = bench().worker


def _restore(session_id: str | None) -> tuple[str | None, bool]:
    """The draft id this tab keeps, when it is the URL's (None for a new one), and whether its
    draft is to be written again (it held a copy of its run)."""
    store = get_services().store
    try:
        store.prune_drafts(DRAFT_MAX_AGE)
    except PlanStudioError as exc:  # housekeeping: never in the way of bringing work back
        actions.log.warning("could not prune old drafts: %s", exc)
    params = st.query_params
    wanted = params.get(DRAFT_PARAM, "")
    draft = store.load_draft(wanted) if _ID.fullmatch(wanted) else None
    if draft is not None:
        with _lock:  # checked and claimed at once: two tabs opening one URL together get one each
            copy = _held_elsewhere(wanted, session_id)
            worker = None if copy else get_services().runs.take_tab_run(wanted)
            if not copy:
                _holders[wanted] = session_id or ""
        rewrite = _apply(wanted, draft.content, store, worker)
        if not copy:
            return wanted, rewrite
        copied = _new_id()
        lab_part = store.load_draft(f"{wanted}.lab")  # the Lab's unsaved work (studio.ui.lab._lab_draft)
        if lab_part is not None:
            store.save_draft(f"{copied}.lab", lab_part.content)
        store.save_draft(copied, draft.content)
        return copied, rewrite
    plan_id = params.get(PLAN_PARAM)
    if plan_id:
        version = params.get(VERSION_PARAM, "")
        number = int(version) if version.isdigit() else None
        run_id = params.get(RUN_PARAM)
        if run_id and number is not None:
            actions.open_saved_run(plan_id, number, run_id)
        else:
            actions.open_saved_plan(plan_id, number)
    return None, False


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    return value if isinstance(value, str) else ""


def _why(exc: Exception) -> str:
    return actions.plain_message(exc) if isinstance(exc, PlanStudioError) else str(exc).splitlines()[0]


def _apply(draft_id: str, content: str, store: PlanStore, worker: RunHandle | None) -> bool:
    """Put a draft's work into the session, as much of it as still reads; True when the draft is
    of an older release, to be written again (its run by id)."""
    state = st.session_state
    b = bench()
    try:
        data = json.loads(content)
        if not isinstance(data, dict):
            raise ValueError("it is not a JSON object")
    except ValueError as exc:
        actions.notify("warning", f"This tab's unsaved work could not be brought back: its draft is unreadable ({exc}).")
        return False
    lost: list[str] = []
    goal, text = _text(data, "goal"), _text(data, "json")
    plan: Plan | None = None
    if data.get("plan") is not None:
        try:
            plan = Plan.model_validate(data["plan"])
        except (ValueError, PlanError) as exc:
            lost.append(f"its plan no longer loads ({_why(exc)})")
    json_error: str | None = None
    if text.strip():
        try:
            parsed = load_plan(text, "native")
            plan = plan or parsed
        except PlanError as exc:
            json_error = actions.plain_message(exc)
    if plan is None and text.strip():
        plan = Plan()  # an empty plan, so the Plan JSON (and its text) is on the page
    if plan is not None:
        actions.show_plan(plan, saved=None, keeps_review=True)
    state[Keys.GOAL] = goal
    if text.strip():  # the user's own text, as typed, even when it does not parse
        actions.write_json_panel(text)
    b.json_error = json_error
    b.json_pending = bool(text.strip()) and data.get("json_pending") is True
    if plan is not None and data.get("edited") is True:
        b.baseline = None  # what the plan was before the edits is not kept
    state[Keys.FEEDBACK] = _text(data, "feedback")
    state[Keys.SAVE_MESSAGE] = _text(data, "save_message")
    if plan is None:
        return False
    review_work.restore_part(data.get("review"))
    pins, recording = data.get("pins"), data.get("recording")
    b.pins = {k: v for k, v in pins.items() if isinstance(k, str)} if isinstance(pins, dict) else {}
    b.recording = recording if isinstance(recording, str) else None
    if data.get("approved") is True:
        b.approved = actions.execution_fingerprint(plan)
    saved = data.get("saved")
    if isinstance(saved, dict):
        try:
            stored = store.load_plan(str(saved.get("plan_id")), int(saved.get("version")))
            b.saved = SavedRef(str(saved["plan_id"]), int(saved["version"]), actions.fingerprint(stored))
        except Exception as exc:
            lost.append(f"its saved version is gone ({_why(exc)}); Save stores it as a new plan")
    rewrite = False
    if worker is not None:  # the run this tab started before the reload: shown live again
        b.worker = worker
    elif data.get("run") is not None:
        try:
            kept = draft_run.read_run(store, draft_id, data["run"], plan)
            rewrite = kept.upgraded
            b.run = actions.settled_run(kept.run)
            b.run_saved = kept.run.id if kept.stored or _stored_now(store, kept.run, lost) else None
            if kept.stored:  # carried out here now (from another tab, or after a decision): watched
                watch_if_going(b, get_services(), kept.run.id)
        except (ValueError, PlanError) as exc:
            lost.append(f"its run no longer loads ({_why(exc)})")
    if lost:
        actions.notify("warning", "Brought back this tab's work, but " + "; ".join(lost) + ".")
    return rewrite


def _stored_now(store: PlanStore, run: Run, lost: list[str]) -> bool:
    """Store a run an older release kept only in this tab's draft, with the version of its plan
    (saved now if it is not), as running it on would: from now on the draft names it by id."""
    b = bench()
    try:
        saved = store_current(b, store, run.plan, message="saved with the run this tab kept")
        store.save_run(actions.settled_run(run), plan_id=saved.plan_id, version=saved.version)
        return True
    except Exception as exc:  # still shown; it stays the tab's until a reload
        lost.append(f"its run could not be stored ({_why(exc)}), and is shown until this tab is reloaded")
        return False

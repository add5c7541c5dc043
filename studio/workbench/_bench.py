"""The plan being worked on, as one typed value, and what a use case hands back.

``Workbench`` is what the Plan page (or any other front end) holds between two clicks: the Plan
JSON text and why it does not parse, the plan, its edit history, which version of it was
approved, which stored version it is, the agent's review it belongs to, its run and the handle
of the run going on. The use cases of this package read and change it; they never draw
anything. ``Outcome`` is what a use case did and what to tell the user (``Notice``: kind and
text), so a page, the CLI or a test can say it its own way.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from core import LOCAL_ACTOR, Actor, EditHistory, Plan, PlanIdentity, Run, RunKind

from ._rerun_preview import RerunPreview
from ._run_handle import RunHandle

__all__ = ["Conflict", "LiveRun", "Notice", "NoticeKind", "Outcome", "Question", "SavedRef", "Workbench"]

NoticeKind = Literal["error", "warning", "success", "info"]


@dataclass(frozen=True)
class Notice:
    kind: NoticeKind
    text: str

    def __iter__(self):  # (kind, text), as the pages and tests unpack it
        return iter((self.kind, self.text))


@dataclass
class Outcome:
    """What a use case did: ``ok`` when it did what it was asked, and what to tell the user."""

    ok: bool = False
    notices: list[Notice] = field(default_factory=list)

    def say(self, kind: NoticeKind, text: str) -> "Outcome":
        self.notices.append(Notice(kind, text))
        return self

    def done(self) -> "Outcome":
        self.ok = True
        return self

    def notices_json(self) -> list[dict[str, str]]:
        """The notices as an API answers with them."""
        return [{"kind": n.kind, "text": n.text} for n in self.notices]


@dataclass(frozen=True)
class SavedRef:
    """Which stored version the editor holds, and the plan as it was saved."""

    plan_id: str
    version: int
    fingerprint: PlanIdentity


@dataclass(frozen=True)
class Conflict:
    """A save this tab could not make: since it opened ``opened``, version ``latest`` was saved
    (by another tab or process). ``changes`` says what that version changed."""

    plan_id: str
    opened: int
    latest: int
    saved_at: dt.datetime | None
    message: str
    changes: str
    save_message: str  # the version note the user typed for the refused save


@dataclass(frozen=True)
class LiveRun:
    """A run of a plan version not over (``_live_runs``); ``state`` says where it is, in words."""

    id: str
    plan_id: str
    version: int
    state: str

    def as_json(self) -> dict[str, Any]:
        return {"run_id": self.id, "plan_id": self.plan_id, "version": self.version, "state": self.state}


@dataclass(frozen=True)
class Question:
    """What waits for the user's answer before another plan takes the editor's place: the
    action (``go``, the very call the click would have made), in words (``what``), and why the
    editor's work would be lost (``why``)."""

    go: Callable[[], Any]
    what: str
    why: str


@dataclass(eq=False)
class Workbench:
    """The plan being worked on. Fields are replaced, never changed in place (except ``history``
    and ``notices``), so a front end can tell by reference what changed since it last looked."""

    goal: str = ""  # the goal box: what "Plan" plans, and the goal of the plan shown
    panel_text: str = ""  # the Plan JSON text as the front end holds it now
    json_read: str | None = ""  # the Plan JSON text last read (json_error is about it); None: read afresh
    json_error: str | None = None  # why the Plan JSON text does not parse, or None
    json_pending: bool = False  # the Plan JSON holds an edit made during a run, not applied
    plan: Plan | None = None  # the last plan that parsed: what the graph shows and runs
    history: EditHistory | None = None  # one undo step per edit of the plan under review
    baseline: PlanIdentity | None = None  # identity of the plan as it came in; None: edited (restored)
    revision: int = 0  # counts plan changes (a front end redraws its fields when it moves)
    opened: int = 0  # counts plans put in the editor (a front end resets its selection when it moves)
    approved: str | None = None  # identity of what runs in the plan the user approved
    approved_plan: Plan | None = None  # the plan as last approved: steps changed since are marked
    saved: SavedRef | None = None  # the stored version the editor holds
    conflict: Conflict | None = None  # a save refused because another tab saved first
    review_id: str | None = None  # the agent's review the editor holds
    comment: str = ""  # the reviewer's comment for the agent, sent with the decision
    review_tools: tuple[str, list[dict] | None] | None = None  # (review id, the agent's tool definitions)
    run: Run | None = None  # the run of the plan, while no worker holds it
    run_saved: str | None = None  # the run's id once it is stored with its plan
    worker: RunHandle | None = None  # the run going on, until it is collected
    confirm_new_run: RunKind | None = None  # waits for "start a new run?" after a finished run, or beside a live one
    live_run: LiveRun | None = None  # the live run of this version that new run would run beside, while asked
    rerun: RerunPreview | None = None  # a retry or rerun of the run shown, waiting for the user's confirm
    # A rehearsal's stand-ins (``_rehearsing``): results pinned by step id, and the real run chosen
    # to take recorded results from (None: none).
    pins: dict[str, Any] = field(default_factory=dict)
    recording: str | None = None
    question: Question | None = None  # another plan waits while the user says what of the edits
    notices: list[Notice] = field(default_factory=list)  # what the last action said
    # Who works on it: every use case checks this actor's role. The UI sets whoever is signed in
    # before each action; the CLI and a Python caller work as the local user (admin).
    actor: Actor = LOCAL_ACTOR
    # How the Plan JSON text is read: the plan, and a notice when it was read as another format.
    # None: Plan Studio's JSON only. A front end that reads other formats pasted there sets it.
    read_panel: Callable[[str], tuple[Plan, str | None]] | None = field(default=None, repr=False)

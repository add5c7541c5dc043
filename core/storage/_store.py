"""``PlanStore``: the one object callers hold, over one store file.

It opens the file once (``_engine.Database``) and hands each call to the record store that
keeps that kind of record: ``_plans.Plans`` (plans and their versions), ``_runs.Runs`` (runs
and each step's result), ``_drafts.Drafts`` (a studio tab's unsaved work) and
``_review_store.Reviews`` (plans agents sent for review), ``_link_uses.LinkUses`` (signed links used). Each of those is small and can be
used, or replaced, on its own; this class only keeps the names every caller uses.

Database failures surface as ``StorageError`` naming the file and the action; asking for a
plan, version or run that is not there raises ``NotFound``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from ..plan._model import Plan
from ..run._model import Run
from ._audit import AuditLog
from ._drafts import Drafts
from ._engine import Database
from ._grants import Grants
from ._lab import LabStore
from ._people import PeopleStore
from ._link_uses import LinkUses
from ._plans import Plans
from ._records import Draft, PlanHistory, PlanSummary, PlanVersion, RunSummary
from ._review_store import Reviews
from ._reviews import Review, ReviewSummary
from ._run_records import RunRecords
from ._run_claims import RunClaims
from ._runs import Runs

__all__ = ["PlanStore"]


class PlanStore:
    """Plans, their versions and their runs, drafts and reviews, in one database file."""

    def __init__(self, path: str | Path) -> None:
        self._database = Database(path)
        self.path = self._database.path
        self.plans = Plans(self._database)
        self.runs = Runs(self._database)
        self.drafts = Drafts(self._database)
        self.reviews = Reviews(self._database, self.plans)
        self.people = PeopleStore(self._database)  # people who sign in and agents' tokens (hashed)
        self.lab = LabStore(self._database)  # the Lab's experiments and tools last seen
        # A run written step by step as it happens (durable runs), and the list of recent runs.
        self.records = RunRecords(self._database)
        # Scoped approvals of waiting steps (for one run, or always for exact arguments).
        self.grants = Grants(self._database)
        self.links = LinkUses(self._database)  # signed links already used (each decides once)
        # The append-only audit (append and query only), and which process carries a run on now.
        self.audit = AuditLog(self._database)
        self.claims = RunClaims(self._database)

    @property
    def database(self) -> Database:
        """The engine and dialect under the store, for a run engine keeping its state beside it."""
        return self._database

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Release the store's connections; the file stays as it is."""
        self._database.close()

    def __enter__(self) -> "PlanStore":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PlanStore({str(self.path)!r})"

    # -- plans -------------------------------------------------------------------------------
    def save_plan(self, plan: Plan, *, plan_id: str | None = None, message: str = "",
                  expected_version: int | None = None) -> PlanVersion:
        """Save ``plan`` as a new plan (``plan_id`` None) or as the next version of ``plan_id``.

        Saving a plan identical to the latest version returns that version and adds none.
        A plan that cannot be stored raises ``PlanError`` and nothing is written.
        With ``expected_version``, the save is refused with ``VersionConflict`` when the
        plan's latest version is another one (someone saved since it was opened); the check
        and the insert share one write transaction, so two savers cannot both pass it.
        """
        return self.plans.save(plan, plan_id=plan_id, message=message, expected_version=expected_version)

    def list_plans(self, search: str = "", *, limit: int | None = None) -> list[PlanSummary]:
        """Saved plans, most recently updated first; ``search`` matches the goal, ignoring case.

        ``limit`` keeps the first that many. One query whatever the number of plans: the latest
        version and the run count are looked up per listed plan through their indexes, not
        aggregated over the whole store.
        """
        return self.plans.summaries(search, limit=limit)

    def count_plans(self, search: str = "") -> int:
        """How many saved plans ``list_plans(search)`` would list."""
        return self.plans.count(search)

    def histories(self, plan_ids: list[str]) -> dict[str, PlanHistory]:
        """The versions and runs of each of ``plan_ids``, in three queries however many plans (a
        fourth when some runs are reruns, for the label of the step each started from).

        Versions come without their plans (``step_count`` says how long each was); a plan id
        that is not stored maps to an empty history.
        """
        return self.runs.histories(plan_ids)

    def load_plan(self, plan_id: str, version: int | None = None) -> Plan:
        """The plan as saved in ``version``, or in its latest version when ``version`` is None."""
        return self.plans.load(plan_id, version)

    def versions(self, plan_id: str) -> list[PlanVersion]:
        """Every version of the plan, oldest first."""
        return self.plans.versions(plan_id)

    def delete_plan(self, plan_id: str) -> None:
        """Delete the plan with all its versions and runs."""
        self.plans.delete(plan_id)

    # -- runs --------------------------------------------------------------------------------
    def save_run(self, run: Run, *, plan_id: str, version: int) -> None:
        """Insert the run, or update it if a run with ``run.id`` is saved already, with every step's result.

        Everything is serialised before the first write: a run that cannot be stored raises
        ``PlanError`` (its plan) or ``StorageError`` (a step's result) and nothing is written.
        """
        self.runs.save(run, plan_id=plan_id, version=version)

    def list_runs(self, plan_id: str) -> list[RunSummary]:
        """The plan's runs, newest first."""
        return self.runs.summaries(plan_id)

    def load_run(self, run_id: str) -> Run:
        """The run as last saved, with every step's status, arguments, result and error."""
        return self.runs.load(run_id)

    def latest_run_id(self, plan_id: str, version: int | None = None) -> str | None:
        """The id of the plan's most recently stored run (of ``version`` if given), or None."""
        return self.runs.latest_id(plan_id, version)

    # -- drafts ------------------------------------------------------------------------------
    def save_draft(self, draft_id: str, content: str) -> Draft:
        """Keep ``content`` as the draft ``draft_id``, replacing what it held."""
        return self.drafts.save(draft_id, content)

    def load_draft(self, draft_id: str) -> Draft | None:
        """The draft ``draft_id``, or None when there is none (never saved, deleted or pruned)."""
        return self.drafts.load(draft_id)

    def delete_draft(self, draft_id: str) -> None:
        """Forget the draft; deleting one that is not there does nothing."""
        self.drafts.delete(draft_id)

    def prune_drafts(self, older_than: dt.timedelta) -> int:
        """Delete the drafts not written for ``older_than``; how many rows went.

        A draft ``<id>`` may have parts, ``<id>.<part>`` (the studio keeps a tab's run apart,
        written only when the run changes): a part goes with its draft, not before it, so a
        draft still in use never loses a part that was written long ago."""
        return self.drafts.prune(older_than)

    # -- reviews -----------------------------------------------------------------------------
    def submit_review(self, plan: Plan, *, agent: str, fmt: str, original_text: str,
                      tools: list[dict[str, Any]] | None = None, submitted_by: str | None = None,
                      callback_url: str | None = None, callback_secret: str | None = None) -> Review:
        """Keep ``plan``, sent by ``agent`` in format ``fmt`` as ``original_text``, for review;
        ``submitted_by`` names the actor that sent it; ``callback_url`` (signed with
        ``callback_secret``) is where the agent is told of the decision."""
        return self.reviews.submit(plan, agent=agent, fmt=fmt, original_text=original_text, tools=tools,
                                   submitted_by=submitted_by, callback_url=callback_url,
                                   callback_secret=callback_secret)

    def withdraw_review(self, review_id: str, *, comment: str = "") -> Review:
        """Withdraw a pending review (its agent no longer waits for it): status ``withdrawn``, and
        no one can approve or reject it any more. A review decided already raises ``ReviewDecided``."""
        return self.reviews.withdraw(review_id, comment=comment)

    def review_callback(self, submitted_by: str) -> tuple[str, str] | None:
        """The callback URL and secret of the latest review ``submitted_by`` sent with one."""
        return self.reviews.callback_of(submitted_by)

    def get_review(self, review_id: str) -> Review:
        """The review with its decision, if made; ``NotFound`` when there is none with that id."""
        return self.reviews.get(review_id)

    def review_status(self, review_id: str) -> str:
        """Only the review's status: what a waiting agent polls, one indexed lookup."""
        return self.reviews.status(review_id)

    def list_reviews(self, status: str | None = None, *, agent: str | None = None, limit: int | None = None,
                     offset: int = 0) -> list[ReviewSummary]:
        """Reviews, pending ones first, then the most recently sent; ``status`` and ``agent`` keep
        one kind; ``limit`` and ``offset`` a page (one query, summaries only)."""
        return self.reviews.summaries(status, agent=agent, limit=limit, offset=offset)

    def count_reviews(self, status: str | None = None, *, agent: str | None = None) -> int:
        return self.reviews.count(status, agent=agent)

    def review_tally(self, *, agent: str | None = None) -> dict[str, int]:
        """Reviews per status (``agent``'s, when given), in one query."""
        return self.reviews.tally(agent=agent)

    def review_agents(self, *, limit: int = 500) -> list[str]:
        """The agents that sent reviews, sorted (at most ``limit``)."""
        return self.reviews.agents(limit=limit)

    def decide_review(self, review_id: str, *, approve: bool, plan: Plan | None = None, comment: str = "",
                      plan_id: str | None = None) -> Review:
        """Approve (with ``plan``, the reviewer's version, edits included) or reject the review.

        An approved plan is saved in the plan store, as the next version of ``plan_id`` or as a
        new plan, in the same transaction as the decision. A review already decided raises
        ``ReviewDecided`` and nothing is written: two reviewers cannot both decide it.
        """
        return self.reviews.decide(review_id, approve=approve, plan=plan, comment=comment, plan_id=plan_id)

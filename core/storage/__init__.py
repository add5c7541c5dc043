"""Saved plans with all their versions, and runs with each step's result, in SQLite or PostgreSQL.

    store = PlanStore(settings.store_path)
    saved = store.save_plan(plan, message="first draft")      # version 1 of a new plan
    store.save_plan(edited, plan_id=saved.plan_id)            # version 2
    run = Executor(registry).execute(store.load_plan(saved.plan_id))
    store.save_run(run, plan_id=saved.plan_id, version=2)
    store.save_draft("3f2a…", content)                         # a studio tab's unsaved work

Reviews (plans agents send for a person to decide on) are kept too:

    review = store.submit_review(plan, agent="my-agent", fmt="native", original_text=text)
    store.decide_review(review.id, approve=True, plan=edited, comment="ok")  # saves the version

``PlanStore`` (``_store``) is a facade over one record store per kind of record: ``_plans``,
``_runs``, ``_drafts`` and ``_review_store``, which share one ``Database`` (``_engine``: the
engine and its sessions). Tables live in ``_tables``; the schema is made and upgraded by the
Alembic revisions in ``migrations`` (``_schema`` reads a file's revision, ``_migrate`` runs what
it lacks), and every statement only SQLite understands (pragmas, upserts, JSON functions, the
FTS5 goal search) is in ``_sqlite``; ``_postgres`` is its PostgreSQL counterpart, used for a
``postgresql+psycopg://`` URL.
``store.audit`` is the append-only audit (``_audit``) and ``store.claims`` says which process
carries a run on now (``_run_claims``).
Failures raise ``core.StorageError``; missing plans, versions and runs raise ``core.NotFound``.
"""

from .._errors import ExperimentConflict
from ._audit import SUBJECT_KEYS, AuditEvent, AuditFilter, AuditLog, AuditPage
from ._lab import LabStore, SavedExperiment
from ._people import PeopleStore
from ._records import Draft, PlanHistory, PlanSummary, PlanVersion, RunSummary, VersionSummary
from ._run_claims import RunClaim, RunClaims
from ._run_records import RunListing, RunRecords
from ._reviews import REVIEW_STATUSES, Review, ReviewStatus, ReviewSummary, StepDecision, step_decisions
from ._store import PlanStore

__all__ = ["AuditEvent", "AuditFilter", "AuditLog", "AuditPage", "SUBJECT_KEYS", "RunClaim", "RunClaims", "Draft", "ExperimentConflict", "LabStore", "PeopleStore", "SavedExperiment", "PlanHistory", "PlanStore", "PlanSummary",
           "PlanVersion", "REVIEW_STATUSES", "Review", "ReviewStatus", "ReviewSummary", "RunListing", "RunRecords",
           "RunSummary", "StepDecision", "VersionSummary", "step_decisions"]

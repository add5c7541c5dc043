"""The workbench: the plan being worked on and what a user can do with it, without a UI.

``Workbench`` holds the plan under work (its Plan JSON text, the plan, the edit history,
approval, the saved version, the agent's review, the run). The use cases are plain functions
that take it and the services (store, registry, planner, executor) and return an ``Outcome``:
whether they did it, and the notices to show (kind and text). The Streamlit pages
(``studio.ui._actions``), the CLI, the review API and the MCP server call them; nothing here imports
Streamlit (``tests/app/test_application_*`` check it).

Modules: ``_bench`` (the values), ``_editing`` (edits and approval), ``_planning`` (goal,
re-plan, import), ``_saving`` (save, open, delete), ``_running`` (run, stop, collect),
``_rehearsing`` (rehearsals: pins, recordings, stand-ins), ``_deciding`` (a person's decision on a step that
waits), ``_live_runs`` (runs not over, seen from any tab, link or interface), ``_grants`` (scoped approvals),
``_rerunning`` (retry and rerun from a step),
``_run_handle`` (the one seam to what carries a run out), ``_durable_handle`` (every run from the page
durable), ``_runs_here`` (the one registry of the runs live in this process, ``Services.runs``), ``_resuming`` and ``_doubts`` (Resume of a run cut off), ``_run_control`` (resume and cancel
for the review API), ``_reviewing`` and ``_intake``
(agents' reviews), ``_links`` (signed links: open one, answer it once; made by ``_link_making``, signed by
``_link_signing``), ``_webhooks`` (the webhook's notifier and sender; its config in ``_webhook_config``), ``_unsaved`` (is the work saved?), ``_plain_words`` (steps and runs in plain language), ``_onramp``
(example goals from the tools loaded), ``_messages`` (how failures read).
"""

from ._bench import Conflict, LiveRun, Notice, NoticeKind, Outcome, Question, SavedRef, Workbench
from ._editing import (PENDING_EDIT, RUN_IN_PROGRESS, apply_edit, apply_pending_edit, approval_problem, approve,
                       discard_pending_edit, edit_history,
                       edit_json, edit_refused, edits_wait, execution_fingerprint, run_waits, fingerprint, is_approved, json_blocker,
                       redo, refused_during_run, refused_for_json, run_in_progress, set_locks, show_plan,
                       start_empty_plan, take_edit, undo, write_panel)
from ._deciding import DecisionOutcome, WaitingStep, approval_json, decide_step, set_ask_first, waiting_run, waiting_view
from ._grants import ALWAYS_DAYS, GrantRequest, grant_from_json, list_grants, revoke_grant
from ._intake import MAX_AGENT_NAME, MAX_WAIT_SECONDS, REVIEWS_URL_PATH, registry_for, review_link, review_view, submit_review
from ._intake import submission_answer
from ._withdrawing import withdraw_review
from ._links import LinkView, answer_link, open_link
from ._messages import attempt, failure_message, log, plain_message
from ._policy import (POLICY_TEMPLATE, check_plan_policy, current_policy, policy_refusal, policy_text, read_policy,
                      replay_policy, save_policy)
from ._intake import submitting_agent
from ._services import policy_file
from ._planning import GOAL_FIRST, import_plan, plan_for_goal, plan_goal, replan, replanned
from ._reviewing import close_review, decide_review, open_review, services_with_tools, work_id
from ._run_handle import RunHandle
from ._rerun_preview import RerunPreview, RerunStep
from ._rerunning import (ask_rerun, cancel_rerun, confirm_rerun, join_rerun, preview_rerun,
                         rerun_lineage, rerun_of, start_rerun)
from ._resuming import ResumeLine, ResumeView, listed_status, resume_run, resume_view, run_again_lines
from ._run_control import cancel_stored_run, join_stored_run, resume_stored_run
from ._running import (NOT_APPROVED, cancel_new_run, cancel_run, collect_finished_run, confirm_new_run, go_on_with_run,
                       request_run, stop_run)
from ._live_runs import LIVE_STATUSES, live_runs, run_stamp, waiting_count, waiting_runs, watch_if_going
from ._saving import (delete_saved_plan, hold_conflict, open_saved_plan, open_saved_run, refresh_run, save,
                      save_on_top, save_run_if_plan_saved, settled_run, show_stored_run, store_current)
from ._unsaved import not_saved
from ._plain_words import RunSummary, StepFailure, step_sentence, summarize_run
from ._onramp import example_goals
from ._rehearsing import (RehearsalRun, choose_recording, is_rehearsing, pin_result, read_pins, recordings,
                          rehearse_plan, request_rehearsal, run_export, unpin_result)

__all__ = [
    "RunSummary", "StepFailure", "step_sentence", "summarize_run", "example_goals",
    "POLICY_TEMPLATE", "submitting_agent", "check_plan_policy", "current_policy", "policy_file", "policy_refusal",
    "policy_text", "read_policy", "replay_policy", "save_policy",
    "RerunPreview", "RerunStep", "ask_rerun", "cancel_rerun", "confirm_rerun", "join_rerun", "preview_rerun",
    "rerun_lineage", "rerun_of", "start_rerun",
    "ResumeLine", "ResumeView", "listed_status", "cancel_run", "cancel_stored_run", "join_stored_run", "resume_run",
    "resume_stored_run",
    "resume_view", "run_again_lines",
    "WaitingStep", "decide_step", "waiting_run", "set_ask_first", "waiting_view", "DecisionOutcome", "approval_json",
    "ALWAYS_DAYS", "GrantRequest", "grant_from_json", "list_grants", "revoke_grant",
    "WaitingStep", "decide_step", "waiting_run", "set_ask_first", "waiting_view",
    "LinkView", "answer_link", "open_link",
    "GOAL_FIRST", "MAX_AGENT_NAME", "MAX_WAIT_SECONDS", "REVIEWS_URL_PATH", "review_link", "NOT_APPROVED", "PENDING_EDIT", "RUN_IN_PROGRESS", "Conflict", "Notice",
    "NoticeKind", "Outcome", "Question", "RunHandle", "SavedRef", "Workbench", "apply_edit", "apply_pending_edit", "approval_problem",
    "approve", "attempt", "cancel_new_run", "close_review", "collect_finished_run", "confirm_new_run",
    "decide_review", "delete_saved_plan", "discard_pending_edit", "edit_history", "edit_json", "edit_refused", "execution_fingerprint",
    "failure_message", "fingerprint", "hold_conflict", "import_plan", "is_approved", "json_blocker", "log",
    "not_saved", "open_review", "open_saved_plan", "open_saved_run", "plain_message", "plan_for_goal", "plan_goal", "redo",
    "refused_during_run", "refused_for_json", "registry_for", "replan", "replanned", "request_run", "review_view",
    "run_in_progress", "save", "save_on_top", "save_run_if_plan_saved", "services_with_tools", "set_locks",
    "settled_run", "show_plan", "start_empty_plan", "stop_run", "store_current", "submit_review",
    "take_edit", "undo", "work_id", "write_panel", "submission_answer", "withdraw_review",
    "LIVE_STATUSES", "LiveRun", "edits_wait", "go_on_with_run", "live_runs", "refresh_run", "run_stamp", "run_waits",
    "show_stored_run", "waiting_count", "waiting_runs", "watch_if_going",
    "RehearsalRun", "choose_recording", "is_rehearsing", "pin_result", "read_pins", "recordings", "rehearse_plan",
    "request_rehearsal", "run_export", "unpin_result",
]

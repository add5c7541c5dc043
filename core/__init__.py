"""Plan Studio's core: the plan model, tools, validation, references, execution, planners,
plan formats and storage. Nothing here imports the UI.
"""

from .plan._diff import EdgeChange, FieldChange, ParamChange, PlanDiff, StepChange, diff_plans
from .plan._labels import step_label
from .editing._edits import (Dependent, add_dependency, add_step, delete_step, dependents_of, duplicate_step,
                     edge_between, move_step, remove_dependency, steps_deleted_with)
from ._errors import (
    DecisionRefused,
    Forbidden,
    NameTaken,
    Unauthenticated,
    LinkRefused,
    PolicyDenied,
    PolicyError,
    EditRefused,
    McpServerError,
    NotFound,
    PlanError,
    PlanFormatError,
    PlanInvalid,
    PlannerError,
    PlannerUnavailable,
    PlanStudioError,
    ReferenceResolutionError,
    ReferenceSyntaxError,
    RepairLimitReached,
    ReplyCut,
    ReviewDecided,
    ReviewRequestError,
    AuditQueryError,
    ReviewServiceError,
    RetryableError,
    StorageError,
    ToolArgumentsError,
    ToolCallError,
    ToolDefinitionError,
    ToolExecutionError,
    ToolResultError,
    ToolTimedOut,
    VersionConflict,
)
from .access import (ANONYMOUS, LOCAL_ACTOR, LOCAL_USER_ID, Actor, ActorKind, AgentToken, Person, Role, agent_actor, person_actor,
                     require)
from .policy import DEFAULT_POLICY, Policy, load_policy, parse_policy
from .tooling._declared import declared_tool, parse_tool_definitions, with_declared_tools
from .run._engine import NO_RECORDER, NoRecorder, RunEngine, RunRecorder, StopReason
from .run._executor import Event, EventType, Executor, Run, StepRun, StepStatus, Synthesizer
from .tooling._retry import FailureKind, RetryPolicy
from .run._policy import RunLimits
from .run._model import Ask, Grant, StepAttempt, StepDecision
from .run._approval import (GrantBook, approval_reason, approvals_needed, approvers_so_far, arguments_hash, decide_step,
                             effects_label, grant_passes, shown_hash, waiting_steps)
from .run._status import (BLOCKING, CUT_OFF, EXPLAINED, FINISHED, GOING, RAN, REPORT_ORDER, RESUMABLE, RUNNABLE,
                           STATUS_TABLE, StatusTraits)
from .run._background import BackgroundRun, RunThread
from .run._live_view import LiveView, RunKind, RunProgress
from .editing._output_paths import OutputPath, output_paths
from .plan._references import path_text
from .plan._position_form import plan_with_positions, text_with_ids, text_with_positions
from .run._previews import Preview, flow_preview, preview_reference
from .editing._param_edits import (check_param, param_schema, reference_text, remove_param, set_ask_first, set_locked, set_note,
                           set_param, set_reference)
from .editing._history import DEFAULT_HISTORY_LEVELS, EditHistory
from .plan._identity import PlanIdentity, plan_identity
from .plan._model import Plan, PlanMetadata, Step, new_step_id
from .tooling._registry import NonBlank, Tool, ToolRegistry, describe_bounds, schema_alternatives
from .tooling._definition import ADDITIVE, DESTRUCTIVE, IDEMPOTENT, READ_ONLY, UNKNOWN, Effects, ToolDefinition
from .tooling._overrides import ToolOverride, overrides_from_json
from .tooling._effects_said import tool
from .tooling._words import ToolWords
from ._settings import FROM_OPTIONS_VARIABLE, START_SECRET_VARIABLE, PlannerName, Settings, take_start_secret
from .run._synthesis import ModelSynthesizer, make_synthesizer, offline_summary
from .plan._references import Reference, find_references, parse_reference, resolve_params
from .validation._validator import Problem, Validator
from .formats import FORMATS, PlanFormat, dump_plan, load_plan

__all__ = [
    # model
    "Plan", "PlanMetadata", "Step", "new_step_id",
    # tools and settings
    "Tool", "ToolRegistry", "ToolWords", "schema_alternatives", "describe_bounds", "NonBlank", "Settings", "PlannerName",
    "FROM_OPTIONS_VARIABLE", "START_SECRET_VARIABLE", "take_start_secret",
    # edits (by step id) and their history
    "Dependent", "add_step", "dependents_of", "steps_deleted_with", "delete_step", "duplicate_step",
    "move_step", "add_dependency", "remove_dependency", "edge_between",
    "set_param", "remove_param", "set_reference", "reference_text", "set_note", "set_locked", "set_ask_first",
    "check_param", "param_schema",
    "EditHistory", "DEFAULT_HISTORY_LEVELS",
    "PlanDiff", "StepChange", "ParamChange", "FieldChange", "EdgeChange", "diff_plans", "step_label",
    # what a step's output offers, and what a reference gives now
    "OutputPath", "output_paths", "path_text", "Preview", "preview_reference", "flow_preview",
    # references
    "Reference", "find_references", "parse_reference", "resolve_params",
    # validation and execution
    "Problem", "Validator", "Event", "EventType", "Executor", "Run", "StepRun", "StepStatus",
    "Synthesizer", "BackgroundRun", "LiveView", "RunThread", "RunKind", "RunProgress", "StepAttempt",
    "StepDecision", "Ask", "Grant", "GrantBook", "DecisionRefused", "LinkRefused",
    # who does what: actors, roles, and the errors of access and policy
    "Actor", "ActorKind", "Role", "ANONYMOUS", "require", "Forbidden", "Unauthenticated", "NameTaken", "LOCAL_USER_ID",
    "LOCAL_ACTOR", "AgentToken", "Person", "agent_actor", "person_actor", "PolicyError", "PolicyDenied",
    "approval_reason", "arguments_hash", "decide_step", "waiting_steps",
    "approvals_needed", "approvers_so_far", "effects_label", "grant_passes", "shown_hash",
    "Policy", "DEFAULT_POLICY", "load_policy", "parse_policy",
    # the engine seam, and what a run is held to
    "RunEngine", "RunRecorder", "NoRecorder", "NO_RECORDER", "StopReason", "RunLimits", "RetryPolicy", "FailureKind",
    "offline_summary", "ModelSynthesizer", "make_synthesizer",
    # formats
    "FORMATS", "PlanFormat", "dump_plan", "load_plan",
    # errors
    "PlanStudioError", "ToolDefinitionError", "McpServerError", "PlanError", "PlanFormatError",
    "ReferenceSyntaxError", "PlanInvalid", "EditRefused", "ToolCallError", "ToolArgumentsError",
    "ReferenceResolutionError", "ToolExecutionError", "ToolResultError", "PlannerError", "PlannerUnavailable",
    "RepairLimitReached", "ReplyCut", "StorageError", "NotFound", "VersionConflict", "ReviewRequestError", "AuditQueryError",
    "ReviewDecided", "ReviewServiceError", "RetryableError", "ToolTimedOut",
]
# Tools an agent declares when it sends a plan for review (kept apart to merge cleanly).
__all__ += ["declared_tool", "ToolDefinition", "Effects", "READ_ONLY", "IDEMPOTENT", "ADDITIVE", "DESTRUCTIVE",
            "UNKNOWN", "ToolOverride", "overrides_from_json", "parse_tool_definitions", "with_declared_tools"]
# The data folder and its files, private to the user (kept apart to merge cleanly).
from ._private_files import private_file, private_folder, private_secret, private_sqlite, tighten_file  # noqa: E402

__all__ += ["private_file", "private_folder", "private_secret", "private_sqlite", "tighten_file"]
# What each step status means, one table (kept apart to merge cleanly).
__all__ += ["STATUS_TABLE", "StatusTraits", "FINISHED", "RUNNABLE", "BLOCKING", "RAN", "EXPLAINED", "CUT_OFF", "GOING",
            "RESUMABLE", "REPORT_ORDER"]
# A plan's content identity: what runs, and its review notes (kept apart to merge cleanly).
__all__ += ["PlanIdentity", "plan_identity"]
__all__ += ["plan_with_positions", "text_with_ids", "text_with_positions"]
# The one list of extension points, and the marker plugins put on their hooks (kept apart to merge cleanly).
from . import hooks  # noqa: E402
from .hooks import hookimpl  # noqa: E402

__all__ += ["hooks", "hookimpl"]
# A plain tools file says what its functions do: @tool(read_only=True) (kept apart to merge cleanly).
__all__ += ["tool"]
# Rehearsal runs: every tool call answered by a stand-in (kept apart to merge cleanly).
from .run._model import Rehearsal  # noqa: E402
from .run._rehearsal import REHEARSAL_RULE, StandIn, StandInTools, rehearse, stand_ins, start_rehearsal  # noqa: E402
from ._errors import RehearsalRefused  # noqa: E402
from .schema._sample import sample_of  # noqa: E402

__all__ += ["Rehearsal", "RehearsalRefused", "REHEARSAL_RULE", "StandIn", "StandInTools", "rehearse", "stand_ins",
            "start_rehearsal", "sample_of"]

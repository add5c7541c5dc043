"""Plan Studio's core: the plan model, tools, validation, references, execution, planners,
plan formats and storage. Nothing here imports the UI.
"""

from ._errors import (
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
    StorageError,
    ToolArgumentsError,
    ToolCallError,
    ToolDefinitionError,
    ToolExecutionError,
    VersionConflict,
)
from ._executor import Event, EventType, Executor, Run, StepRun, StepStatus, Synthesizer
from ._runner import BackgroundRun, RunKind, RunProgress
from ._plan import Plan, PlanMetadata, Step, new_step_id
from ._registry import NonBlank, Tool, ToolRegistry, describe_bounds, schema_alternatives
from ._settings import FROM_OPTIONS_VARIABLE, PlannerName, Settings
from ._synthesis import ModelSynthesizer, make_synthesizer, offline_summary
from ._templates import Reference, find_references, parse_reference, resolve_params
from ._validation import Problem, Validator
from .formats import FORMATS, PlanFormat, dump_plan, load_plan

__all__ = [
    # model
    "Plan", "PlanMetadata", "Step", "new_step_id",
    # tools and settings
    "Tool", "ToolRegistry", "schema_alternatives", "describe_bounds", "NonBlank", "Settings", "PlannerName",
    "FROM_OPTIONS_VARIABLE",
    # references
    "Reference", "find_references", "parse_reference", "resolve_params",
    # validation and execution
    "Problem", "Validator", "Event", "EventType", "Executor", "Run", "StepRun", "StepStatus",
    "Synthesizer", "BackgroundRun", "RunKind", "RunProgress", "offline_summary", "ModelSynthesizer", "make_synthesizer",
    # formats
    "FORMATS", "PlanFormat", "dump_plan", "load_plan",
    # errors
    "PlanStudioError", "ToolDefinitionError", "McpServerError", "PlanError", "PlanFormatError",
    "ReferenceSyntaxError", "PlanInvalid", "ToolCallError", "ToolArgumentsError",
    "ReferenceResolutionError", "ToolExecutionError", "PlannerError", "PlannerUnavailable",
    "RepairLimitReached", "ReplyCut", "StorageError", "NotFound", "VersionConflict",
]

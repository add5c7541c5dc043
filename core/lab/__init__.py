"""The Lab: how a change to tools' words changes the plans made from them.

An ``Experiment`` holds edited descriptions (``ToolOverride``, the tools' sources untouched), a
goal set and a planner; ``run_experiment`` re-plans every goal with the tools' own words and
the edited ones and yields one ``GoalResult`` per goal (tools chosen, params, validity, match to
the expected plan, what changed). Goal sets come from text, files or the Library
(``_goal_sets``); an edit is checked against the manual's bounds (``check_overrides``) and
exported as a patch for the tool's source (``export_patch``); ``drift_report`` finds the saved
plans a changed tool would now plan otherwise. No UI here: the studio's Lab page draws these.
"""

from ._compare import Match, StepSummary
from ._drift import DriftItem, DriftReport, drift_report, tool_fingerprints
from .._errors import DescriptionRefused
from ._edits import EditProblem, check_overrides, ensure_overrides
from ._experiment import Experiment, LabGoal, LabPlanner
from ._library import Library, SavedPlan
from ._goal_sets import MAX_GOALS, goals_from_file, goals_from_library, goals_from_text
from ._patch import Patch, export_patch
from ._runner import GoalResult, PlannerFactory, VariantResult, run_experiment

__all__ = ["DescriptionRefused", "DriftItem", "DriftReport", "EditProblem", "Experiment", "GoalResult", "LabGoal",
           "LabPlanner", "MAX_GOALS", "Match", "Patch", "PlannerFactory", "StepSummary", "VariantResult",
           "check_overrides", "drift_report", "ensure_overrides", "export_patch", "goals_from_file",
           "goals_from_library", "goals_from_text", "Library", "run_experiment", "SavedPlan", "tool_fingerprints"]

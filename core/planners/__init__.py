"""Planners turn a goal into a plan: the offline embedded planner and the LLM planner."""

from ._base import PlanContext, Planner

__all__ = ["PlanContext", "Planner"]

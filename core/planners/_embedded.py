"""The embedded planner: offline, deterministic, no model.

It implements the goal-to-plan rules of ``demo-domain.md`` from what the registry says
about its tools (see ``_embedded_vocabulary``), plus the contract's phrase table
(``_embedded_phrases``). The same goal, date and registry always give the same steps.

Supported goal phrasings (T = today):

- entities: any list tool's noun, plural or singular ("shipments", "facility"); facility
  kinds name facilities and set their ``type`` ("landfills", "recycling plants",
  "composting sites", "sorting centers", "incinerators");
- filters: enum values of the tools' schemas ("rejected", "in transit", "failed",
  "plastic", "hazardous", "recycling"), "high-risk" / "high risk" / "risk level high",
  "contaminated" / "with contaminants" / "that contain contaminants" / "clean", "near
  capacity", a city ("in Munich", "Berlin facilities"), "going to X" / "destined for X" /
  "shipments to X" (destination; "going to X <facility kind>" is where the facilities are),
  "carried by X" / "with carrier X" or a known carrier's name (also "Eco Haul"), "limit N" /
  "first N" / "top N" / "top-5" / "top three" / "5 landfills";
- dates: every row of ``core._dates`` ("today", "last week", "since Oct 3", "from
  October 1st to October 10th", ...), given to the step whose entity they qualify: the one
  they follow ("<entity> found <date> in <other entity> ..."), or with a possessive
  ("today's contaminants") or at the start of the goal, the one after them;
- chaining: a filter the entity has no parameter for but a linked tool has ("contaminants in
  Hannover", "inspections at landfills") lists that tool first and passes its ids;
  "their X" / "with their X" / "X details" / "check for X" / "then X" use the previous
  step's ids; "those facilities" refers to the earlier facilities step; a second entity in
  the same phrase uses the first one's ids ("<kind> that failed inspections");
  a phrase put first ("At <kind> in <city>, list <entity>") or last ("...,
  at <kind> in <city>") qualifies the rest; unrelated entities ("shipments,
  facilities, and inspections") run in parallel;
- shared qualifiers: what follows the last of a list of unrelated entities ("shipments and
  inspections from last week", "... at landfills in Munich"), or a sentence before the list
  ("Last week, get ..."), qualifies each listed entity that takes it, through one shared
  facilities step (see ``_embedded_shared``);
- follow-ups, with a ``PlanContext``: "the same for Munich", "same but last week",
  "and for Hamburg?", "and their inspections?" change the previous plan as ``replan`` would.
"""

from __future__ import annotations

import datetime as dt
import re

from .._errors import PlannerError
from .._plan import Plan, PlanMetadata
from .._registry import ToolRegistry
from ..formats._seed import seed_step_ids
from . import _embedded_phrases as phrases
from ._base import PlanContext
from ._embedded_build import build_nodes, check_has_steps, make_groups, mark_parallel, nodes_to_steps
from ._embedded_parse import parse, phrase_pattern
from ._embedded_replan import apply_feedback
from ._embedded_vocabulary import Vocabulary

__all__ = ["EmbeddedPlanner"]


class EmbeddedPlanner:
    """Turns goals into plans by the demo domain's rules, reading the tools from ``registry``."""

    name = "embedded"

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self.vocabulary = Vocabulary(registry)

    def plan(self, goal: str, *, today: dt.date, context: PlanContext | None = None) -> Plan:
        if not goal or not goal.strip():
            raise PlannerError("the goal is empty; describe what to list, e.g. 'shipments from last week'")
        if context is not None and self._is_follow_up(goal, today, context):
            try:
                follow = apply_feedback(self.vocabulary, context.previous_plan, goal, today)
            except PlannerError:
                if not parse(goal, self.vocabulary, today).entities:
                    raise
            else:
                return follow.model_copy(update={"goal": goal})
        parsed = parse(goal, self.vocabulary, today)
        groups = make_groups(parsed, self.vocabulary)
        check_has_steps(groups, self.vocabulary, goal)
        nodes = build_nodes(groups, self.vocabulary)
        steps = nodes_to_steps(self.vocabulary, nodes, [], seed_step_ids(len(nodes)))
        plan = Plan(goal=goal, steps=steps, metadata=PlanMetadata(planner=self.name, today=today))
        mark_parallel(plan)
        return plan

    def replan(self, plan: Plan, feedback: str, *, today: dt.date) -> Plan:
        if not feedback or not feedback.strip():
            raise PlannerError("the feedback is empty; say what to change, e.g. 'use Munich instead'. "
                               "The plan is unchanged.")
        return apply_feedback(self.vocabulary, plan, feedback, today)

    def _is_follow_up(self, goal: str, today: dt.date, context: PlanContext) -> bool:
        """A goal that changes the previous plan rather than starting a new one."""
        lowered = goal.strip().lower()
        cue = re.search(phrase_pattern(phrases.FOLLOW_UP_CUES), lowered) is not None
        opener = re.match(phrase_pattern(phrases.FOLLOW_UP_OPENERS), lowered) is not None
        entities = parse(goal, self.vocabulary, today).entities
        if not entities:
            return True
        previous = {s.tool for s in context.previous_plan.steps}
        adds = re.search(phrase_pattern(phrases.ADD_VERBS), lowered) is not None
        # "and their inspections?": "their" can only mean the previous plan's rows.
        links = re.search(phrase_pattern(phrases.BACK_REFERENCES + ("their", "its")), lowered) is not None
        return (cue or opener) and (adds or links or all(e.tool in previous for e in entities))

"""The embedded planner: offline, deterministic, no model.

It implements the goal-to-plan rules of ``demo-domain.md`` from what the registry says
about its tools (see ``_embedded_vocabulary``): their schemas, and the words each tool group
hands it (``ToolWords``: places, synonyms of values, cue words), plus the planner's own
English (``_embedded_phrases``). The same goal, date and registry always give the same steps.

Supported goal phrasings (T = today; the examples are the demo tools' words, which
``tools/waste`` hands the registry):

- entities: any list tool's noun, plural or singular ("shipments", "facility"); facility
  kinds name facilities and set their ``type`` ("landfills", "recycling plants",
  "composting sites", "sorting centers", "incinerators");
- filters: enum values of the tools' schemas ("rejected", "in transit", "failed",
  "plastic", "hazardous", "recycling"), "high-risk" / "high risk" / "risk level high",
  "contaminated" / "with contaminants" / "that contain contaminants" / "clean", "near
  capacity", a city ("in <city>", "<city> facilities"), "going to X" / "destined for X" /
  "shipments to X" (destination; "going to X <facility kind>" is where the facilities are),
  "carried by X" / "with carrier X" or a known carrier's name (also "Eco Haul"), "limit N" /
  "first N" / "top N" / "top-5" / "top three" / "5 landfills";
- dates: every row of ``core.planners._dates`` ("today", "last week", "since Oct 3", "from
  October 1st to October 10th", ...), given to the step whose entity they qualify: the one
  they follow ("<entity> found <date> in <other entity> ..."), or with a possessive
  ("today's contaminants") or at the start of the goal, the one after them;
- chaining: a filter the entity has no parameter for but a linked tool has ("contaminants in
  <city>", "inspections at landfills") lists that tool first and passes its ids;
  "their X" / "with their X" / "X details" / "check for X" / "then X" use the previous
  step's ids; "those facilities" refers to the earlier facilities step; a second entity in
  the same phrase uses the first one's ids ("<kind> that failed inspections");
  a phrase put first ("At <kind> in <city>, list <entity>") or last ("...,
  at <kind> in <city>") qualifies the rest; unrelated entities ("shipments,
  facilities, and inspections") run in parallel;
- shared qualifiers: what follows the last of a list of unrelated entities ("shipments and
  inspections from last week", "... at landfills in <city>"), or a sentence before the list
  ("Last week, get ..."), qualifies each listed entity that takes it, through one shared
  facilities step (see ``_embedded_shared``);
- follow-ups, with a ``PlanContext``: "the same for <city>", "same but last week",
  "and for <other city>?", "and their inspections?" change the previous plan as ``replan`` would.
  A goal is a follow-up only when it reads as one: it has a follow-up cue ("same", "instead",
  "too", ...) or opens with one ("and", "but", "what about", "now", "only", ...), or it uses
  rows it does not list ("their inspections", "the inspections of those landfills"); and it
  names no entity, or adds to the previous
  plan ("also", "add", "their"), or names only entities the previous plan lists. Any other
  goal ("Get inspections from today", "What's the weather in <city>?") is planned afresh.

Meaning before coverage: a negation ("not", "didn't", "without", "except", "other than",
...) sets the opposite value the schema can hold, or is left out with a notice that it was
NOT applied (``_embedded_negation``); a misspelled entity word is read as the one it is a
typo or two from, and the plan says so (``_embedded_typos``); a goal that asks to change the
world ("delete ...", "cancel ...", "send ...") is refused, never planned as a listing
(``_embedded_writes``). What the plan says about its reading is gathered by
``planner_notices`` (``_embedded_notices``).

A tool with required parameters is planned when the goal gives their values ("weather in
Paris", "city Paris", a quoted string, a number: ``_required``); one the goal does not give is
named in the plan's metadata (``missing_params``) and the step waits for the reviewer to fill it.

Words a goal says that the plan does not use come with the plan as
``metadata.unread_words`` (see ``_embedded_unread``). Goals longer than ``MAX_GOAL_LENGTH``
characters are refused, and numbers are kept within the tools' schemas (a ``limit`` of at
least 1, and the ``minimum``/``maximum`` a parameter's schema states).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

from ..._errors import PlannerError
from ...plan._model import Plan, PlanMetadata
from ...tooling._registry import ToolRegistry
from ...formats._seed import seed_step_ids
from . import _phrases as phrases
from .._base import PlanContext
from ._examples import example_feedback, example_goal
from ._build import Node, build_nodes, check_has_steps, make_groups, mark_parallel, nodes_to_steps
from ._negation import read_negations
from ._notices import NOT_APPLIED_KEY, READ_AS_KEY
from ._typos import TypoReader
from ._writes import refuse_write, write_request
from ._parse import MASK, Mention, Parsed, parse, phrase_pattern
from ._required import MISSING_KEY, fill_required, missing_notice
from ._replan import apply_feedback
from ._log import words_log
from ._unread import UNREAD_KEY, unread_words
from .._planner_log import LOG_KEY
from ._vocabulary import Vocabulary, out_of_bounds

__all__ = ["EmbeddedPlanner", "MAX_GOAL_LENGTH", "check_text"]

# A goal is a sentence or two; far longer text is no goal, and reading it costs time for nothing.
MAX_GOAL_LENGTH = 2000


def check_text(text: str, what: str, example: str) -> None:
    """Refuse an empty ``text`` or one longer than ``MAX_GOAL_LENGTH``, saying which."""
    if not text or not text.strip():
        raise PlannerError(f"the {what} is empty; {example}")
    if len(text) > MAX_GOAL_LENGTH:
        raise PlannerError(f"the {what} is {len(text):,} characters long; the embedded planner reads up to "
                           f"{MAX_GOAL_LENGTH:,}. Shorten it, or split it into several {what}s.")


class EmbeddedPlanner:
    """Turns goals into plans by the demo domain's rules, reading the tools from ``registry``."""

    name = "embedded"

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self.vocabulary = Vocabulary(registry)
        self.typos = TypoReader(registry, self.vocabulary)

    def plan(self, goal: str, *, today: dt.date, context: PlanContext | None = None) -> Plan:
        check_text(goal, "goal", f"describe what to list, e.g. {example_goal(self.vocabulary)!r}")
        # Read as corrected ("inspectons" as "inspections"); the plan keeps the goal as typed.
        text, read_as = self.typos.correct(goal)
        parsed = parse(text, self.vocabulary, today)
        request = write_request(parsed, self.vocabulary)
        if request is not None and not (request.verb in phrases.REMOVE_VERBS and context is not None
                                        and context.previous_plan.steps
                                        and self._is_follow_up(text, today, context)):
            # "Delete ..." planned as a listing would be approved as something else; a follow-up's
            # "delete the <entity> step" edits the plan and is read as re-plan feedback.
            raise refuse_write(request, self.registry)
        if context is not None and context.previous_plan.steps and self._is_follow_up(text, today, context):
            try:
                follow = apply_feedback(self.vocabulary, context.previous_plan, text, today,
                                        follow_up_of=context.previous_goal)
            except PlannerError:
                if not parsed.entities:
                    raise
            else:
                return follow.model_copy(update={"goal": goal})
        plan = self._fresh(text, today, parsed)
        if read_as:
            plan = plan.model_copy(update={"metadata": plan.metadata.model_copy(update={READ_AS_KEY: read_as})})
        return plan.model_copy(update={"goal": goal})

    def _fresh(self, goal: str, today: dt.date, read: Parsed) -> Plan:
        parsed, not_applied = read_negations(read, self.vocabulary)
        groups = make_groups(parsed, self.vocabulary)
        check_has_steps(groups, self.vocabulary, goal)
        unused: list[Mention] = []
        nodes = build_nodes(groups, self.vocabulary, ignored=unused)
        parsed, missing = self._fill_required(parsed, nodes)
        self._check_bounds(nodes)
        steps = nodes_to_steps(self.vocabulary, nodes, [], seed_step_ids(len(nodes)))
        extra: dict[str, Any] = {}
        unread = unread_words(parsed, unused)
        if unread:
            extra[UNREAD_KEY] = unread
        if not_applied:
            extra[NOT_APPLIED_KEY] = not_applied
        if missing:
            extra[MISSING_KEY] = missing
        extra[LOG_KEY] = [words_log(parsed)]  # which words chose which tool and filter
        metadata = PlanMetadata(planner=self.name, today=today, **extra)
        return mark_parallel(Plan(goal=goal, steps=steps, metadata=metadata))

    def _fill_required(self, parsed: Parsed, nodes: list[Node]) -> tuple[Parsed, list[str]]:
        """Each step's required parameters from the goal's words (``_required``); the goal read
        with their words marked used, and a notice per parameter still missing."""
        missing: list[str] = []
        spans: list[tuple[int, int]] = []
        for node in nodes:
            filled = fill_required(parsed, self.vocabulary, node.tool, node.mention, {*node.params, *node.refs})
            node.params.update(filled.params)
            spans.extend(filled.spans)
            noun = self.vocabulary.tools[node.tool].entity_singular
            missing.extend(missing_notice(node.tool, param, noun) for param in filled.missing)
        if spans:
            masked = list(parsed.masked)
            for start, end in spans:
                masked[start:end] = MASK * (end - start)
            parsed = replace(parsed, masked="".join(masked))
        return parsed, list(dict.fromkeys(missing))

    def _check_bounds(self, nodes: list[Node]) -> None:
        for node in nodes:
            problem = out_of_bounds(self.vocabulary.tools[node.tool], node.params, "the goal")
            if problem is not None:
                raise PlannerError(problem)

    def replan(self, plan: Plan, feedback: str, *, today: dt.date) -> Plan:
        check_text(feedback, "feedback",
                   f"say what to change, e.g. {example_feedback(self.vocabulary)!r}. The plan is unchanged.")
        return apply_feedback(self.vocabulary, plan, feedback, today)

    def _is_follow_up(self, goal: str, today: dt.date, context: PlanContext) -> bool:
        """A goal that changes the previous plan rather than starting a new one."""
        lowered = goal.strip().lower()
        cue = re.search(phrase_pattern(phrases.FOLLOW_UP_CUES), lowered) is not None
        opener = re.match(phrase_pattern(phrases.FOLLOW_UP_OPENERS), lowered) is not None
        parsed = parse(goal, self.vocabulary, today)
        links = _links_back(parsed)
        if not (cue or opener or links):
            return False
        if not parsed.entities:
            return True  # "the same for <city>", "and for <other city>?"
        previous = {s.tool for s in context.previous_plan.steps}
        adds = re.search(phrase_pattern(phrases.ADD_VERBS), lowered) is not None
        return adds or links or all(e.tool in previous for e in parsed.entities)


# Words that point at rows listed before: said before the goal's first entity, they can only
# mean the previous plan's ("their inspections?").
_POINTERS = re.compile(phrase_pattern(("their", "its", "them", "they", *phrases.BACK_REFERENCES)), re.IGNORECASE)


def _links_back(parsed: Parsed) -> bool:
    """Whether the goal uses rows it does not list itself: "their inspections", "the
    inspections of those landfills" (and no landfills named before)."""
    entities = parsed.entities
    if not entities:
        return False
    if _POINTERS.search(parsed.masked, 0, entities[0].start):
        return True
    named: set[str | None] = set()
    for mention in entities:
        if mention.refers_back and mention.tool not in named:
            return True
        named.add(mention.tool)
    return False

"""The LLM planner: a chat model writes the plan in the seed JSON format.

The model is told today's date and how date phrases resolve, the plan format with its
reference syntax, and the functions manual (``render_manual``). Its reply is parsed
leniently (``extract_plan_json``), read as a seed plan and validated against the registry.
When the reply cannot be read or the plan has problems, the reply and the exact problems
go back to the model, which tries again: that repair loop is the only retry, up to
``settings.max_retries`` extra calls, then ``RepairLimitReached`` carries the last problems.

A re-plan shows the model the current plan with step numbers and locks; locked steps come
back exactly as they were whatever the model did, and unchanged steps keep their ids.

The model reads and writes positions (``${step[N].path}``, ``depends_on: [N]``): a number is
what a model copies most reliably. They are converted at this boundary only: the prompt is
written with ``plan_to_seed`` and the reply read with ``plan_from_seed``, after which every
reference names a step id, so a locked step put back in a new place needs no renumbering.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Callable

from pydantic import ValidationError

from .._errors import PlanError, PlanFormatError, RepairLimitReached, ReplyCut
from .._plan import Plan, PlanMetadata, Step, new_step_id
from .._registry import ToolRegistry
from .._settings import Settings
from .._validation import Validator
from ..formats import plan_from_seed, plan_to_seed
from ..llm import Message, ModelClient
from ._base import PlanContext, no_step_left
from ._manual import render_manual
from ._parse import extract_plan_json

__all__ = ["LLMPlanner", "plan_json_schema", "date_rules"]

# What one repair request may carry back to the model: a plan with thousands of problems (or a
# reply of megabytes) must not make every retry slower and dearer than the last.
_REPAIR_PROBLEMS = 20       # problems listed
_REPAIR_CHARS = 4_000       # characters of problems listed
_PROBLEM_CHARS = 400        # characters of any one problem
_ECHO_CHARS = 20_000        # characters of the model's own reply, sent back as it wrote it


def plan_json_schema(tool_names: list[str]) -> dict[str, Any]:
    """The seed format as a JSON schema, for the endpoint's structured output."""
    tool: dict[str, Any] = {"type": "string", "description": "Exact name of a tool from the manual."}
    if tool_names:
        tool["enum"] = list(tool_names)
    return {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "tool": tool,
                        "params": {"type": "object", "description": "The tool's parameters; a value may be a ${step[N].path} reference."},
                        "depends_on": {"type": "array", "items": {"type": "integer", "minimum": 0},
                                       "description": "Indexes of earlier steps this step needs."},
                        "parallel": {"type": "boolean"},
                        "note": {"type": "string", "description": "Why this step is there, in a few words."},
                    },
                    "required": ["tool", "params", "depends_on", "parallel"],
                },
            },
        },
        "required": ["steps"],
    }


def date_rules(today: dt.date) -> str:
    """How relative date phrases resolve, with each rule worked out for ``today``."""
    day = dt.timedelta(days=1)
    monday = today - today.weekday() * day
    first = today.replace(day=1)
    last_month_end = first - day
    last_month_start = last_month_end.replace(day=1)
    rows = [
        ("today", "today", today, "today", today),
        ("yesterday", "today - 1 day", today - day, "today - 1 day", today - day),
        ("last week", "today - 7 days", today - 7 * day, "today", today),
        ("this week", "Monday of this week", monday, "today", today),
        ("this month", "the 1st of this month", first, "today", today),
        ("last N days", "today - N days", None, "today", today),
        ("past N weeks", "today - 7*N days", None, "today", today),
        ("last month", "the 1st of last month", last_month_start, "the last day of last month", last_month_end),
    ]
    lines = []
    for phrase, from_rule, from_date, to_rule, to_date in rows:
        start = f"{from_rule} ({from_date.isoformat()})" if from_date else from_rule
        end = f"{to_rule} ({to_date.isoformat()})"
        lines.append(f'- "{phrase}": date_from = {start}, date_to = {end}')
    lines += [
        '- "on X": date_from = X, date_to = X',
        '- "since X": date_from = X, date_to = today',
        '- "from X to Y", "between X and Y": date_from = X, date_to = Y',
        f"A date written without a year (\"October 1st\", \"1 Oct\") is in {today.year}.",
        "A date range goes on the step listing the thing the phrase is about: in \"today's X in "
        "city Y\" the dates go on the step that lists X, not on the step that finds Y.",
    ]
    return "\n".join(lines)


_FORMAT_RULES = """\
Answer with one JSON object and nothing else, in this shape:
{"steps": [{"tool": "<tool name>", "params": {...}, "depends_on": [], "parallel": false}]}

Rules:
- Steps are numbered from 0 in the order you list them.
- "tool" is the exact name of a tool in the manual below. "params" holds only that tool's
  parameters, with values of the listed types; enum values are written exactly as listed.
  Leave out parameters the goal does not ask for.
- To use an earlier step's result, make the whole parameter value a reference
  "${step[N].path}", where N is the 0-based number of an earlier step and the path follows
  that tool's return fields: "${step[0].data}" is step 0's list of rows, and
  "${step[0].data.*.id}" maps over that list and gives the id of every row.
- "depends_on" lists the numbers of the earlier steps a step needs, including every step it
  refers to. A step can only depend on steps before it; there are no cycles.
- Steps that do not need each other get "depends_on": [] and "parallel": true. A single
  step, or a chain where each step needs the one before, uses "parallel": false.
- When the goal says "then", keep the order it gives.
- "note" is optional: a few words on why the step is there.

Example of the shape only (these tool names are placeholders, not real tools):
goal "sites in Springfield and their visits" ->
{"steps": [{"tool": "sites_list", "params": {"city": "Springfield"}, "depends_on": [], "parallel": false},
           {"tool": "visits_list", "params": {"site_id": "${step[0].data.*.id}"}, "depends_on": [0], "parallel": false}]}"""


class LLMPlanner:
    """Plans with a chat model; see the module docstring."""

    name = "llm"

    def __init__(self, registry: ToolRegistry, settings: Settings, client: ModelClient | None = None) -> None:
        self.registry = registry
        self.settings = settings
        self.client = client if client is not None else ModelClient(settings)
        self.validator = Validator(registry)

    # -- the Planner protocol ---------------------------------------------------------------
    def plan(self, goal: str, *, today: dt.date, context: PlanContext | None = None) -> Plan:
        messages: list[Message] = [self._system(today)]
        extra: dict[str, Any] = {}
        if context is not None:
            messages += [
                {"role": "user", "content": f"Goal: {context.previous_goal}"},
                {"role": "assistant", "content": _seed_json(context.previous_plan)},
            ]
            extra["previous_goal"] = context.previous_goal
            messages.append({"role": "user", "content": (
                f"Goal: {goal}\n(This goal follows the previous one: words such as \"the same\", "
                "\"them\", \"instead\" or \"also\" refer to the previous goal and plan above.)")})
        else:
            messages.append({"role": "user", "content": f"Goal: {goal}"})

        def build(data: dict[str, Any]) -> tuple[Plan, list[str]]:
            for raw in data["steps"]:
                if isinstance(raw, dict):
                    raw.pop("locked", None)  # locks are the user's decision, never the model's
            return plan_from_seed(data, goal=goal), []

        return self._converse(messages, build, today, extra)

    def replan(self, plan: Plan, feedback: str, *, today: dt.date) -> Plan:
        messages: list[Message] = [self._system(today), {"role": "user", "content": (
            f"Goal: {plan.goal}\n\n"
            "This is the current plan. \"step\" is each step's number (references and "
            "depends_on use it) and \"id\" names the step.\n"
            + _locked_rule(plan) +
            "Keep the \"id\" of every step you keep; give new steps no \"id\".\n\n"
            f"{_numbered_plan_json(plan)}\n\n"
            f"Change the plan as this feedback asks: {feedback}\n"
            "Answer with the whole new plan as one JSON object in the same format.")}]

        def build(data: dict[str, Any]) -> tuple[Plan, list[str]]:
            if not data["steps"]:
                # The model did what the feedback asked, but an empty plan is no plan: asking
                # again would only be refused again.
                raise no_step_left(feedback)
            _assign_ids(plan, data["steps"])
            new = plan_from_seed(data, goal=plan.goal)
            return _restore_locked(plan, new)

        return self._converse(messages, build, today, {"feedback": feedback})

    # -- the repair loop --------------------------------------------------------------------
    def _converse(self, messages: list[Message],
                  build: Callable[[dict[str, Any]], tuple[Plan, list[str]]],
                  today: dt.date, extra: dict[str, Any]) -> Plan:
        schema = plan_json_schema(self.registry.names())
        problems: list[str] = []
        attempts = 0
        for attempts in range(1, self.settings.max_retries + 2):
            try:
                reply = self.client.chat(messages, json_schema=schema, temperature=self.settings.temperature)
            except ReplyCut as cut:
                reply, plan, problems = cut.text, None, [
                    f"your reply stopped at the length limit after {len(cut.text):,} characters, so the plan "
                    "is incomplete; answer with a shorter plan (fewer steps, shorter notes) that fits"]
            else:
                plan, problems = self._read(reply, build)
            if plan is not None and not problems:
                meta = {**plan.metadata.model_dump(exclude={"planner", "today", "created_at"}),
                        "planner": self.name, "model": self.client.model, "attempts": attempts,
                        "today": today, **extra}
                return plan.model_copy(update={"metadata": PlanMetadata.model_validate(meta)})
            messages = [*messages, {"role": "assistant", "content": _echo(reply)},
                        {"role": "user", "content": _repair_request(problems, parsed=plan is not None)}]
        raise RepairLimitReached(attempts, problems)

    def _read(self, reply: str, build: Callable[[dict[str, Any]], tuple[Plan, list[str]]]
              ) -> tuple[Plan | None, list[str]]:
        """The plan in ``reply`` and its problems; (None, [why]) when it cannot be read."""
        try:
            data = extract_plan_json(reply)
            if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
                raise PlanFormatError("seed", 'expected a JSON object with a "steps" list, got '
                                      f"{_kind(data)}")
            steps = [_without_numbers(s) for s in data["steps"]]
            plan, extra_problems = build({"steps": steps})  # the model's metadata is not trusted
        except PlanError as exc:
            return None, [str(exc)]
        except ValidationError as exc:  # e.g. a step the Plan model refuses
            return None, [f"seed: {exc.errors()[0]['msg']}"]
        return plan, [*extra_problems, *(str(p) for p in self.validator.errors(plan))]

    def _system(self, today: dt.date) -> Message:
        text = (
            "You are the planner of Plan Studio. You turn a user's goal into a plan: a list of "
            "tool calls that a program runs for the user after they review it. You never run "
            "tools and never answer the goal yourself; you only write the plan.\n\n"
            f"Today is {today.isoformat()} ({today.strftime('%A')}).\n\n"
            f"# Plan format\n{_FORMAT_RULES}\n\n"
            "# Dates\nWrite dates as ISO dates (YYYY-MM-DD). Resolve relative phrases against "
            f"today:\n{date_rules(today)}\n\n"
            f"# Tools\n{render_manual(self.registry)}")
        return {"role": "system", "content": text}


# -- messages ---------------------------------------------------------------------------------
def _seed_json(plan: Plan) -> str:
    return json.dumps({"steps": plan_to_seed(plan)["steps"]}, ensure_ascii=False)


def _numbered_plan_json(plan: Plan) -> str:
    steps = []
    for n, (step, seed) in enumerate(zip(plan.steps, plan_to_seed(plan)["steps"])):
        shown: dict[str, Any] = {"step": n, "id": step.id, **seed}
        if step.note:
            shown["note"] = step.note
        if step.locked:
            shown["locked"] = True
        steps.append(shown)
    return json.dumps({"steps": steps}, indent=2, ensure_ascii=False)


def _locked_rule(plan: Plan) -> str:
    locked = [plan.label(s.id) for s in plan.steps if s.locked]
    if not locked:
        return ""
    return ("Steps with \"locked\": true were approved by the user and must stay exactly as they "
            f"are (same tool, params and id): {', '.join(locked)}. Keep the steps they need.\n")


def _repair_request(problems: list[str], *, parsed: bool) -> str:
    lines: list[str] = []
    size = 0
    for problem in problems[:_REPAIR_PROBLEMS]:
        line = f"- {_clip(problem, _PROBLEM_CHARS)}"
        if lines and size + len(line) > _REPAIR_CHARS:
            break
        lines.append(line)
        size += len(line) + 1
    omitted = len(problems) - len(lines)
    if omitted:
        lines.append(f"- ... and {omitted} more problem{'s' if omitted != 1 else ''} not listed here; "
                     "fix these and check the rest of the plan the same way")
    listed = "\n".join(lines)
    if parsed:
        head = "Your plan has these problems:"
    else:
        head = "Your reply could not be read as a plan:"
    return (f"{head}\n{listed}\n\nAnswer again with the whole corrected plan as one JSON object "
            "in the same format, and nothing else.")


def _echo(reply: str) -> str:
    """The model's reply as it goes back to the model: whole, unless it is huge."""
    if len(reply) <= _ECHO_CHARS:
        return reply
    return f"{reply[:_ECHO_CHARS]}\n[... the other {len(reply) - _ECHO_CHARS:,} characters of this reply are left out]"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _kind(value: Any) -> str:
    return {dict: "an object without \"steps\"", list: "a list", str: "a string"}.get(type(value), type(value).__name__)


def _without_numbers(raw: Any) -> Any:
    """Drop the "step" numbers a re-plan prompt shows; the model often copies them back."""
    if isinstance(raw, dict) and isinstance(raw.get("step"), int):
        return {k: v for k, v in raw.items() if k != "step"}
    return raw


# -- re-plan: ids and locks -------------------------------------------------------------------
def _assign_ids(old: Plan, raw_steps: list[Any]) -> None:
    """Give every raw step an id before it becomes a Step: the model's if it kept an old one,
    else an unchanged old step's, else a fresh one (never an old id for a different step)."""
    old_by_id = {s.id: s for s in old.steps}
    used: set[str] = set()
    for raw in raw_steps:
        if isinstance(raw, dict):
            given = raw.get("id")
            if isinstance(given, str) and given in old_by_id and given not in used:
                used.add(given)
            else:
                raw.pop("id", None)
    for raw in raw_steps:  # an old step the model copied as it was
        if not isinstance(raw, dict) or "id" in raw:
            continue
        match = next((s for s in old.steps if s.id not in used and s.tool == raw.get("tool")
                      and s.params == (raw.get("params") or {})), None)
        if match is not None:
            raw["id"] = match.id
            used.add(match.id)
    for position, raw in enumerate(raw_steps):  # an old step the model changed in place
        if not isinstance(raw, dict) or "id" in raw:
            continue
        same_place = old.steps[position] if position < len(old.steps) else None
        if same_place is not None and same_place.id not in used and same_place.tool == raw.get("tool"):
            raw["id"] = same_place.id
        else:
            raw["id"] = new_step_id()
        used.add(raw["id"])
    for raw in raw_steps:
        if isinstance(raw, dict):
            raw.pop("locked", None)


def _restore_locked(old: Plan, new: Plan) -> tuple[Plan, list[str]]:
    """``new`` with ``old``'s locked steps put back exactly; plus problems only a re-plan has."""
    steps: list[Step] = [s.model_copy(update={"locked": False}) for s in new.steps]
    model_position = {s.id: n for n, s in enumerate(steps)}
    for old_index, locked in enumerate(old.steps):
        if not locked.locked:
            continue
        if locked.id in model_position:
            steps[[s.id for s in steps].index(locked.id)] = locked.model_copy(deep=True)
        else:  # dropped by the model: back where it was
            steps.insert(min(old_index, len(steps)), locked.model_copy(deep=True))
    final_position = {s.id: n for n, s in enumerate(steps)}
    # References name step ids on both sides (the model's were read by its own positions),
    # so the steps stand as they are: nothing to renumber.
    restored = Plan(goal=new.goal, steps=steps, metadata=new.metadata)
    problems = []
    for locked in (s for s in old.steps if s.locked):
        for need in old.dependencies_of(locked.id):
            if need not in final_position:
                problems.append(f"{restored.label(locked.id)} is locked and needs {old.label(need)}, "
                                "which the new plan removed; keep that step")
    return restored, problems

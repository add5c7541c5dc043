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

from ..._errors import PlanError, PlanFormatError, PlannerError, RepairLimitReached, ReplyCut
from ...plan._model import Plan, PlanMetadata, Step, new_step_id
from ...tooling._registry import ToolRegistry
from ..._settings import Settings
from ...validation._validator import Validator
from ...formats import plan_from_seed, plan_to_seed
from ...llm import Message, ModelClient
from .._base import PlanContext, no_step_left
from ..embedded._build import mark_parallel
from ._dates import resolve_date_phrases
from ._schema import ids_bound, plan_json_schema
from ._unsaid import drop_unsaid_choices, ids_at_bound
from .._manual import render_manual
from ._reply import extract_plan_json
from .._planner_log import LOG_KEY

__all__ = ["LLMPlanner", "plan_json_schema"]

# What one repair request may carry back to the model: a plan with thousands of problems (or a
# reply of megabytes) must not make every retry slower and dearer than the last.
_REPAIR_PROBLEMS = 20       # problems listed
_REPAIR_CHARS = 4_000       # characters of problems listed
_PROBLEM_CHARS = 400        # characters of any one problem
# The model's own reply, sent back with the problems: enough to see what was meant, never so
# much that a looping reply fills a small server's context (a 2,048-token one, say).
_ECHO_CHARS = 1_500
_LOG_REPLY_CHARS = 4_000    # characters of each reply kept in the planner log
_LOG_PROBLEMS = 20          # problems kept in the planner log for each attempt
# Steps a model may write for a new goal (a re-plan: that plus twice the current plan's), sent
# as the schema's maxItems: a small model looping in steps is stopped by the grammar, not by
# max_tokens after minutes (a local server goes on decoding for a client that gave up).
_MAX_NEW_STEPS = 30


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
- Dates: write a date parameter as the goal says it ("last week", "yesterday", "this month",
  "since October 3", "the last 30 days") or as an ISO date (YYYY-MM-DD) the goal gives. Plan
  Studio works the words out against today's date: copy the same words into both ends of a
  range ("date_from": "last week", "date_to": "last week"). Never do date arithmetic.

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

        said = goal if context is None else f"{context.previous_goal}\n{goal}"
        shown = "" if context is None else _seed_json(context.previous_plan)
        return self._converse(messages, build, today, extra, said, shown, _MAX_NEW_STEPS)

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

        return self._converse(messages, build, today, {"feedback": feedback}, f"{plan.goal}\n{feedback}",
                              _seed_json(plan), _MAX_NEW_STEPS + 2 * len(plan.steps))

    # -- the repair loop --------------------------------------------------------------------
    def _converse(self, messages: list[Message],
                  build: Callable[[dict[str, Any]], tuple[Plan, list[str]]],
                  today: dt.date, extra: dict[str, Any], said: str, shown: str, max_steps: int) -> Plan:
        """Ask, read, and repair: each repair is a new request made of the first messages,
        the last reply (cut short) and its problems, at a lower temperature, with the schema
        narrowed to the tools that reply used; every attempt goes into the planner log.
        ``said`` is the user's words, ``shown`` the plan already before them (its values count
        as said for the listed values a reply may keep, ``_llm_unsaid``)."""
        problems: list[str] = []
        log: list[dict[str, Any]] = []
        attempts = 0
        asked = messages
        temperature = self.settings.temperature
        tools: list[str] | None = None  # None: every tool
        for attempts in range(1, self.settings.max_retries + 2):
            record: dict[str, Any] = {"attempt": attempts, "temperature": temperature,
                                      "tools": tools if tools is not None else "all"}
            log.append(record)
            try:
                reply = self.client.chat(asked, json_schema=plan_json_schema(self.registry, tools, max_steps, said),
                                         temperature=temperature)
            except ReplyCut as cut:
                reply, plan, problems, used = cut.text, None, [
                    f"your reply stopped at the length limit after {len(cut.text):,} characters, so the plan "
                    "is incomplete; answer with a shorter plan (fewer steps, shorter notes) that fits"], []
            except PlannerError as exc:
                record.update(_cost(self.client), error=str(exc))
                exc.planner_log = log  # type: ignore[attr-defined]
                raise
            else:
                plan, problems, used = self._read(reply, build, today, record, said, shown)
            record.update(_cost(self.client), reply=_clip(reply, _LOG_REPLY_CHARS), reply_chars=len(reply),
                          problems=problems[:_LOG_PROBLEMS], problem_count=len(problems))
            if plan is not None and not problems:
                # Like dates, parallel marks follow from what the model wrote (the graph), so
                # the studio sets them rather than trust a small model's copy of the rule.
                plan = mark_parallel(plan, keep={s.id for s in plan.steps if s.locked})
                meta = {**plan.metadata.model_dump(exclude={"planner", "today", "created_at"}),
                        "planner": self.name, "model": self.client.model, "attempts": attempts,
                        "today": today, **extra, LOG_KEY: log}
                return plan.model_copy(update={"metadata": PlanMetadata.model_validate(meta)})
            repair = _repair_request(problems, parsed=plan is not None)
            needs_earlier = plan is not None and _uses_no_earlier_step(plan)
            if needs_earlier:
                repair += _ADD_EARLIER_STEP
            record["repair"] = repair
            asked = [*messages, {"role": "assistant", "content": _echo(reply)}, {"role": "user", "content": repair}]
            # Asking the same question again gets the same answer: vary it. Fewer tools, unless
            # the fix is a step of a tool the reply did not use.
            temperature = round(temperature / 2, 3)
            tools = None if needs_earlier else self._narrowed(used) or tools
        failure = RepairLimitReached(attempts, problems)
        failure.planner_log = log  # type: ignore[attr-defined]
        raise failure

    def _narrowed(self, used: list[str]) -> list[str] | None:
        """The tools a repair may choose from: those the reply used, and for a name that is no
        tool, the tool it is closest to; None (every tool) when that leaves none."""
        names: list[str] = []
        for name in used:
            known = name if name in self.registry else self.registry.suggest(name)
            if known and known not in names:
                names.append(known)
        return names or None

    def _read(self, reply: str, build: Callable[[dict[str, Any]], tuple[Plan, list[str]]],
              today: dt.date, record: dict[str, Any], said: str,
              shown: str) -> tuple[Plan | None, list[str], list[str]]:
        """The plan in ``reply``, its problems and the tool names it used; (None, [why], used)
        when it cannot be read. Date phrases are resolved first, against ``said`` (the user's
        words) too, and noted in ``record``."""
        used: list[str] = []
        try:
            data = extract_plan_json(reply)
            if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
                raise PlanFormatError("seed", 'expected a JSON object with a "steps" list, got '
                                      f"{_kind(data)}")
            steps = [_without_numbers(s) for s in data["steps"]]
            fixed = _without_self_dependencies(steps) + drop_unsaid_choices(steps, self.registry, f"{said}\n{shown}") \
                + ids_at_bound(steps, self.registry, ids_bound(said))
            if fixed:
                record["fixed"] = fixed
            used = [s["tool"] for s in steps if isinstance(s, dict) and isinstance(s.get("tool"), str)]
            dates = resolve_date_phrases(steps, self.registry, today, said)
            if dates:
                record["dates"] = dates
            plan, extra_problems = build({"steps": steps})  # the model's metadata is not trusted
        except PlanError as exc:
            return None, [str(exc)], used
        except ValidationError as exc:  # e.g. a step the Plan model refuses
            return None, [f"seed: {exc.errors()[0]['msg']}"], used
        return plan, [*extra_problems, *(str(p) for p in self.validator.errors(plan))], used

    def _system(self, today: dt.date) -> Message:
        text = (
            "You are the planner of Plan Studio. You turn a user's goal into a plan: a list of "
            "tool calls that a program runs for the user after they review it. You never run "
            "tools and never answer the goal yourself; you only write the plan.\n\n"
            f"Today is {today.isoformat()} ({today.strftime('%A')}).\n\n"
            f"# Plan format\n{_FORMAT_RULES}\n\n"
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


_ADD_EARLIER_STEP = ("\nA step can only use the output of an earlier step: add a step with the tool that gives "
                     "those values before it, and refer to that earlier step's number.")


def _uses_no_earlier_step(plan: Plan) -> bool:
    """Whether a step refers to itself, a later step or none at all (small models write one
    step that refers to "step[0]", its own number, and repeat it)."""
    order = {s.id: n for n, s in enumerate(plan.steps)}
    return any(order.get(ref.step, n) >= n for n, step in enumerate(plan.steps)
               for _name, ref in step.readable_references())


def _echo(reply: str) -> str:
    """The model's reply as it goes back to the model: whole, unless it is huge."""
    if len(reply) <= _ECHO_CHARS:
        return reply
    return f"{reply[:_ECHO_CHARS]}\n[... the other {len(reply) - _ECHO_CHARS:,} characters of this reply are left out]"


def _cost(client: ModelClient) -> dict[str, Any]:
    """What the last request cost, for the planner log."""
    usage = client.last_usage or {}
    return {"seconds": round(client.last_seconds, 2), "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"), "response_format": client.response_format}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _kind(value: Any) -> str:
    return {dict: "an object without \"steps\"", list: "a list", str: "a string"}.get(type(value), type(value).__name__)


def _without_numbers(raw: Any) -> Any:
    """Drop the "step" numbers a re-plan prompt shows; the model often copies them back."""
    if isinstance(raw, dict) and isinstance(raw.get("step"), int):
        return {k: v for k, v in raw.items() if k != "step"}
    return raw


def _without_self_dependencies(steps: list[Any]) -> list[str]:
    """Drop each step's own number from its ``depends_on`` (changed in place): it says nothing,
    and small models repeat it through every repair. One line per step fixed."""
    fixed = []
    for n, raw in enumerate(steps):
        needs = raw.get("depends_on") if isinstance(raw, dict) else None
        if isinstance(needs, list) and any(d == n and not isinstance(d, bool) for d in needs):
            raw["depends_on"] = [d for d in needs if isinstance(d, bool) or d != n]
            fixed.append(f"step {n} · depends_on: listed the step itself; left out")
    return fixed


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
            steps[[s.id for s in steps].index(locked.id)] = locked
        else:  # dropped by the model: back where it was
            steps.insert(min(old_index, len(steps)), locked)
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

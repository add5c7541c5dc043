"""Teams AI's plan of DO and SAY commands.

    {"type": "plan", "commands": [
        {"type": "DO", "action": "addItem", "parameters": {"list": "groceries", "item": "milk"}},
        {"type": "SAY", "response": "I've added milk to your groceries list."}]}

A DO becomes a step calling ``action`` with ``parameters`` (older plans call them
``entities``); a SAY becomes a step of the ``say`` tool with ``{"message": response}``, the
response given as text or as a message object with ``content`` (or ``text``). Teams runs
commands one after another and has no dependencies, so none are invented: order is kept,
and references in parameters stay as text (they still link steps, as in any plan).
A command's ``note`` (or ``description``) is the step's note. Plan Studio also writes the
goal and metadata at the top level; Teams ignores them.

As Teams AI reads them: a plan JSON inside prose (the first plan object wins), the older
``DO action name=value THEN SAY text`` syntax (``_teams_text``), a DO's ``actionId`` or
``action_id`` (kept in ``format_data["teams"]`` and written back), a SAY whose response is a
message with a ``context`` (its ``citations`` become the say step's ``citations``, shown with
the message in the run; the rest of the context is kept in ``format_data["teams"]``), and an
empty SAY. What Teams has no field for (ids other than ``s1``, ``s2``, …, dependencies no
reference implies, parallel flags, locks, result keys, other formats' data) is written in a
top-level ``studio`` object that Teams ignores, so Plan Studio reads the same plan back.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from .._errors import PlanFormatError
from ..plan._model import Plan, PlanMetadata, Step
from ..tooling._registry import ToolRegistry
from ._base import check_step_count, load_json
from ._semantic_kernel import match_tool_name
from ..plan._positions import positions_for_ids
from ._seed import seed_step_ids
from ._sk_values import allowed_types, decode_value
from ._step_extras import apply_step_extras, run_in_order, step_extras
from ._teams_text import first_plan_object, has_text_commands, text_commands

__all__ = ["load_teams", "dump_teams", "plan_from_teams", "plan_to_teams", "SAY_TOOL"]

FORMAT = "teams"
SAY_TOOL = "say"
_NOTE_KEYS = ("note", "description")
_EXTRAS = "studio"  # top-level field Teams ignores: what it has no field for (_step_extras)
_EXTRA_FIELDS = ("ids", "depends_on", "parallel", "locked", "ask_first", "result_key", "format_data")
_PLAN_KEYS = {"type", "commands", "goal", "metadata", _EXTRAS}
_ACTION_IDS = ("actionId", "action_id")
_COMMAND_KEYS = {
    "DO": {"type", "action", "parameters", "entities", *_ACTION_IDS, *_NOTE_KEYS},
    "SAY": {"type", "response", *_NOTE_KEYS},
}
_MESSAGE_KEYS = ("content", "text")
CITATIONS = "citations"  # the say tool's param for a SAY's citations


def _error(message: str) -> PlanFormatError:
    return PlanFormatError(FORMAT, message)


def _say_message(where: str, response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        for key in _MESSAGE_KEYS:
            if key in response:
                if response[key] is None:
                    return ""
                if not isinstance(response[key], str):
                    raise _error(f"{where}.response.{key} must be text")
                return response[key]
        if "context" in response:
            return ""
        raise _error(f"{where}: SAY response object needs 'content' or 'text'")
    raise _error(f"{where}: SAY 'response' must be text or an object with 'content'")


def _say_step(where: str, step_id: str, response: Any, note: str | None) -> Step:
    params: dict[str, Any] = {"message": _say_message(where, response)}
    kept: dict[str, Any] = {}
    context = response.get("context") if isinstance(response, dict) else None
    if context is not None:
        if not isinstance(context, dict):
            raise _error(f"{where}.response.context must be an object")
        rest = dict(context)
        citations = rest.pop(CITATIONS, None)
        if citations is not None:
            if not isinstance(citations, list) or not all(isinstance(c, dict) for c in citations):
                raise _error(f"{where}.response.context.citations must be a list of objects")
            params[CITATIONS] = citations
        kept["context"] = rest
    return Step(id=step_id, tool=SAY_TOOL, params=params, note=note,
                format_data={FORMAT: kept} if kept else {})


def _typed(params: dict[str, Any], tool: str, registry: ToolRegistry | None) -> dict[str, Any]:
    """Text-syntax entities are text; the tool's schema says which are numbers, flags, lists."""
    if registry is None or tool not in registry:
        return params
    schema = registry.get(tool).parameters
    props, defs = schema.get("properties", {}), schema.get("$defs", {})
    return {k: decode_value(v, allowed_types(props[k], defs)) if k in props and isinstance(v, str) else v
            for k, v in params.items()}


def _step(n: int, raw: Any, step_id: str, registry: ToolRegistry | None, typed: bool = False) -> Step:
    where = f"commands[{n}]"
    if not isinstance(raw, dict):
        raise _error(f"{where} must be an object, got {type(raw).__name__}")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind.upper() not in _COMMAND_KEYS:
        raise _error(f"{where}.type: {kind!r} is not a command type (expected DO or SAY)")
    kind = kind.upper()
    unknown = sorted(set(raw) - _COMMAND_KEYS[kind])
    if unknown:
        raise _error(f"{where} has unknown fields for {kind}: {', '.join(unknown)}")
    note = None
    for key in _NOTE_KEYS:
        if key in raw and raw[key] is not None:
            if not isinstance(raw[key], str):
                raise _error(f"{where}.{key} must be text")
            note = note or raw[key]
    if kind == "SAY":
        if "response" not in raw:
            raise _error(f"{where}: SAY needs a 'response'")
        return _say_step(where, step_id, "" if raw["response"] is None else raw["response"], note)
    action = raw.get("action")
    if not isinstance(action, str) or not action.strip():
        raise _error(f"{where}: DO needs an 'action'")
    if "parameters" in raw and "entities" in raw:
        raise _error(f"{where}: give 'parameters' or 'entities', not both")
    key = "entities" if "entities" in raw else "parameters"
    params = raw.get(key)
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise _error(f"{where}.{key} must be an object, got {type(params).__name__}")
    kept = {k: raw[k] for k in _ACTION_IDS if k in raw}
    if any(not isinstance(v, str) for v in kept.values()):
        raise _error(f"{where}: the action id must be text")
    tool = match_tool_name([action.strip()], registry)
    if typed:
        params = _typed(params, tool, registry)
    return Step(id=step_id, tool=tool, params=params, note=note, format_data={FORMAT: kept} if kept else {})


def plan_from_teams(data: Any, registry: ToolRegistry | None = None, *, typed: bool = False) -> Plan:
    """Build a ``Plan`` from already-parsed Teams AI plan JSON; errors name command and field."""
    if isinstance(data, list):
        data = {"type": "plan", "commands": data}
    if not isinstance(data, dict):
        raise _error(f"expected a plan object with 'commands', got {type(data).__name__}")
    if data.get("type", "plan") != "plan":
        raise _error(f"type: {data['type']!r}; a Teams AI plan has type 'plan'")
    unknown = sorted(set(data) - _PLAN_KEYS)
    if unknown:
        raise _error(f"the plan has unknown fields: {', '.join(unknown)}")
    commands = data.get("commands")
    if not isinstance(commands, list):
        raise _error("'commands' must be a list of DO and SAY commands")
    check_step_count(FORMAT, len(commands), "commands")
    goal = data.get("goal") or ""
    if not isinstance(goal, str):
        raise _error("goal must be text")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise _error("metadata must be an object")
    ids = seed_step_ids(len(commands))
    steps = [_step(n, raw, ids[n], registry, typed) for n, raw in enumerate(commands)]
    if data.get(_EXTRAS) is not None:
        apply_step_extras(FORMAT, _EXTRAS, data[_EXTRAS], steps)
    run_in_order(steps, data.get(_EXTRAS))
    try:
        meta = PlanMetadata.model_validate(metadata)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise _error(f"metadata.{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None
    return Plan(goal=goal, steps=steps, metadata=meta)


def _is_say(step: Step) -> bool:
    citations = step.params.get(CITATIONS, [])
    return (step.tool == SAY_TOOL and set(step.params) <= {"message", CITATIONS}
            and isinstance(step.params.get("message"), str)
            and isinstance(citations, list) and all(isinstance(c, dict) for c in citations)
            and set(_own(step)) <= {"context"} and isinstance(_own(step).get("context", {}), dict))


def _own(step: Step) -> dict[str, Any]:
    return step.format_data.get(FORMAT, {})


def _command(step: Step, position: dict[str, int]) -> dict[str, Any]:
    params = positions_for_ids(step.params, position)  # Teams has no step ids: positions
    command: dict[str, Any]
    if _is_say(step):
        context = _own(step).get("context")
        if context is None and CITATIONS not in step.params:
            command = {"type": "SAY", "response": params["message"]}
        else:
            context = {**(context or {}), **({CITATIONS: params[CITATIONS]} if CITATIONS in params else {})}
            command = {"type": "SAY", "response": {"role": "assistant", "content": params["message"],
                                                   "context": context}}
    else:
        # A say step that does not fit SAY (extra params, non-text message) stays a DO,
        # which reads back as the same step.
        command = {"type": "DO", "action": step.tool, "parameters": params}
        command.update({k: v for k, v in _own(step).items() if k in _ACTION_IDS and isinstance(v, str)})
    if step.note:
        command["note"] = step.note
    return command


def plan_to_teams(plan: Plan) -> dict[str, Any]:
    position = {s.id: n for n, s in enumerate(plan.steps)}
    out: dict[str, Any] = {"type": "plan", "commands": [_command(s, position) for s in plan.steps]}
    if plan.goal:
        out["goal"] = plan.goal
    out["metadata"] = plan.metadata.model_dump(mode="json")
    extras = step_extras(_without_written_data(plan), _EXTRA_FIELDS, in_order=True)
    if extras:
        out[_EXTRAS] = extras
    return out


def _without_written_data(plan: Plan) -> Plan:
    """The plan less the Teams data its commands hold already (action ids, a SAY's context)."""
    steps = []
    for step in plan.steps:
        own = _own(step)
        written = {"context"} if _is_say(step) else set(_ACTION_IDS)
        rest = {k: v for k, v in own.items() if k not in written}
        data = {k: v for k, v in step.format_data.items() if k != FORMAT}
        if rest:
            data[FORMAT] = rest
        steps.append(step.model_copy(update={"format_data": data}))
    return plan.model_copy(update={"steps": steps})


def load_teams(text: str, registry: ToolRegistry | None = None) -> Plan:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return plan_from_teams(load_json(FORMAT, text), registry)
    found = first_plan_object(text)
    if found is not None:
        return plan_from_teams(found, registry)
    if has_text_commands(text):
        return plan_from_teams({"type": "plan", "commands": text_commands(text)}, registry, typed=True)
    raise _error("no plan found: expected a plan's JSON, or DO and SAY commands "
                 "(DO action name=value THEN SAY text)")


def dump_teams(plan: Plan, registry: ToolRegistry | None = None) -> str:
    return json.dumps(plan_to_teams(plan), indent=2, ensure_ascii=False)

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
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from .._errors import PlanFormatError
from .._plan import Plan, PlanMetadata, Step
from .._registry import ToolRegistry
from ._base import check_step_count, load_json
from ._semantic_kernel import match_tool_name
from .._positions import positions_for_ids
from ._seed import seed_step_ids

__all__ = ["load_teams", "dump_teams", "plan_from_teams", "plan_to_teams", "SAY_TOOL"]

FORMAT = "teams"
SAY_TOOL = "say"
_NOTE_KEYS = ("note", "description")
_PLAN_KEYS = {"type", "commands", "goal", "metadata"}
_COMMAND_KEYS = {
    "DO": {"type", "action", "parameters", "entities", *_NOTE_KEYS},
    "SAY": {"type", "response", *_NOTE_KEYS},
}
_MESSAGE_KEYS = ("content", "text")


def _error(message: str) -> PlanFormatError:
    return PlanFormatError(FORMAT, message)


def _say_message(where: str, response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        for key in _MESSAGE_KEYS:
            if key in response:
                if not isinstance(response[key], str):
                    raise _error(f"{where}.response.{key} must be text")
                return response[key]
        raise _error(f"{where}: SAY response object needs 'content' or 'text'")
    raise _error(f"{where}: SAY 'response' must be text or an object with 'content'")


def _step(n: int, raw: Any, step_id: str, registry: ToolRegistry | None) -> Step:
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
        if raw.get("response") is None:
            raise _error(f"{where}: SAY needs a 'response'")
        return Step(id=step_id, tool=SAY_TOOL, params={"message": _say_message(where, raw["response"])},
                    note=note)
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
    return Step(id=step_id, tool=match_tool_name([action.strip()], registry), params=params, note=note)


def plan_from_teams(data: Any, registry: ToolRegistry | None = None) -> Plan:
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
    steps = [_step(n, raw, ids[n], registry) for n, raw in enumerate(commands)]
    try:
        meta = PlanMetadata.model_validate(metadata)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise _error(f"metadata.{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None
    return Plan(goal=goal, steps=steps, metadata=meta)


def _command(step: Step, position: dict[str, int]) -> dict[str, Any]:
    params = positions_for_ids(step.params, position)  # Teams has no step ids: positions
    message = params.get("message")
    if step.tool == SAY_TOOL and set(step.params) == {"message"} and isinstance(message, str):
        command: dict[str, Any] = {"type": "SAY", "response": message}
    else:
        # A say step that does not fit SAY (extra params, non-text message) stays a DO,
        # which reads back as the same step.
        command = {"type": "DO", "action": step.tool, "parameters": params}
    if step.note:
        command["note"] = step.note
    return command


def plan_to_teams(plan: Plan) -> dict[str, Any]:
    position = {s.id: n for n, s in enumerate(plan.steps)}
    out: dict[str, Any] = {"type": "plan", "commands": [_command(s, position) for s in plan.steps]}
    if plan.goal:
        out["goal"] = plan.goal
    out["metadata"] = plan.metadata.model_dump(mode="json")
    return out


def load_teams(text: str, registry: ToolRegistry | None = None) -> Plan:
    return plan_from_teams(load_json(FORMAT, text), registry)


def dump_teams(plan: Plan, registry: ToolRegistry | None = None) -> str:
    return json.dumps(plan_to_teams(plan), indent=2, ensure_ascii=False)

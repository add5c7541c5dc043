"""LLMCompiler's plan text: numbered tool calls whose arguments may use earlier results.

    Thought: First the open orders of the customer.
    1. orders_list("open", customer="ACME")
    2. invoices_list(order_id=$1, overdue=True)
    3. join()<END_OF_PLAN>

Each ``N. tool(args)`` line is a step; its arguments are Python literals, positional ones
given to the tool's parameters in the order of its signature (so a registry is needed for
them), keyword ones by name. ``$N`` or ``${N}`` is the output of the action numbered N, a
reference to that step's whole output (bare, or inside a string). ``Thought:`` lines are the
note of the action after them (thoughts after the last action are kept in
``metadata.comments``); ``join()`` or ``<END_OF_PLAN>`` ends the plan; other lines are
ignored, as LLMCompiler ignores them.

Written back the same way, a step's positional arguments as far as its params follow the
tool's signature, the rest by keyword. LLMCompiler has no place for the goal, metadata,
ids, locks, parallel flags or result keys, nor for a reference into part of an output
(written as its ``${step[N]...}`` text); ``export_plan`` names what a plan loses.

Like the other formats that speak positions, a reference is positional only in the text:
read, ``$N`` becomes ``${step[N-1]}`` and then the step's id (``core.plan._positions``); written,
a reference by id becomes its position first.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .._errors import PlanFormatError
from ..plan._model import Plan, PlanMetadata, Step
from ..tooling._registry import ToolRegistry
from ..plan._positions import ids_for_positions, positions_for_ids
from ..plan._references import find_references
from ._base import check_step_count
from ._seed import seed_step_ids

__all__ = ["load_llmcompiler", "dump_llmcompiler"]

FORMAT = "llmcompiler"
_END = "<END_OF_PLAN>"
_ACTION = re.compile(r"\s*+(\d{1,6})\.\s*+([A-Za-z_][\w.\-]*+)\((.*)\)\s*+(?:#\w+)?\s*+(?:" + _END + r")?\s*+")
_ACTION_START = re.compile(r"\s*+\d{1,6}\.\s*+[A-Za-z_][\w.\-]*+\(")
_JOIN_START = re.compile(r"\s*+\d{1,6}\.\s*+join\(")
_THOUGHT = re.compile(r"\s*+Thought:\s?(.*)")
_OUTPUT = re.compile(r"\$\{(\d{1,6})\}|\$(\d{1,6})(?!\d)")
_MARK = "__plan_studio_output_%s__"
_MARKED = re.compile(r"__plan_studio_output_(\d+)__")
_COMMENTS_KEY = "comments"


def _reference(index: int) -> str:
    """The positional reference the output of the step at ``index`` is (the one place this
    format writes a reference's text), turned into the step's id by ``ids_for_positions``."""
    return f"${{step[{index}]}}"


def _error(line: int, message: str) -> PlanFormatError:
    return PlanFormatError(FORMAT, f"line {line}: {message}")


# -- reading -----------------------------------------------------------------------------------
def _value(node: ast.AST, line: int, positions: dict[int, int]) -> Any:
    def ref(number: int) -> str:
        if number not in positions:
            raise _error(line, f"${number} is not the number of an earlier action")
        return _reference(positions[number])

    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (str, int, float, bool))):
        if isinstance(node.value, str):
            return _MARKED.sub(lambda m: ref(int(m.group(1))), node.value)
        return node.value
    if isinstance(node, ast.Name) and _MARKED.fullmatch(node.id):
        return ref(int(_MARKED.fullmatch(node.id).group(1)))  # type: ignore[union-attr]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e, line, positions) for e in node.elts]
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        return {k.value: _value(v, line, positions) for k, v in zip(node.keys, node.values)}  # type: ignore[union-attr]
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool)):
        return -node.operand.value
    raise _error(line, f"{ast.unparse(node)[:60]!r} is not a value (text, number, True/False/None, list or dict)")


def _arguments(tool: str, args: str, line: int, positions: dict[int, int],
               registry: ToolRegistry | None) -> dict[str, Any]:
    marked = _OUTPUT.sub(lambda m: _MARK % (m.group(1) or m.group(2)), args)
    try:
        call = ast.parse(f"f({marked})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise _error(line, f"the arguments of {tool} are not Python values: ({args[:60]})") from None
    assert isinstance(call, ast.Call)
    params: dict[str, Any] = {}
    if call.args:
        if registry is None or tool not in registry:
            raise _error(line, f"{tool} is not a known tool, so its positional arguments cannot be "
                               "given names; write them as name=value")
        names = list(registry.get(tool).parameters.get("properties", {}))
        if len(call.args) > len(names):
            raise _error(line, f"{tool} takes {len(names)} parameters ({', '.join(names)}), "
                               f"got {len(call.args)} positional arguments")
        for name, node in zip(names, call.args):
            if isinstance(node, ast.Starred):
                raise _error(line, "*arguments are not values")
            params[name] = _value(node, line, positions)
    for keyword in call.keywords:
        if keyword.arg is None:
            raise _error(line, "**arguments are not values")
        if keyword.arg in params:
            raise _error(line, f"{keyword.arg} is given twice")
        params[keyword.arg] = _value(keyword.value, line, positions)
    return params


def load_llmcompiler(text: str, registry: ToolRegistry | None = None) -> Plan:
    steps: list[Step] = []
    positions: dict[int, int] = {}  # action number -> step position
    thoughts: list[str] = []
    ended = False  # join() or <END_OF_PLAN> was read: a plan of no actions is still a plan
    lines = text.splitlines()
    count = sum(1 for raw in lines if _ACTION_START.match(raw) and not _JOIN_START.match(raw))
    check_step_count(FORMAT, count, "actions")
    ids = seed_step_ids(count)
    for number, raw in enumerate(lines, start=1):
        thought = _THOUGHT.fullmatch(raw)
        if thought:
            thoughts.append(thought.group(1))
            continue
        if raw.strip() == _END:
            ended = True
            break
        action = _ACTION.fullmatch(raw)
        if action is None:
            if _ACTION_START.match(raw):
                raise _error(number, "an action should read N. tool(arguments) on one line")
            continue  # LLMCompiler reads only actions and thoughts
        tool, args = action.group(2), action.group(3)
        if tool == "join":
            ended = True
            break
        if int(action.group(1)) in positions:
            raise _error(number, f"action {action.group(1)} is numbered twice")
        params = ids_for_positions(_arguments(tool, args, number, positions, registry), ids)
        n = len(steps)
        implied = {r.step for r in find_references(params)}
        steps.append(Step(id=ids[n], tool=tool, params=params, note="\n".join(thoughts) or None,
                          depends_on=[i for i in ids[:n] if i in implied]))
        positions[int(action.group(1))] = n
        thoughts = []
        if _END in raw:
            ended = True
            break
    if not steps and not ended:
        raise PlanFormatError(FORMAT, "no actions found: expected lines such as 1. tool(arguments)")
    metadata = PlanMetadata()
    if thoughts:
        metadata = PlanMetadata.model_validate({_COMMENTS_KEY: thoughts})
    return Plan(steps=steps, metadata=metadata)


# -- writing -----------------------------------------------------------------------------------
def _text(value: str, bare: bool) -> str:
    whole = re.fullmatch(r"\$\{step\[(\d+)\]\}", value)
    if bare and whole:
        return f"${int(whole.group(1)) + 1}"
    return repr(re.sub(r"\$\{step\[(\d+)\]\}", lambda m: f"${{{int(m.group(1)) + 1}}}", value))


def _python(value: Any, bare: bool = True) -> str:
    if isinstance(value, str):
        return _text(value, bare)
    if isinstance(value, list):
        return "[" + ", ".join(_python(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_python(v)}" for k, v in value.items()) + "}"
    return repr(value)


def dump_llmcompiler(plan: Plan, registry: ToolRegistry | None = None) -> str:
    out: list[str] = []
    position = {s.id: n for n, s in enumerate(plan.steps)}
    for n, step in enumerate(plan.steps):
        if not re.fullmatch(r"[A-Za-z_][\w.\-]*", step.tool):
            raise PlanFormatError(FORMAT, f"step {n} ({step.tool}): the tool name cannot be written as a call")
        if step.note:
            out += [f"Thought: {line}" for line in step.note.splitlines() or [""]]
        order = list(registry.get(step.tool).parameters.get("properties", {})) \
            if registry is not None and step.tool in registry else []
        args, positional = [], True
        for k, (name, value) in enumerate(positions_for_ids(step.params, position).items()):
            positional = positional and k < len(order) and order[k] == name
            if not positional and not name.isidentifier():
                raise PlanFormatError(FORMAT, f"step {n} ({step.tool}): parameter {name!r} cannot be "
                                              "written as a keyword argument")
            args.append(_python(value) if positional else f"{name}={_python(value)}")
        out.append(f"{n + 1}. {step.tool}({', '.join(args)})")
    comments = (plan.metadata.model_extra or {}).get(_COMMENTS_KEY)
    if isinstance(comments, list):
        out += [f"Thought: {c}" for c in comments if isinstance(c, str) and "\n" not in c]
    out.append(f"{len(plan.steps) + 1}. join(){_END}")
    return "\n".join(out) + "\n"

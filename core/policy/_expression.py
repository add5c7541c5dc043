"""The policy's conditions: a small expression language over a step's arguments, read without
``eval`` and evaluated in time linear in the expression and the values it reads.

    amount > 100 and currency == "EUR"
    not endswith(to, "@example.com")
    customer.tier in ["gold", "platinum"] or matches(reference, "^INV-[0-9]+$")

What it has, and nothing more:

- literals: strings in double or single quotes (``\\"``, ``\\\\``, ``\\n``, ``\\t`` escapes),
  numbers (``100``, ``-2.5``), ``true``, ``false``, ``null``, lists ``[1, 2, "x"]``;
- argument paths: ``amount``, ``to.domain``, ``items[0].price`` (an argument the step does not
  have is ``null``);
- comparisons ``== != < <= > >=`` (ordering only between two numbers or two strings; any
  other pair is false), ``x in list`` / ``x not in list`` (or a substring of a string);
- ``and``, ``or``, ``not``, parentheses;
- functions: ``endswith(s, suffix)``, ``startswith(s, prefix)``, ``contains(s_or_list, x)``,
  ``matches(s, "pattern")`` (the pattern a literal, RE2 syntax: linear time, no lookaround or
  backreferences), ``lower(s)``, ``upper(s)``, ``len(x)``.

Bounds: an expression is at most ``MAX_EXPRESSION_CHARS`` characters, ``MAX_TOKENS`` tokens and
``MAX_DEPTH`` levels of nesting; a parse is one pass over the tokens, an evaluation one visit
of each node. A value known only at run time (a ``${steps...}`` reference in a step's params,
before the run resolves it) is ``UNKNOWN``: ``and``/``or`` stay three-valued (``false and
UNKNOWN`` is false), anything else that reads it is ``UNKNOWN`` too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .._errors import PolicyError
from ._syntax import (MAX_EXPRESSION_CHARS, CallNode, CompareNode, ListNode, LiteralNode, LogicNode, Node, NotNode,
                      Parser, PathNode)

__all__ = ["UNKNOWN", "Condition", "parse_condition"]


class _Unknown:
    """A value only the run will know."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()

# -- evaluation --------------------------------------------------------------------------------

def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _holds_unknown(value: Any, budget: list[int]) -> bool:
    """Whether ``value`` holds ``UNKNOWN`` anywhere (a list or object compared whole)."""
    budget[0] -= 1
    if value is UNKNOWN:
        return True
    if budget[0] < 0:
        return False
    if isinstance(value, dict):
        return any(_holds_unknown(v, budget) for v in value.values())
    if isinstance(value, list):
        return any(_holds_unknown(v, budget) for v in value)
    return False


def _equal(left: Any, right: Any) -> Any:
    if isinstance(left, (dict, list)) or isinstance(right, (dict, list)):
        if _holds_unknown(left, [10_000]) or _holds_unknown(right, [10_000]):
            return UNKNOWN
    if _is_number(left) and _is_number(right):
        return left == right
    return type(left) is type(right) and left == right


def _compare(op: str, left: Any, right: Any) -> Any:
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        same = _equal(left, right)
        return UNKNOWN if same is UNKNOWN else not same
    if op in ("in", "not in"):
        if isinstance(right, str):
            found = left in right if isinstance(left, str) else False
        elif isinstance(right, list):
            found = False
            for item in right:
                same = _equal(left, item)
                if same is UNKNOWN:
                    return UNKNOWN
                if same:
                    found = True
                    break
        else:
            found = False
        return found if op == "in" else not found
    if not ((_is_number(left) and _is_number(right)) or (isinstance(left, str) and isinstance(right, str))):
        return False
    return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]


def _endswith(s: Any, suffix: Any) -> bool:
    return isinstance(s, str) and isinstance(suffix, str) and s.endswith(suffix)


def _startswith(s: Any, prefix: Any) -> bool:
    return isinstance(s, str) and isinstance(prefix, str) and s.startswith(prefix)


def _contains(container: Any, item: Any) -> Any:
    return _compare("in", item, container) if isinstance(container, (str, list)) else False


def _matches(s: Any, compiled: Any) -> bool:
    if not isinstance(s, str):
        return False
    try:
        return compiled.search(s) is not None
    except UnicodeEncodeError:  # a lone surrogate: RE2 reads UTF-8 only; such text matches nothing
        return False


def _lower(s: Any) -> Any:
    return s.lower() if isinstance(s, str) else None


def _upper(s: Any) -> Any:
    return s.upper() if isinstance(s, str) else None


def _len(x: Any) -> Any:
    return len(x) if isinstance(x, (str, list, dict)) else None


_FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    "endswith": (2, _endswith), "startswith": (2, _startswith), "contains": (2, _contains),
    "matches": (2, _matches), "lower": (1, _lower), "upper": (1, _upper), "len": (1, _len)}


def _read(arguments: Mapping[str, Any] | None, parts: Sequence[str | int]) -> Any:
    if arguments is None:
        return UNKNOWN
    value: Any = arguments
    for part in parts:
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(part, int):
            value = value[part] if isinstance(value, list) and -len(value) <= part < len(value) else None
        else:
            value = value.get(part) if isinstance(value, dict) else None
    return value


def _value(node: Node, arguments: Mapping[str, Any] | None) -> Any:
    if isinstance(node, LiteralNode):
        return node.value
    if isinstance(node, PathNode):
        return _read(arguments, node.parts)
    if isinstance(node, ListNode):
        return [_value(item, arguments) for item in node.items]
    if isinstance(node, NotNode):
        inner = _truth(_value(node.operand, arguments))
        return UNKNOWN if inner is UNKNOWN else not inner
    if isinstance(node, LogicNode):
        decided, unknown = node.op == "or", False  # "or" is decided by a true operand, "and" by a false one
        for operand in node.operands:
            truth = _truth(_value(operand, arguments))
            if truth is UNKNOWN:
                unknown = True
            elif truth is decided:
                return decided
        return UNKNOWN if unknown else not decided
    if isinstance(node, CompareNode):
        return _compare(node.op, _value(node.left, arguments), _value(node.right, arguments))
    args = [_value(a, arguments) for a in node.args]
    if any(a is UNKNOWN for a in args):
        return UNKNOWN
    return _FUNCTIONS[node.name][1](*args)


def _truth(value: Any) -> Any:
    """A condition's value as true, false or ``UNKNOWN``: only ``true`` is true."""
    return UNKNOWN if value is UNKNOWN else value is True


def _paths(node: Node) -> list[PathNode]:
    if isinstance(node, PathNode):
        return [node]
    children: Sequence[Any] = ()
    if isinstance(node, ListNode):
        children = node.items
    elif isinstance(node, NotNode):
        children = (node.operand,)
    elif isinstance(node, LogicNode):
        children = node.operands
    elif isinstance(node, CompareNode):
        children = (node.left, node.right)
    elif isinstance(node, CallNode):
        children = node.args
    return [p for child in children for p in _paths(child)]


@dataclass(frozen=True)
class Condition:
    """A parsed ``when``: ``holds(arguments)`` is True, False or ``UNKNOWN``."""

    text: str
    tree: Any

    def holds(self, arguments: Mapping[str, Any] | None) -> Any:
        """Whether the condition holds on ``arguments`` (None: none known yet, every path
        ``UNKNOWN``); ``UNKNOWN`` when it needs a value only the run will know."""
        return _truth(_value(self.tree, arguments))

    @property
    def paths(self) -> list[tuple[str | int, ...]]:
        """The argument paths it reads, each as its parts (``("to", "domain")``)."""
        return list(dict.fromkeys(p.parts for p in _paths(self.tree)))


def parse_condition(text: str, *, rule: str | None = None, line: int | None = None) -> Condition:
    """``text`` as a ``Condition``; ``PolicyError`` (naming ``rule`` and ``line``) saying what
    is wrong and where when it is not one."""
    if not isinstance(text, str):
        raise PolicyError(f"when: must be a string, not {type(text).__name__}", rule=rule, line=line)
    if len(text) > MAX_EXPRESSION_CHARS:
        raise PolicyError(f"when: the condition is {len(text)} characters long; at most {MAX_EXPRESSION_CHARS}",
                          rule=rule, line=line)
    if not text.strip():
        raise PolicyError("when: the condition is empty", rule=rule, line=line)
    try:
        return Condition(text, Parser(text).parse())
    except PolicyError as exc:
        raise PolicyError(f"when: {exc} in {text!r:.80}", rule=rule, line=line) from None

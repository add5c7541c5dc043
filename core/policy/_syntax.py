"""The syntax of the policy's conditions: tokens, the tree and the one-pass parser (the
language is described in ``core.policy._expression``). Patterns of ``matches`` are compiled
here, with RE2, so a pattern it cannot run in linear time is refused when the policy is read."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Union

import re2

from .._errors import PolicyError

__all__ = ["FUNCTION_ARITY", "MAX_DEPTH", "MAX_EXPRESSION_CHARS", "MAX_TOKENS", "CallNode", "CompareNode", "ListNode",
           "LiteralNode", "LogicNode", "Node", "NotNode", "Parser", "PathNode"]

FUNCTION_ARITY = {"endswith": 2, "startswith": 2, "contains": 2, "matches": 2, "lower": 1, "upper": 1, "len": 1}
MAX_EXPRESSION_CHARS = 2000
MAX_TOKENS = 400
MAX_DEPTH = 24
MAX_LIST_ITEMS = 200


_KEYWORDS = {"and", "or", "not", "in", "true", "false", "null"}
_OPERATORS = ("==", "!=", "<=", ">=", "<", ">")
_PUNCTUATION = "()[],."
_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "n": "\n", "t": "\t"}


@dataclass(frozen=True)
class _Token:
    kind: str  # "name", "string", "number", "op", "punct", "keyword", "end"
    value: Any
    at: int  # character offset, for messages


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if len(out) >= MAX_TOKENS:
            raise bad(f"it has more than {MAX_TOKENS} tokens", i)
        if c in "\"'":
            j, chars = i + 1, []
            while j < n and text[j] != c:
                if text[j] == "\\":
                    if j + 1 >= n or text[j + 1] not in _ESCAPES:
                        raise bad("a string has an unknown escape (\\\", \\', \\\\, \\n, \\t are known)", j)
                    chars.append(_ESCAPES[text[j + 1]])
                    j += 2
                else:
                    chars.append(text[j])
                    j += 1
            if j >= n:
                raise bad("a string is not closed", i)
            out.append(_Token("string", "".join(chars), i))
            i = j + 1
        elif c.isdigit() or (c == "-" and i + 1 < n and text[i + 1].isdigit()
                             and (not out or out[-1].kind in ("op", "keyword") or out[-1].value in ("(", "[", ","))):
            j = i + 1
            while j < n and (text[j].isdigit() or text[j] in "._eE" or (text[j] in "+-" and text[j - 1] in "eE")):
                j += 1
            word = text[i:j].replace("_", "")
            try:
                number: float | int = int(word) if word.lstrip("-").isdigit() else float(word)
            except ValueError:
                raise bad(f"{text[i:j]!r} is not a number", i) from None
            if isinstance(number, float) and not math.isfinite(number):
                raise bad(f"{text[i:j]!r} is not a finite number", i)
            out.append(_Token("number", number, i))
            i = j
        elif c.isalpha() or c == "_":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "_-"):
                j += 1
            word = text[i:j]
            out.append(_Token("keyword" if word in _KEYWORDS else "name", word, i))
            i = j
        elif text.startswith(_OPERATORS, i):
            op = next(o for o in _OPERATORS if text.startswith(o, i))
            out.append(_Token("op", op, i))
            i += len(op)
        elif c in _PUNCTUATION:
            out.append(_Token("punct", c, i))
            i += 1
        else:
            raise bad(f"unexpected character {c!r}", i)
    out.append(_Token("end", None, n))
    return out


def bad(message: str, at: int) -> PolicyError:
    """A parse error at character offset ``at`` (``parse_condition`` adds the rule and line)."""
    return PolicyError(f"{message} (at character {at + 1})")


# -- the tree ----------------------------------------------------------------------------------
# Each node is a small tuple-like dataclass; evaluation is one function per kind.

@dataclass(frozen=True)
class LiteralNode:
    value: Any


@dataclass(frozen=True)
class PathNode:
    parts: tuple[str | int, ...]

    @property
    def text(self) -> str:
        return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(self.parts))


@dataclass(frozen=True)
class ListNode:
    items: tuple[Any, ...]


@dataclass(frozen=True)
class NotNode:
    operand: Any


@dataclass(frozen=True)
class LogicNode:
    op: str  # "and" / "or"
    operands: tuple[Any, ...]


@dataclass(frozen=True)
class CompareNode:
    op: str  # one of _OPERATORS, "in", "not in"
    left: Any
    right: Any


@dataclass(frozen=True)
class CallNode:
    name: str
    args: tuple[Any, ...]


Node = Union[LiteralNode, PathNode, ListNode, NotNode, LogicNode, CompareNode, CallNode]


class Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.i = 0

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def expect(self, kind: str, value: Any, what: str) -> _Token:
        token = self.peek()
        if token.kind != kind or token.value != value:
            raise bad(f"expected {what}, found {_shown(token)}", token.at)
        return self.take()

    def is_(self, kind: str, value: Any = None) -> bool:
        token = self.peek()
        return token.kind == kind and (value is None or token.value == value)

    def parse(self) -> Node:
        node = self.or_(0)
        if not self.is_("end"):
            raise bad(f"unexpected {_shown(self.peek())} after a whole condition", self.peek().at)
        return node

    def deeper(self, depth: int) -> int:
        if depth >= MAX_DEPTH:
            raise bad(f"it nests more than {MAX_DEPTH} levels deep", self.peek().at)
        return depth + 1

    def or_(self, depth: int) -> Node:
        depth = self.deeper(depth)
        operands = [self.and_(depth)]
        while self.is_("keyword", "or"):
            self.take()
            operands.append(self.and_(depth))
        return operands[0] if len(operands) == 1 else LogicNode("or", tuple(operands))

    def and_(self, depth: int) -> Node:
        operands = [self.not_(depth)]
        while self.is_("keyword", "and"):
            self.take()
            operands.append(self.not_(depth))
        return operands[0] if len(operands) == 1 else LogicNode("and", tuple(operands))

    def not_(self, depth: int) -> Node:
        if self.is_("keyword", "not"):
            self.take()
            return NotNode(self.not_(self.deeper(depth)))
        return self.compare(depth)

    def compare(self, depth: int) -> Node:
        left = self.primary(depth)
        if self.is_("op"):
            op = self.take().value
            return CompareNode(op, left, self.primary(depth))
        if self.is_("keyword", "in"):
            self.take()
            return CompareNode("in", left, self.primary(depth))
        if self.is_("keyword", "not") and self.tokens[self.i + 1].kind == "keyword" and self.tokens[self.i + 1].value == "in":
            self.i += 2
            return CompareNode("not in", left, self.primary(depth))
        return left

    def primary(self, depth: int) -> Node:
        token = self.peek()
        if token.kind in ("string", "number"):
            return LiteralNode(self.take().value)
        if token.kind == "keyword" and token.value in ("true", "false", "null"):
            self.take()
            return LiteralNode({"true": True, "false": False, "null": None}[token.value])
        if token.kind == "punct" and token.value == "(":
            self.take()
            node = self.or_(self.deeper(depth))
            self.expect("punct", ")", "')'")
            return node
        if token.kind == "punct" and token.value == "[":
            return self.list_(self.deeper(depth))
        if token.kind == "name":
            self.take()
            if self.is_("punct", "("):
                return self.call(token, self.deeper(depth))
            return self.path(token)
        raise bad(f"expected a value, an argument or '(', found {_shown(token)}", token.at)

    def list_(self, depth: int) -> Node:
        self.take()
        items: list[Node] = []
        while not self.is_("punct", "]"):
            if items:
                self.expect("punct", ",", "',' or ']'")
            if len(items) >= MAX_LIST_ITEMS:
                raise bad(f"a list has more than {MAX_LIST_ITEMS} items", self.peek().at)
            items.append(self.or_(depth))
        self.take()
        return ListNode(tuple(items))

    def call(self, name: _Token, depth: int) -> Node:
        arity = FUNCTION_ARITY.get(name.value)
        if arity is None:
            raise bad(f"no function is named {name.value!r}; the functions are: {', '.join(FUNCTION_ARITY)}", name.at)
        self.take()
        args: list[Node] = []
        while not self.is_("punct", ")"):
            if args:
                self.expect("punct", ",", "',' or ')'")
            args.append(self.or_(depth))
        self.take()
        if len(args) != arity:
            raise bad(f"{name.value}() takes {arity} argument{'s' if arity != 1 else ''}, not {len(args)}", name.at)
        if name.value == "matches":
            pattern = args[1]
            if not isinstance(pattern, LiteralNode) or not isinstance(pattern.value, str):
                raise bad("matches() takes its pattern as a string literal", name.at)
            try:
                compiled = re2.compile(pattern.value, _RE2_OPTIONS)
            except re2.error as exc:
                raise bad(f"matches(): the pattern {pattern.value!r} is not one RE2 reads in linear time "
                           f"(no lookaround, no backreferences): {exc}", name.at) from None
            args[1] = LiteralNode(compiled)
        return CallNode(name.value, tuple(args))

    def path(self, first: _Token) -> Node:
        parts: list[str | int] = [first.value]
        while True:
            if self.is_("punct", "."):
                self.take()
                token = self.take()
                if token.kind not in ("name", "keyword"):
                    raise bad(f"expected a field name after '.', found {_shown(token)}", token.at)
                parts.append(token.value)
            elif self.is_("punct", "["):
                self.take()
                token = self.take()
                if token.kind != "number" or not isinstance(token.value, int):
                    raise bad(f"expected a whole number in [...], found {_shown(token)}", token.at)
                self.expect("punct", "]", "']'")
                parts.append(token.value)
            else:
                return PathNode(tuple(parts))


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


def _shown(token: _Token) -> str:
    if token.kind == "end":
        return "the end"
    return repr(token.value)



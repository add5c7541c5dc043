"""Reading the plan JSON out of whatever a model wrote around it.

Models wrap JSON in code fences, put prose before and after it, leave trailing commas and
``//`` comments, write Python's ``True``/``None``, answer with a bare list of steps or wrap
the plan in ``{"plan": ...}``. All of that is accepted here; anything else raises
``PlanFormatError`` with a message precise enough to send back to the model (what was
wrong, and the line it was on). The text is only ever parsed as JSON, never evaluated.

Any reply is read in time linear in its length, whatever it holds (unclosed brackets by the
thousand, fences, deep nesting), and replies longer than ``MAX_REPLY_CHARS`` or nested deeper
than ``MAX_DEPTH`` are refused with a message rather than read.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterator

from ..._errors import PlanFormatError

__all__ = ["extract_plan_json", "MAX_REPLY_CHARS", "MAX_DEPTH"]

_FORMAT = "seed"
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+\-]*[ \t]*\r?\n(.*?)(?:```|\Z)", re.S)
_OPENERS = {"{": "}", "[": "]"}
_OPENER = re.compile(r"[{\[]")
# The characters a bracket scan acts on; everything between them is skipped in one step.
_SIGNIFICANT = re.compile(r'[{}\[\]"\\]')
# A plan is a few kilobytes and a few levels deep; beyond these the reply is not a plan, and
# reading it further would only cost time (or Python's recursion limit, in json.loads).
MAX_REPLY_CHARS = 200_000
MAX_DEPTH = 100
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_WRAPPERS = ("plan",)


def extract_plan_json(text: str) -> Any:
    """The plan inside ``text``: a dict with ``steps`` when it looks like a plan.

    A bare list becomes ``{"steps": list}``, a single step object ``{"steps": [step]}``,
    and ``{"plan": {...}}`` is unwrapped. Raises ``PlanFormatError`` when no JSON is found.
    """
    if not isinstance(text, str) or not text.strip():
        raise PlanFormatError(_FORMAT, 'the reply is empty; expected a JSON object like {"steps": [...]}')
    if len(text) > MAX_REPLY_CHARS:
        raise PlanFormatError(_FORMAT, f"the reply is {len(text):,} characters long, more than the "
                                       f"{MAX_REPLY_CHARS:,} a plan may take; answer with the plan JSON only")
    fallback: Any = None
    found_json = False
    first_error: str | None = None
    for chunk in _candidates(text):
        if isinstance(chunk, _Broken):
            first_error = first_error or str(chunk)
            continue
        try:
            value = _loads_relaxed(chunk)
        except ValueError as exc:
            first_error = first_error or str(exc)
            continue
        value = _unwrap(value)
        if _looks_like_plan(value):
            return value
        if not found_json:
            fallback, found_json = value, True
    if found_json:
        return fallback
    if first_error:
        raise PlanFormatError(_FORMAT, f"the JSON in the reply is invalid: {first_error}")
    raise PlanFormatError(_FORMAT, 'no JSON found in the reply; answer with a JSON object like '
                                   '{"steps": [{"tool": ..., "params": {...}, "depends_on": [], "parallel": false}]}')


class _Broken(str):
    """Not a candidate but the reason a bracketed span is not JSON (mismatched, cut off)."""


def _candidates(text: str) -> Iterator[str]:
    """Fenced blocks first, then every balanced ``{...}`` / ``[...]`` span, outermost first."""
    for match in _FENCE.finditer(text):
        body = match.group(1).strip()
        if body:
            yield body
            yield from _spans(body)
    yield from _spans(text)


def _spans(text: str) -> Iterator[str]:
    """Top-level spans only: inside a span that fails to parse, a fragment (one step of a
    broken plan, say) must not pass for the whole plan.

    One pass over the text: a span left open to the end is reported once, and the balanced
    spans inside it are the next candidates (a stray ``{`` in prose must not hide the plan
    after it). At most one problem is reported per text, since only the first is shown.
    """
    pos = 0
    reported = False
    while True:
        found = _OPENER.search(text, pos)
        if found is None:
            return
        end, problem, inner = _matching_close(text, found.start())
        if not problem:
            assert end is not None
            yield text[found.start():end + 1]
            pos = end + 1
            continue
        if not reported:
            reported = True
            yield _Broken(problem())
        if end is not None:  # a bracket that closes the wrong thing: go on after it
            pos = end + 1
            continue
        for inner_start, inner_end in inner:  # never closed: the text has been read to its end
            yield text[inner_start:inner_end + 1]
        return


def _matching_close(text: str, start: int
                    ) -> tuple[int | None, Callable[[], str] | None, list[tuple[int, int]]]:
    """Where the bracket at ``text[start]`` closes: (index, None, []); (index, why, []) when a
    bracket there closes the wrong thing; or (None, why, spans) when it is never closed, with
    the outermost balanced spans inside it, found on the way. ``why`` is a function: the
    message counts lines, which is only worth doing for the one problem that is shown."""
    stack: list[tuple[str, int]] = []
    closed: list[tuple[int, int]] = []  # outermost (start, end) pairs so far, in order
    for i, ch in _brackets(text, start):
        if ch in _OPENERS:
            stack.append((ch, i))
        else:
            opener, at = stack.pop()
            if _OPENERS[opener] != ch:
                return i, _mismatch(text, i, opener, at), []
            if not stack:
                return i, None, []
            while closed and closed[-1][0] > at:  # inside the span just closed
                closed.pop()
            closed.append((at, i))
    opener, at = stack[0] if stack else (text[start], start)
    return None, lambda: (f"the {opener!r} opened on line {_line(text, at)} is never closed "
                          "(the reply is cut off)"), closed


def _brackets(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(index, bracket) for each bracket of ``text`` from ``start`` that is outside a string.
    One pass over the few significant characters, whatever lies between them."""
    in_string = False
    escaped_at = -1  # the character after a backslash in a string means nothing here
    for found in _SIGNIFICANT.finditer(text, start):
        i = found.start()
        if i == escaped_at:
            continue
        ch = text[i]
        if in_string:
            if ch == "\\":
                escaped_at = i + 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch != "\\":
            yield i, ch


def _mismatch(text: str, index: int, opener: str, at: int) -> Callable[[], str]:
    return lambda: (f"{text[index]!r} on line {_line(text, index)} does not close the {opener!r} "
                    f"opened on line {_line(text, at)}")


def _deepest(text: str) -> tuple[int, int]:
    """How deep brackets outside strings nest in ``text``, up to ``MAX_DEPTH + 1``, and the
    line where the scan stopped."""
    depth = deepest = 0
    for i, ch in _brackets(text):
        if ch in _OPENERS:
            depth += 1
            if depth > MAX_DEPTH:
                return depth, _line(text, i)
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest, 0


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _loads_relaxed(chunk: str) -> Any:
    depth, line = _deepest(chunk)
    if depth > MAX_DEPTH:
        raise ValueError(f"the brackets are nested more than {MAX_DEPTH} levels deep (line {line}); "
                         "a plan needs only a few")
    try:
        return json.loads(chunk)
    except ValueError:
        pass
    relaxed = _relax(chunk)
    try:
        return json.loads(relaxed)
    except json.JSONDecodeError as exc:
        line = relaxed.splitlines()[exc.lineno - 1].strip() if relaxed.splitlines() else ""
        near = f" near {line[:120]!r}" if line else ""
        raise ValueError(f"{exc.msg} at line {exc.lineno}, column {exc.colno}{near}") from None


def _relax(text: str) -> str:
    """Drop comments and trailing commas, and spell Python literals as JSON, outside strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            skipped = text[i:close + 2 if close >= 0 else n]
            out.append("\n" * skipped.count("\n"))  # keep line numbers right for messages
            i = close + 2 if close >= 0 else n
        elif ch == ",":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # a trailing comma
            else:
                out.append(ch)
                i += 1
        elif ch.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            out.append(_PY_LITERALS.get(word, word))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _unwrap(value: Any) -> Any:
    for _ in range(3):  # {"plan": {"plan": ...}} is rare, but cheap to allow
        if not (isinstance(value, dict) and "steps" not in value):
            break
        key = next((k for k in value if isinstance(k, str) and k.lower() in _WRAPPERS
                    and isinstance(value[k], (dict, list))), None)
        if key is None:
            break
        inner = value[key]
        if isinstance(inner, list):
            inner = {"steps": inner}
        if "metadata" in value and "metadata" not in inner:
            inner = {**inner, "metadata": value["metadata"]}
        value = inner
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return {"steps": value}
    if isinstance(value, dict) and "steps" not in value and isinstance(value.get("tool"), str):
        return {"steps": [value]}
    return value


def _looks_like_plan(value: Any) -> bool:
    steps = value.get("steps") if isinstance(value, dict) else None
    return isinstance(steps, list) and all(isinstance(s, dict) for s in steps)

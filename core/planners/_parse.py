"""Reading the plan JSON out of whatever a model wrote around it.

Models wrap JSON in code fences, put prose before and after it, leave trailing commas and
``//`` comments, write Python's ``True``/``None``, answer with a bare list of steps or wrap
the plan in ``{"plan": ...}``. All of that is accepted here; anything else raises
``PlanFormatError`` with a message precise enough to send back to the model (what was
wrong, and the line it was on). The text is only ever parsed as JSON, never evaluated.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from .._errors import PlanFormatError

__all__ = ["extract_plan_json"]

_FORMAT = "seed"
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+\-]*[ \t]*\r?\n(.*?)(?:```|\Z)", re.S)
_OPENERS = {"{": "}", "[": "]"}
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_WRAPPERS = ("plan",)


def extract_plan_json(text: str) -> Any:
    """The plan inside ``text``: a dict with ``steps`` when it looks like a plan.

    A bare list becomes ``{"steps": list}``, a single step object ``{"steps": [step]}``,
    and ``{"plan": {...}}`` is unwrapped. Raises ``PlanFormatError`` when no JSON is found.
    """
    if not isinstance(text, str) or not text.strip():
        raise PlanFormatError(_FORMAT, 'the reply is empty; expected a JSON object like {"steps": [...]}')
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
    broken plan, say) must not pass for the whole plan."""
    pos = 0
    while pos < len(text):
        starts = [i for i in (text.find("{", pos), text.find("[", pos)) if i >= 0]
        if not starts:
            return
        start = min(starts)
        end, problem = _matching_close(text, start)
        if problem:
            yield _Broken(problem)
            pos = (end if end is not None else start) + 1
        else:
            assert end is not None
            yield text[start:end + 1]
            pos = end + 1


def _matching_close(text: str, start: int) -> tuple[int | None, str]:
    """(index of the bracket closing ``text[start]``, "") or (where it broke, why)."""
    stack: list[tuple[str, int]] = []
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in _OPENERS:
            stack.append((ch, i))
        elif ch in "}]":
            if not stack:
                return i, f"{ch!r} on line {_line(text, i)} closes nothing"
            opener, at = stack.pop()
            if _OPENERS[opener] != ch:
                return i, (f"{ch!r} on line {_line(text, i)} does not close the {opener!r} "
                           f"opened on line {_line(text, at)}")
            if not stack:
                return i, ""
    opener, at = stack[0] if stack else (text[start], start)
    return None, f"the {opener!r} opened on line {_line(text, at)} is never closed (the reply is cut off)"


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _loads_relaxed(chunk: str) -> Any:
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

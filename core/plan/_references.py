"""References between steps: ``${steps.<id>.path}`` inside a step's params.

A reference names its step by the step's id, as ``depends_on`` does, so adding, deleting
or moving steps never changes what a reference means and nothing renumbers anything
(``docs/decisions/0002-step-references-by-id.md``). An id of letters, digits, ``_`` and
``-`` is written bare (``${steps.s_1a2b3c4d.data}``); any other id is written as a JSON
string in brackets (``${steps["fetch sites"].data}``), so every id a plan can hold is
expressible. ``step_reference`` writes the right one.

A path is a chain of ``.field``, ``[i]`` and ``.*`` / ``[*]`` (map the rest of the path over
every item of a list), so ``${steps.s1.data.*.id}`` is "the ``id`` of every row step s1
returned". References are parsed, never evaluated.

The positional seed form ``${step[N].path}`` is not a reference inside core: formats and
prompts that speak it convert at their boundary (``core.plan._positions``); one left in a plan
(a position the plan does not have) is reported as what it is.

A param whose whole value is one reference takes the referenced value as it is (a list
stays a list); a reference inside longer text is interpolated as text.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Union

from .._errors import ReferenceResolutionError, ReferenceSyntaxError
from .._limits import (MAX_INDEX_DIGITS, MAX_NESTING, MAX_REFERENCE_PATH, MAX_REFERENCES_PER_TEXT,
                      MAX_RESOLVED_TEXT, shown)

__all__ = ["Reference", "MAP", "find_references", "parse_reference", "resolve_params",
           "step_reference", "referenced_step_ids", "renamed_steps",
           "BARE_ID", "QUOTED_ID", "ID_AT", "Segment", "id_of", "path_text", "walk_strings"]

# ``${steps.`` / ``${steps[`` opens every reference, and ``${step[`` the positional form,
# which is reported; the rest up to ``}`` is parsed by hand so errors can say exactly what
# is wrong. Indexes are ASCII digits only: ``str.isdigit`` and ``\d`` also take "²" or "٣",
# which ``int`` refuses or reads as another number.
_OPEN = re.compile(r"\$\{\s*step(s?)\s*([.\[])")
BARE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]*")
# A JSON string: escapes and any character but ``"`` and ``\``; possessive (``*+``), so a string
# left open is scanned once, never backtracked through.
QUOTED_ID = re.compile(r'"(?:[^"\\]|\\.)*+"')
ID_AT = re.compile(r"\$\{\s*steps\s*(?:\.(%s)|\[\s*(%s)\s*\])" % (BARE_ID.pattern, QUOTED_ID.pattern))
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_STEP_INDEX = re.compile(r"[0-9]+")
_PATH_INDEX = re.compile(r"-?[0-9]+")


class _Map:
    """Path segment meaning "for every item of this list"."""

    def __repr__(self) -> str:
        return "*"


MAP = _Map()
Segment = Union[str, int, _Map]


@dataclass(frozen=True)
class Reference:
    step: str  # the id of the step it reads
    path: tuple[Segment, ...]
    text: str  # the source text, ``${...}`` included

    def __str__(self) -> str:
        return self.text

    @property
    def path_text(self) -> str:
        out = []
        for seg in self.path:
            if seg is MAP:
                out.append(".*")
            elif isinstance(seg, int):
                out.append(f"[{seg}]")
            else:
                out.append(f".{seg}")
        return "".join(out)


def step_reference(step_id: str, path_text: str = "") -> str:
    """``${steps.<id><path>}``, the id bare where it can be and quoted where not."""
    name = f".{step_id}" if BARE_ID.fullmatch(step_id) else f"[{json.dumps(step_id, ensure_ascii=False)}]"
    return f"${{steps{name}{path_text}}}"


def parse_reference(text: str) -> Reference:
    """Parse one ``${steps.<id>.path}``; raise ``ReferenceSyntaxError`` saying what is wrong."""
    spans = list(_spans(text))
    if not _whole(text, spans):
        raise ReferenceSyntaxError(f"{shown(text)!r} is not a single ${{steps.<id>.path}} reference")
    return spans[0][2]


def _whole(text: str, spans: list[tuple[int, int, Reference]]) -> bool:
    """Whether ``text`` is one reference and nothing else (blanks around it aside)."""
    return len(spans) == 1 and not text[:spans[0][0]].strip() and not text[spans[0][1]:].strip()


def _index(text: str, pattern: re.Pattern[str], what: str, full: str) -> int:
    if not pattern.fullmatch(text):
        raise ReferenceSyntaxError(f"{shown(full)}: {what} {shown(text)!r} is not a whole number")
    if len(text.lstrip("-")) > MAX_INDEX_DIGITS:
        raise ReferenceSyntaxError(f"{shown(full)}: {what} has {len(text.lstrip('-'))} digits; "
                                   f"no plan or result is that long")
    return int(text)


def _closing(text: str, start: int, opened: int) -> int:
    end = text.find("}", start)
    if end < 0:
        raise ReferenceSyntaxError(f"reference at {shown(text[opened:])!r} has no closing '}}'")
    return end


def _step_id(text: str, m: re.Match[str]) -> tuple[str, int]:
    """The step id after ``${steps`` and where the path starts."""
    at = m.end()
    if m.group(2) == ".":
        name = BARE_ID.match(text, at)
        if name is None:
            end = _closing(text, at, m.start())
            raise ReferenceSyntaxError(f"{shown(text[m.start():end + 1])}: expected a step id after 'steps.'")
        return name.group(), name.end()
    while at < len(text) and text[at].isspace():
        at += 1
    quoted = QUOTED_ID.match(text, at)
    close = text.find("]", quoted.end()) if quoted else -1
    if quoted is None or close < 0 or text[quoted.end():close].strip():
        end = _closing(text, at, m.start())
        raise ReferenceSyntaxError(f"{shown(text[m.start():end + 1])}: expected a step id as a quoted "
                                   f"string in 'steps[...]'")
    try:
        step_id = json.loads(quoted.group())
    except ValueError:
        raise ReferenceSyntaxError(f"{shown(quoted.group())}: not a valid quoted step id") from None
    return step_id, close + 1


def _positional(text: str, m: re.Match[str]) -> ReferenceSyntaxError:
    """What is wrong with a ``${step[N]...}`` left in a plan: formats convert positions to ids
    as they read, so one found here names a position the plan does not have."""
    end = _closing(text, m.end(), m.start())
    full = text[m.start():end + 1]
    close = text.find("]", m.end(), end)
    if close < 0:
        return ReferenceSyntaxError(f"{shown(full)}: missing ']' after the step index")
    n = _index(text[m.end():close].strip(), _STEP_INDEX, "step index", full)
    return ReferenceSyntaxError(f"{shown(full)} names step {n} by position, and this plan has no step {n}; "
                                f"a reference names a step by id: ${{steps.<id>.path}}")


# A text's parse is kept (texts up to 500 characters, 16,384 of them, more than a plan holds;
# errors are raised anew): a run reads each reference when checking, scheduling and starting its
# step, which cost much. A cache smaller than the texts of a run would miss every one.
def _spans(text: str) -> tuple[tuple[int, int, Reference], ...]:
    """Each reference in ``text`` with where it starts and ends."""
    if "${" not in text:
        return ()
    return _kept_spans(text) if len(text) <= 500 else tuple(_find_spans(text))


@functools.lru_cache(maxsize=16_384)
def _kept_spans(text: str) -> tuple[tuple[int, int, Reference], ...]:
    return tuple(_find_spans(text))


def _find_spans(text: str) -> Iterator[tuple[int, int, Reference]]:
    pos = 0
    count = 0
    while (m := _OPEN.search(text, pos)) is not None:
        count += 1
        if count > MAX_REFERENCES_PER_TEXT:
            raise ReferenceSyntaxError(f"more than {MAX_REFERENCES_PER_TEXT} references in one text")
        if not m.group(1):
            if m.group(2) == "[":
                raise _positional(text, m)
            pos = m.end()  # ``${step.`` is no reference: text, as any other ``${...}``
            continue
        step_id, at = _step_id(text, m)
        end = _closing(text, at, m.start())
        full = text[m.start():end + 1]
        yield m.start(), end + 1, Reference(step_id, _parse_path(text[at:end], full), full)
        pos = end + 1


def _scan(text: str) -> Iterator[Reference]:
    for _start, _end, ref in _spans(text):
        yield ref


def _parse_path(rest: str, full: str) -> tuple[Segment, ...]:
    path: list[Segment] = []
    i = 0
    while i < len(rest):
        if len(path) > MAX_REFERENCE_PATH:
            raise ReferenceSyntaxError(f"{shown(full)}: a path may have at most {MAX_REFERENCE_PATH} parts")
        ch = rest[i]
        if ch == ".":
            if rest[i + 1:i + 2] == "*":
                path.append(MAP)
                i += 2
                continue
            m = _FIELD.match(rest, i + 1)
            if not m:
                raise ReferenceSyntaxError(f"{shown(full)}: expected a field name after '.' at {shown(rest[i:])!r}")
            path.append(m.group())
            i = m.end()
        elif ch == "[":
            close = rest.find("]", i)
            if close < 0:
                raise ReferenceSyntaxError(f"{shown(full)}: missing ']' in {shown(rest[i:])!r}")
            inner = rest[i + 1:close].strip()
            if inner == "*":
                path.append(MAP)
            elif len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
                path.append(inner[1:-1])
            elif _PATH_INDEX.fullmatch(inner):
                path.append(_index(inner, _PATH_INDEX, "index", full))
            else:
                raise ReferenceSyntaxError(f"{shown(full)}: {shown(inner)!r} is not an index, '*' or a quoted key")
            i = close + 1
        elif ch.isspace():
            i += 1
        else:
            raise ReferenceSyntaxError(f"{shown(full)}: unexpected {ch!r} in path")
    if len(path) > MAX_REFERENCE_PATH:
        raise ReferenceSyntaxError(f"{shown(full)}: a path may have at most {MAX_REFERENCE_PATH} parts")
    return tuple(path)


def walk_strings(value: Any, fn: Callable[[str], Any], depth: int = 0) -> Any:
    # A plan's params nest at most MAX_NESTING levels (``core._limits``); the margin covers
    # the params dict itself, and the bound keeps a plan edited in place from recursing away.
    if depth > MAX_NESTING + 1:
        raise ReferenceSyntaxError(f"lists and objects may be nested at most {MAX_NESTING} levels deep")
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [walk_strings(v, fn, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: walk_strings(v, fn, depth + 1) for k, v in value.items()}
    return value


def path_text(segments: tuple[Segment, ...]) -> str:
    """``("data", MAP, "id")`` → ``data.*.id``; ``("data", 0, "name")`` → ``data[0].name``."""
    out = ""
    for seg in segments:
        if seg is MAP:
            out += ".*" if out else "*"
        elif isinstance(seg, int):
            out += f"[{seg}]"
        else:
            out += f".{seg}" if out else str(seg)
    return out


def find_references(value: Any) -> list[Reference]:
    """Every reference anywhere inside ``value`` (strings inside dicts and lists)."""
    if isinstance(value, str):  # most params: one text, or no text at all
        return [span[2] for span in _spans(value)]
    if not isinstance(value, (list, dict)):
        return []
    found: list[Reference] = []
    walk_strings(value, lambda s: found.extend(_scan(s)))
    return found


def _follow(value: Any, path: tuple[Segment, ...], ref: Reference) -> Any:
    for n, seg in enumerate(path):
        if seg is MAP:
            if not isinstance(value, list):
                raise ReferenceResolutionError(
                    f"{shown(ref.text)}: '*' needs a list at {shown(ref.path_text) or 'the result'}, got {type(value).__name__}")
            return [_follow(item, path[n + 1:], ref) for item in value]
        if isinstance(seg, int):
            if not isinstance(value, list) or not -len(value) <= seg < len(value):
                raise ReferenceResolutionError(f"{shown(ref.text)}: index [{seg}] is out of range")
            value = value[seg]
        else:
            if not isinstance(value, dict) or seg not in value:
                raise ReferenceResolutionError(f"{shown(ref.text)}: the result has no field {shown(repr(seg))}")
            value = value[seg]
    return value


def resolve_params(params: Any, results: Mapping[str, Any]) -> Any:
    """Replace references in ``params`` with values from earlier steps' ``results``, by step id."""

    def one(ref: Reference) -> Any:
        if ref.step not in results:
            raise ReferenceResolutionError(f"{shown(ref.text)}: step {shown(ref.step)!r} has no result")
        return _follow(results[ref.step], ref.path, ref)

    def sub(text: str) -> Any:
        spans = list(_spans(text))
        if not spans:
            return text
        if _whole(text, spans):
            return one(spans[0][2])
        # One pass, each distinct reference resolved and written once: replacing reference
        # after reference in ever longer text made many references cost their square.
        parts: list[str] = []
        size = 0
        written: dict[str, str] = {}
        pos = 0
        for start, end, ref in spans:
            if ref.text not in written:
                value = one(ref)
                written[ref.text] = value if isinstance(value, str) else json.dumps(value, default=str)
            for piece in (text[pos:start], written[ref.text]):
                size += len(piece)
                parts.append(piece)
            if size > MAX_RESOLVED_TEXT:
                raise ReferenceResolutionError(
                    f"{shown(ref.text)}: the text with its references filled in would be longer "
                    f"than {MAX_RESOLVED_TEXT:,} characters")
            pos = end
        parts.append(text[pos:])
        if size + len(text) - pos > MAX_RESOLVED_TEXT:
            raise ReferenceResolutionError(
                f"the text with its references filled in would be longer than {MAX_RESOLVED_TEXT:,} characters")
        return "".join(parts)

    return walk_strings(params, sub)


def referenced_step_ids(params: Any) -> set[str]:
    """The step id of every reference in ``params``, malformed references included
    (``${steps.s2.data.`` still names s2), so an edit never loses track of one."""
    found: set[str] = set()
    walk_strings(params, lambda text: found.update(id_of(m) for m in ID_AT.finditer(text)))
    return found


def id_of(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return m.group(1)
    try:
        return json.loads(m.group(2))
    except ValueError:
        return m.group(2)


def renamed_steps(params: Any, names: Mapping[str, str]) -> Any:
    """``params`` with each reference to a step in ``names`` naming ``names[id]`` instead:
    how a diff compares a step matched under a new id. Ids not in ``names`` stay."""

    def rename(m: re.Match[str]) -> str:
        step_id = id_of(m)
        if step_id not in names:
            return m.group()
        return step_reference(names[step_id])[:-1]  # without the closing brace

    return walk_strings(params, lambda text: ID_AT.sub(rename, text))

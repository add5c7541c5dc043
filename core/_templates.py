"""References between steps: ``${step[N].path}`` inside a step's params.

A path is a chain of ``.field``, ``[i]`` and ``.*`` / ``[*]`` (map the rest of the path over
every item of a list), so ``${step[0].data.*.id}`` is "the ``id`` of every row step 0
returned". References are parsed, never evaluated.

A param whose whole value is one reference takes the referenced value as it is (a list
stays a list); a reference inside longer text is interpolated as text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Union

from ._errors import ReferenceResolutionError, ReferenceSyntaxError
from ._limits import (MAX_INDEX_DIGITS, MAX_NESTING, MAX_REFERENCE_PATH, MAX_REFERENCES_PER_TEXT,
                      MAX_RESOLVED_TEXT, shown)

__all__ = ["Reference", "MAP", "find_references", "parse_reference", "resolve_params",
           "check_path", "schema_at_path", "rewrite_step_indexes", "referenced_step_indexes"]

# ``${step[N]`` opens every reference; the body up to ``}`` is parsed by hand so errors
# can say exactly what is wrong. Indexes are ASCII digits only: ``str.isdigit`` and ``\d``
# also take "²" or "٣", which ``int`` refuses or reads as another number.
_OPEN = re.compile(r"\$\{\s*step\s*\[")
_INDEX = re.compile(r"(\$\{\s*step\s*\[\s*)([0-9]{1,%d})(\s*\])" % MAX_INDEX_DIGITS)
_FULL = re.compile(r"^\s*\$\{[^{}]*\}\s*$")
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
    step: int
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


def parse_reference(text: str) -> Reference:
    """Parse one ``${step[N].path}``; raise ``ReferenceSyntaxError`` saying what is wrong."""
    refs = list(_scan(text))
    if len(refs) != 1 or not _FULL.match(text):
        raise ReferenceSyntaxError(f"{shown(text)!r} is not a single ${{step[N].path}} reference")
    return refs[0]


def _index(text: str, pattern: re.Pattern[str], what: str, full: str) -> int:
    if not pattern.fullmatch(text):
        raise ReferenceSyntaxError(f"{shown(full)}: {what} {shown(text)!r} is not a whole number")
    if len(text.lstrip("-")) > MAX_INDEX_DIGITS:
        raise ReferenceSyntaxError(f"{shown(full)}: {what} has {len(text.lstrip('-'))} digits; "
                                   f"no plan or result is that long")
    return int(text)


def _spans(text: str) -> Iterator[tuple[int, int, Reference]]:
    """Each reference in ``text`` with where it starts and ends."""
    pos = 0
    count = 0
    while (m := _OPEN.search(text, pos)) is not None:
        count += 1
        if count > MAX_REFERENCES_PER_TEXT:
            raise ReferenceSyntaxError(f"more than {MAX_REFERENCES_PER_TEXT} references in one text")
        end = text.find("}", m.end())
        if end < 0:
            raise ReferenceSyntaxError(f"reference at {shown(text[m.start():])!r} has no closing '}}'")
        body = text[m.end():end]
        full = text[m.start():end + 1]
        close = body.find("]")
        if close < 0:
            raise ReferenceSyntaxError(f"{shown(full)}: missing ']' after the step index")
        step = _index(body[:close].strip(), _STEP_INDEX, "step index", full)
        yield m.start(), end + 1, Reference(step, _parse_path(body[close + 1:], full), full)
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


def _walk_strings(value: Any, fn: Callable[[str], Any], depth: int = 0) -> Any:
    # A plan's params nest at most MAX_NESTING levels (``core._limits``); the margin covers
    # the params dict itself, and the bound keeps a plan edited in place from recursing away.
    if depth > MAX_NESTING + 1:
        raise ReferenceSyntaxError(f"lists and objects may be nested at most {MAX_NESTING} levels deep")
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_walk_strings(v, fn, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _walk_strings(v, fn, depth + 1) for k, v in value.items()}
    return value


def find_references(value: Any) -> list[Reference]:
    """Every reference anywhere inside ``value`` (strings inside dicts and lists)."""
    found: list[Reference] = []
    _walk_strings(value, lambda s: found.extend(_scan(s)))
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


def resolve_params(params: Any, results: Mapping[int, Any]) -> Any:
    """Replace references in ``params`` with values from earlier steps' ``results``."""

    def one(ref: Reference) -> Any:
        if ref.step not in results:
            raise ReferenceResolutionError(f"{shown(ref.text)}: step {ref.step} has no result")
        return _follow(results[ref.step], ref.path, ref)

    def sub(text: str) -> Any:
        spans = list(_spans(text))
        if not spans:
            return text
        if len(spans) == 1 and _FULL.match(text):
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

    return _walk_strings(params, sub)


def _schema_options(schema: dict, defs: dict) -> list[dict]:
    """Flatten ``$ref``, ``anyOf`` and ``oneOf`` into the concrete schemas a value may have."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _schema_options(defs.get(name, {}), defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [o for sub in schema[key] for o in _schema_options(sub, defs)]
    return [schema]


def check_path(schema: dict | None, path: tuple[Segment, ...]) -> str | None:
    """Say why ``path`` cannot exist in a value of JSON ``schema``; ``None`` when it can.

    An empty or unknown schema (``{}``) accepts any path: only a schema that rules the path
    out is reported.
    """
    if not schema:
        return None
    defs = schema.get("$defs", {})
    current = [schema]
    walked = ""
    for seg in path:
        nxt: list[dict] = []
        options = [o for s in current for o in _schema_options(s, defs)]
        if any(not o or o.get("type") is None and "properties" not in o and "items" not in o
               for o in options):
            return None  # an untyped branch could hold anything
        if seg is MAP or isinstance(seg, int):
            nxt = [o.get("items", {}) for o in options if o.get("type") == "array"]
            shown = "*" if seg is MAP else f"[{seg}]"
            if not nxt:
                return f"{walked or 'the result'} is not a list, so {shown} cannot apply"
            walked += ".*" if seg is MAP else f"[{seg}]"
        else:
            for o in options:
                props = o.get("properties")
                if props is not None and seg in props:
                    nxt.append(props[seg])
                elif o.get("type") == "object" and props is None:
                    nxt.append({})
                elif props is not None and o.get("additionalProperties"):
                    extra = o["additionalProperties"]
                    nxt.append(extra if isinstance(extra, dict) else {})
            if not nxt:
                fields = sorted({k for o in options for k in (o.get("properties") or {})})
                where = walked or "the result"
                have = f" (it has: {', '.join(fields)})" if fields else ""
                return f"{where} has no field {seg!r}{have}"
            walked += f".{seg}"
        if any(not n for n in nxt):
            return None
        current = nxt
    return None


def _untyped(option: dict) -> bool:
    return not option or (option.get("type") is None and "properties" not in option
                          and "items" not in option)


def schema_at_path(schema: dict | None, path: tuple[Segment, ...]) -> dict:
    """The JSON schema of what ``path`` yields from a value of ``schema``; ``{}`` (any
    value) where that is not known: no schema, an untyped branch, or a path that
    ``check_path`` rules out. A ``*`` yields a list: the rest of the path, per item, is
    its item schema. ``$ref``s are kept and ``$defs`` carried along at the top."""
    if not schema:
        return {}
    defs = schema.get("$defs", {})
    found = _schema_at(schema, path, defs)
    return {**found, "$defs": defs} if found and defs else found


def _schema_at(schema: dict, path: tuple[Segment, ...], defs: dict) -> dict:
    if not path:
        return {k: v for k, v in schema.items() if k != "$defs"}
    options = _schema_options(schema, defs)
    if any(_untyped(o) for o in options):
        return {}
    seg, rest = path[0], path[1:]
    found: list[dict] = []
    for option in options:
        if seg is MAP or isinstance(seg, int):
            if option.get("type") != "array":
                continue
            sub = _schema_at(option.get("items") or {}, rest, defs)
            if seg is MAP:
                sub = {"type": "array", "items": sub} if sub else {"type": "array"}
        else:
            props = option.get("properties")
            if props is not None and seg in props:
                sub = _schema_at(props[seg], rest, defs)
            elif option.get("type") == "object" and (props is None or option.get("additionalProperties")):
                extra = option.get("additionalProperties")
                sub = _schema_at(extra, rest, defs) if isinstance(extra, dict) and extra else {}
            else:
                continue
        if not sub:
            return {}  # one branch could hold anything, so the whole could
        if sub not in found:
            found.append(sub)
    if not found:
        return {}
    return found[0] if len(found) == 1 else {"anyOf": found}


def rewrite_step_indexes(params: Any, mapping: Mapping[int, int]) -> Any:
    """Renumber references after steps move: ``mapping`` maps old index to new index."""

    def renumber(m: re.Match[str]) -> str:
        old = int(m.group(2))
        return f"{m.group(1)}{mapping.get(old, old)}{m.group(3)}"

    # One pass over the text, so a reference renumbered to N is never renumbered again.
    return _walk_strings(params, lambda text: _INDEX.sub(renumber, text))


def referenced_step_indexes(params: Any) -> set[int]:
    """The step index of every reference in ``params``, malformed references included
    (``${step[2].data.`` still names step 2), so an edit never loses track of one."""
    found: set[int] = set()
    _walk_strings(params, lambda text: found.update(int(m.group(2)) for m in _INDEX.finditer(text)))
    return found

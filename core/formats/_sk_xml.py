"""The XML of a Semantic Kernel plan: finding ``<plan>`` in a model's reply, reading its
functions, attributes and comments with their line numbers, and what XML can hold when
writing (names, characters, comments)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

from .._errors import PlanFormatError

__all__ = ["FORMAT", "FUNCTION_PREFIX", "XML_NAME", "SkFunction", "SkDocument", "format_error", "read_xml",
           "locate_plan", "checked", "comment_text", "note_text"]

FORMAT = "sk"
FUNCTION_PREFIX = "function."
XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_NOT_XML_CHAR = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# Possessive quantifiers (nothing given back) keep these linear: with ".*?" a run of comments
# before stray text was retried in every way of grouping them (2^n), and "\s*" beside "\s*"
# made a long run of spaces quadratic. A comment's body takes a "-" only when "->" does not
# follow, so it always stops at the first "-->".
_COMMENT = r"<!--(?:[^-]|-(?!->))*+-->"
_PROLOG = re.compile(r"\s*+(?:<\?xml[^>]*+(?<=\?)>)?+\s*+(?:" + _COMMENT
                     + r"\s*+|<!DOCTYPE[^\[>]*+(?:\[[^\]]*+\])?+\s*+>\s*+)*+")
_TRAILER = re.compile(r"\s*+(?:" + _COMMENT + r"\s*+)*+")
_PLAN_START = re.compile(r"<plan(?=[\s/>])")
_PLAN_END = "</plan>"


# -- comments ----------------------------------------------------------------------------
# XML comments may not contain "--" nor end in "-". A zero-width space after such a hyphen
# keeps the comment valid and is removed again on import, so notes survive unchanged.
_ZWSP = "\u200b"


def comment_text(note: str) -> str:
    return re.sub(r"-(?=-|$)", "-" + _ZWSP, note)


def note_text(comment: str) -> str:
    return re.sub("-" + _ZWSP + r"(?=-|$)", "-", comment.strip())


# -- reading -----------------------------------------------------------------------------
@dataclass
class SkFunction:
    line: int
    parts: list[str]  # "function.WriterPlugin.ShortPoem" -> ["WriterPlugin", "ShortPoem"]
    attributes: list[tuple[str, str]]
    comments: list[str] = field(default_factory=list)


@dataclass
class SkDocument:
    root_line: int = 0
    root_attributes: list[tuple[str, str]] = field(default_factory=list)
    functions: list[SkFunction] = field(default_factory=list)
    loose_comments: list[str] = field(default_factory=list)


def format_error(line: int, message: str) -> PlanFormatError:
    return PlanFormatError(FORMAT, f"line {line}: {message}")


def read_xml(text: str, line_offset: int) -> SkDocument:
    doc = SkDocument()
    parser = expat.ParserCreate(encoding="utf-8")
    parser.ordered_attributes = True
    stack: list[str] = []
    pending: list[str] = []
    current: list[SkFunction] = []

    def line() -> int:
        return parser.CurrentLineNumber + line_offset

    def pairs(flat: list[str]) -> list[tuple[str, str]]:
        return list(zip(flat[0::2], flat[1::2]))

    # SK reads only the functions directly inside <plan> and skips anything else; what it
    # skipped (the element, its attributes and its text) is kept as a note for the reviewer.
    skipped: list[str] = []  # the element being skipped and the ones open inside it
    skipped_heading: list[str] = []
    skipped_text: list[str] = []

    def skip(name: str, attributes: list[str]) -> None:
        if not skipped:
            shown = " ".join([name, *(f'{k}="{v}"' for k, v in pairs(attributes))])
            skipped_heading[:] = [f"Skipped <{shown}>"]
        skipped.append(name)

    def skipped_note() -> str:
        text = " ".join(" ".join(skipped_text).split())
        skipped_text.clear()
        return skipped_heading[0] + (f": {text}" if text else "")

    def start(name: str, attributes: list[str]) -> None:
        if skipped:
            skipped.append(name)
            return
        if not stack:
            if name != "plan":
                raise format_error(line(), f"the root element must be <plan>, got <{name}>")
            doc.root_line, doc.root_attributes = line(), pairs(attributes)
        elif len(stack) == 1:
            parts = _function_parts(name)
            if parts is None:
                skip(name, attributes)
                return
            if not all(parts):
                raise format_error(line(), f"<{name}> should be named <function.Plugin.Name>")
            fn = SkFunction(line(), parts, pairs(attributes), comments=pending[:])
            pending.clear()
            doc.functions.append(fn)
            current[:] = [fn]
        else:
            skip(name, attributes)
            return
        stack.append(name)

    def end(name: str) -> None:
        if skipped:
            skipped.pop()
            if not skipped:  # inside a function: its note; else the next function's
                (current[0].comments if current else pending).append(skipped_note())
            return
        stack.pop()
        if len(stack) == 1:
            current.clear()
        elif not stack:
            doc.loose_comments.extend(pending)
            pending.clear()

    def characters(data: str) -> None:
        if skipped:
            skipped_text.append(data)

    def comment(data: str) -> None:
        note = note_text(data)
        if not note or skipped:
            return
        if len(stack) == 1:
            pending.append(note)
        elif len(stack) >= 2 and current:
            current[0].comments.append(note)
        else:
            doc.loose_comments.append(note)

    def no_doctype(*_: Any) -> None:
        raise format_error(line(), "a DOCTYPE is not allowed in a plan")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CommentHandler = comment
    parser.CharacterDataHandler = characters
    parser.StartDoctypeDeclHandler = no_doctype
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError as exc:
        raise format_error(exc.lineno + line_offset,
                           f"not well-formed XML (column {exc.offset + 1}): {expat.ErrorString(exc.code)}") from None
    if not stack and doc.root_line == 0:
        raise PlanFormatError(FORMAT, "no <plan> element found")
    return doc


def _function_parts(name: str) -> list[str] | None:
    """``function.Plugin.Name`` (.NET) or ``function.Plugin-Name`` (Python) as its parts;
    None for an element that is not a function, which SK skips."""
    if not name.startswith(FUNCTION_PREFIX):
        return None
    parts = name[len(FUNCTION_PREFIX):].split(".")
    if len(parts) == 1 and "-" in parts[0].strip("-"):
        parts = parts[0].split("-", 1)
    return parts


def locate_plan(text: str) -> tuple[str, int]:
    """The part of ``text`` to parse and its line offset.

    Models often wrap the plan in prose or a code fence; then only ``<plan>...</plan>`` is
    read. A plain XML document (declaration and comments around the plan) is read whole.
    """
    found = _PLAN_START.search(text)
    if found is None:
        return text, 0
    start = 0 if _PROLOG.fullmatch(text[:found.start()]) else found.start()
    close = text.rfind(_PLAN_END)
    end = len(text)
    if close >= found.start() and not _TRAILER.fullmatch(text[close + len(_PLAN_END):]):
        end = close + len(_PLAN_END)
    part = text[start:end]
    if close < found.start() and not re.match(r"<plan[^>]*/\s*>", text[found.start():]):
        part += _PLAN_END  # SK closes a plan a model left open
    return part, text.count("\n", 0, start)


# -- writing -----------------------------------------------------------------------------
def checked(text: str, where: str) -> str:
    """``text`` if XML can hold every character of it; else an error naming ``where``."""
    bad = _NOT_XML_CHAR.search(text)
    if bad:
        raise PlanFormatError(FORMAT, f"{where}: character {bad.group()!r} cannot be written in XML")
    return text

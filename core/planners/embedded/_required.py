"""Required parameters filled from the goal's own words, or named when the goal does not say them.

A tool that cannot run without a value (``weather_lookup(city)``, ``read_file(path)``) is planned
when its noun is in the goal and the goal gives the value, said in one of these ways, looked for
in the words after the noun up to the next tool's noun or the end of the sentence:

- after the parameter's name: "city Paris", "city: Paris", "path = 'notes.txt'", "with limit 5";
- right after the tool's noun, a preposition allowed between: "weather in Paris", "stock price
  of ACME", "exchange rate from USD to EUR" (one value after another for several parameters);
- a quoted string ("'my notes.txt'"), or a number for a numeric parameter.

A value must fit the parameter: a whole number for an integer, one of the allowed values for an
enum; a boolean, array or object parameter is never guessed. Nothing here knows a tool or a
goal: only the tool's schema and the words of the goal. What stays unfilled is said in the plan's
metadata (``MISSING_KEY``: "weather_lookup needs city: ..."), and the step keeps its other
parameters, so the reviewer fills it in and the validator names it until then.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ._mentions import MASK, Mention, Parsed
from ._vocabulary import ToolInfo, Vocabulary

__all__ = ["MISSING_KEY", "Filled", "fill_required", "missing_notice"]

MISSING_KEY = "missing_params"

# Between a tool's noun and its value: "weather in Paris", "price of ACME", "file called x".
_LEADS = r"(?:(?i:in|for|of|on|at|about|from|to|with|by|named|called|titled|like|near|into)\s+)?"
_QUOTED = r"[\"'\u201c\u2018](?P<quoted>[^\"'\u201d\u2019\x00]{1,200})[\"'\u201d\u2019]"
_NUMBER = r"(?P<number>-?\d+(?:\.\d+)?)(?![\w.])"
# A bare value: one token ("paris", "notes.txt", "ACME"), or capitalised words together ("New York").
_WORDS = r"(?P<words>[A-Z][\w'.@/+-]*(?:\s+[A-Z][\w'.@/+-]*){0,3}|[\w][\w'.@/+-]*)"
_VALUE = rf"(?P<value>{_QUOTED}|{_NUMBER}(?!\s*[A-Za-z])|{_WORDS})"
# Words that are never a value on their own.
_NOT_VALUES = {"the", "a", "an", "and", "or", "then", "me", "my", "please", "now", "it", "this", "that", "all",
               "any", "some", "with", "for", "of", "in", "on", "at", "to", "from", "by", "is", "are", "be", "as",
               "about", "named", "called", "titled", "like", "near", "into"}
_QUOTES = re.compile(_QUOTED)
_SENTENCE_END = re.compile(r"[;!?]|\.(?:\s|$)|\s(?:and|then)\s", re.IGNORECASE)


@dataclass(frozen=True)
class Filled:
    """What the goal gave a step's required parameters, and the characters that said it."""

    params: dict[str, Any]
    spans: list[tuple[int, int]]
    missing: list[str]


def _kind(info: ToolInfo, param: str) -> str | None:
    """How a value of ``param`` is read: "string", "integer", "number", "enum"; None: never guessed."""
    if param in info.enums and param not in info.enum_lists:
        return "enum"
    types = info.param_types.get(param, set())
    if "string" in types:
        return "string"
    if "integer" in types:
        return "integer"
    if "number" in types:
        return "number"
    return None


def _value(info: ToolInfo, param: str, match: re.Match[str]) -> Any:
    """The matched text as a value ``param`` takes, or None when it does not fit."""
    kind = _kind(info, param)
    said = match.groupdict()
    text = said.get("quoted") or said.get("number") or said.get("words")
    if text is None:
        return None
    text = text.strip().rstrip(".:")
    if not text or (said.get("quoted") is None and text.lower() in _NOT_VALUES):
        return None
    if kind == "integer":
        return int(text) if re.fullmatch(r"-?\d+", text) else None
    if kind == "number":
        return float(text) if "." in text else int(text) if re.fullmatch(r"-?\d+(?:\.\d+)?", text) else None
    if kind == "enum":
        allowed = {str(v).lower(): v for v in info.enums[param]}
        return allowed.get(text.lower())
    return text if kind == "string" else None


def _region_end(parsed: Parsed, mention: Mention) -> int:
    """Where the words about ``mention``'s tool end: the next tool's noun, or the end of the sentence."""
    later = [m.start for m in parsed.entities if m.start >= mention.end]
    end = min(later) if later else len(parsed.text)
    # What is quoted is a value, whatever it says ("'war and peace'").
    unquoted = _QUOTES.sub(lambda m: "q" * len(m.group()), parsed.masked)
    stop = _SENTENCE_END.search(unquoted, mention.end, end)
    return stop.start() if stop else end


def _free(masked: str, start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return MASK not in masked[start:end] and all(end <= s or start >= e for s, e in taken)


def fill_required(parsed: Parsed, vocab: Vocabulary, tool: str, mention: Mention | None,
                  given: set[str]) -> Filled:
    """The values the goal gives ``tool``'s required parameters not in ``given``, read around
    ``mention`` (its noun in the goal)."""
    info = vocab.tools[tool]
    wanted = [p for p in info.required if p not in given]
    if not wanted or mention is None:
        return Filled({}, [], wanted)
    masked, end = parsed.masked, _region_end(parsed, mention)
    params: dict[str, Any] = {}
    taken: list[tuple[int, int]] = []

    def take(param: str, pattern: re.Pattern[str], at: int, *, anchored: bool, text: str = masked) -> int | None:
        for match in ([pattern.match(text, at, end)] if anchored else pattern.finditer(text, at, end)):
            if match is None or not _free(masked, *match.span("value"), taken):
                continue
            value = _value(info, param, match)
            if value is not None:
                params[param] = value
                taken.append(match.span())
                return match.end()
        return None

    # First the parameters named in the goal ("city Paris"): their values are theirs alone. The
    # name may have been read already as the parameter's noun; its value must not have been.
    for param in wanted:
        name = r"[\s_-]+".join(map(re.escape, param.split("_")))
        take(param, re.compile(rf"(?<![\w-])(?i:{name})(?:\s*[:=]\s*|\s+(?:(?i:is|of|as)\s+)?){_VALUE}"),
             mention.end, anchored=False, text=parsed.text)
    # Then, in order, the values right after the noun: "exchange rate from USD to EUR".
    at = mention.end
    for param in (p for p in wanted if p not in params):
        after = re.compile(rf"\s*[:=]?\s*{_LEADS}{_VALUE}")
        reached = take(param, after, at, anchored=True)
        if reached is None:
            break
        at = reached
    # Then a quoted string, or a number for a numeric parameter, anywhere after the noun.
    for param in (p for p in wanted if p not in params):
        kind = _kind(info, param)
        pattern = _QUOTED if kind in ("string", "enum") else _NUMBER if kind in ("integer", "number") else None
        if pattern is not None:
            take(param, re.compile(f"(?P<value>{pattern})"), mention.end, anchored=False)
    if params:  # the tool's own verb just before its noun ("read file x", "search books y") was used too
        verbs = [w for w in info.name.lower().split("_") if w not in info.entity_singular.split()]
        said = re.search(rf"(?<![\w-])(?i:{'|'.join(map(re.escape, verbs))})\s+(?:(?i:the|a|an)\s+)?$",
                         parsed.text[:mention.start]) if verbs else None
        if said and _free(masked, said.start(), said.end(), taken):
            taken.append(said.span())
    return Filled(params, taken, [p for p in wanted if p not in params])


def missing_notice(tool: str, param: str, noun: str) -> str:
    """What the plan says of a required parameter the goal did not give."""
    return (f"{tool} needs {param}, which the goal does not say: the step is planned without it. Fill it in, "
            f"or say it after the tool's noun (\"{noun} X\"), after the parameter's name (\"{param} X\") or in quotes.")

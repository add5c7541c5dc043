"""Goals that ask to change the world ("delete ...", "cancel ...", "send ...").

The embedded planner plans tools that read. Planned as a listing, "Delete the <rows>" would
become a plan that lists them: the reviewer approves something other than what was asked.
So a goal whose clause opens with a verb of ``WRITE_VERBS`` (after "please", "could you",
"I want to", ...; "then send them" counts, "<entity> updates" and "cancelled" do not) is
refused, naming the verb and what it acts on (the entity after it, or the one before a
"them"). When a tool of the registry is named with a verb of that kind and the entity
("<entity>_cancel"), the refusal names it, since a person (or the LLM planner) can plan it.
"""

from __future__ import annotations

import re

from ..._errors import PlannerError
from ...tooling._registry import ToolRegistry
from . import _phrases as phrases
from ._parse import Parsed
from ._vocabulary import Vocabulary, plural, singular

__all__ = ["WriteRequest", "write_request", "refuse_write"]

_TOKEN = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)?|[.!?;:,]|\S+")
_CLAUSE_BREAKS = frozenset({".", "!", "?", ";", ":", ",", "and", "then"})
_ARTICLES = frozenset({"the", "a", "an", "all", "every", "each", "any", "some", "my", "our", "new"})
_POINTERS = frozenset({"them", "it", "they", "those", "these", "this", "that", "ones", "one"})
_PLAN_NOUNS = frozenset({"step", "steps", "filter", "filters", "plan", "limit"})
_NAME_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")  # snake_case, camelCase, kebab-case
# What a "create" makes that is only a way to show rows: "create a list of <entity>".
_VIEWS = frozenset({"list", "report", "overview", "summary", "table", "view", "breakdown"})
_SAID_WORDS = 6  # words after a verb quoted when they name no entity
_KINDS = {verb: kind for kind, verbs in phrases.WRITE_VERBS.items() for verb in verbs}


class WriteRequest:
    """A verb of a goal that asks to change something, and what it acts on."""

    def __init__(self, verb: str, kind: str, entity: str, tool_entity: str | None) -> None:
        self.verb, self.kind, self.entity, self.tool_entity = verb, kind, entity, tool_entity


def write_request(parsed: Parsed, vocab: Vocabulary) -> WriteRequest | None:
    """The first clause of ``parsed`` that opens with a write verb, if any."""
    text = parsed.text
    tokens = [(m.start(), m.end(), m.group().lower().replace("\u2019", "'")) for m in _TOKEN.finditer(text)]
    opening = True
    for k, (start, end, word) in enumerate(tokens):
        if word in _CLAUSE_BREAKS:
            opening = True
            continue
        if not opening:
            continue
        if word in _KINDS:
            following = tokens[k + 1][2] if k + 1 < len(tokens) else ""
            only_before = phrases.WRITE_ONLY_BEFORE.get(word)
            shown = _KINDS[word] == "create" and _object(tokens, k) in _VIEWS and parsed.entities
            if (following not in phrases.NOUN_AFTER and not _about_the_plan(tokens, k)
                    and (only_before is None or following in only_before) and not shown):
                return _request(parsed, vocab, word, tokens, k)
        opening = word in phrases.REQUEST_OPENERS
    return None


def _object(tokens: list[tuple[int, int, str]], k: int) -> str:
    """The first word after the verb at ``k`` that is no article."""
    return next((w for _s, _e, w in tokens[k + 1:] if w not in _ARTICLES), "")


def _about_the_plan(tokens: list[tuple[int, int, str]], k: int) -> bool:
    """ "delete the <entity> step", "change the date filter": the clause edits the plan."""
    for _start, _end, word in tokens[k + 1:k + 1 + _SAID_WORDS]:
        if word in _CLAUSE_BREAKS:
            return False
        if word in _PLAN_NOUNS:
            return True
    return False


def _request(parsed: Parsed, vocab: Vocabulary, verb: str, tokens: list[tuple[int, int, str]],
             k: int) -> WriteRequest:
    end = tokens[k][1]
    after = _object(tokens, k)
    entities = parsed.entities
    clause_end = next((s for s, _e, w in tokens[k + 1:] if w in _CLAUSE_BREAKS - {"and"}), len(parsed.text))
    pointing = after in _POINTERS or any(w in _POINTERS for s, _e, w in tokens[k + 1:] if s < clause_end)
    target = None if after in _POINTERS else next((m for m in entities if end <= m.start < clause_end), None)
    if target is None and pointing:
        # "delete them", "cancel the pending ones": the rows named before.
        before = [m for m in entities if m.end <= tokens[k][0]]
        target = before[-1] if before else None
    if target is not None and target.tool in vocab.tools:
        entity = vocab.tools[target.tool].entity
        return WriteRequest(verb, _KINDS[verb], entity, entity)
    # No entity named: the words after the verb say what ("email the report to <name>").
    said = []
    for start, stop, word in tokens[k + 1:k + 1 + _SAID_WORDS]:
        if word in _CLAUSE_BREAKS:
            break
        said.append(parsed.text[start:stop])
    return WriteRequest(verb, _KINDS[verb], " ".join(said) or "anything", None)


def refuse_write(request: WriteRequest, registry: ToolRegistry) -> PlannerError:
    """Why the goal is not planned: no tool can make the change, or only a person can plan it."""
    writer = _writer(request, registry)
    said = f"{request.verb} {request.entity}"
    if writer is not None:
        return PlannerError(
            f"the goal asks to {said}, and the embedded planner plans only tools that read: the plan would "
            f"only list rows. The tool {writer} may do it: add it to a plan by hand (start an empty plan, "
            "or edit the Plan JSON), or use the LLM planner.")
    if request.tool_entity is None:
        return PlannerError(
            f"Plan Studio has no tool that can {said}; the embedded planner would only list rows, so the "
            f"goal is not planned. To review the rows first, ask for them without '{request.verb}'.")
    return PlannerError(
        f"Plan Studio has no tool that can {said}; the plan would only list them, so the goal is not "
        f"planned. To review them first, ask for them without '{request.verb}' (e.g. 'list the "
        f"{request.entity}').")


def _writer(request: WriteRequest, registry: ToolRegistry) -> str | None:
    """A tool named with a verb of the request's kind and what it acts on ("order_cancel",
    "deleteList"): its entity, or else a word said after the verb."""
    said = [request.tool_entity] if request.tool_entity else request.entity.lower().split()
    nouns = {form for word in said for form in (word, singular(word), plural(word))}
    named = [(tool.name, {w.lower() for w in _NAME_PARTS.findall(tool.name)}) for tool in registry]
    # The verb said first ("add" finds addItem), then one of its kind ("remove" finds deleteList).
    for verbs in ({request.verb}, set(phrases.WRITE_VERBS[request.kind])):
        for name, words in named:
            if verbs & words and nouns & words:
                return name
    return None

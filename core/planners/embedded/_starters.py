"""Example goals for an empty Plan page, made from the loaded tools' own words.

A first-time user does not know what to type. The examples are written from what the tools
say about themselves: the verb of a tool's description ("List …", "Find …"), the noun its name
gives (``sites_list`` lists sites), a value its schema or its group's words offer for a
parameter (a place, an enum value), a date range it takes, and the tool it links to through an
``<entity>_id`` parameter. Each candidate is planned by the embedded planner before it is
offered, so an example never leads to "I could not read that goal"; a registry whose tools the
embedded planner cannot plan with (no reading tools) gets each tool's own first sentence.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from ..._errors import PlanStudioError
from ...tooling._registry import ToolRegistry
from ._planner import EmbeddedPlanner
from ._vocabulary import ToolInfo, Vocabulary

__all__ = ["ExampleGoal", "example_goals", "first_sentence"]

# The verbs a goal may start with; a description starting with another word gets "List".
_GOAL_VERBS = {"list", "get", "find", "show", "search", "fetch", "read", "look"}
# Enum parameters whose value reads as an adjective of the rows ("big sites", "open tickets").
_SORTING_PARAMS = {"type", "kind", "category", "status", "state", "result", "genre", "topic", "format"}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n\s*\n")


@dataclass(frozen=True)
class ExampleGoal:
    """One example: the goal to type, and the tools' own words it was made from."""

    goal: str
    tools: tuple[str, ...]  # the tools the goal plans with, in the order they run
    about: str  # the first sentence of the description of the tool whose rows it lists


def first_sentence(text: str, limit: int = 160) -> str:
    """The first sentence of ``text`` (a tool's description), on one line, at most ``limit`` characters."""
    head = _SENTENCE_END.split(text.strip(), maxsplit=1)[0] if text.strip() else ""
    head = " ".join(head.split())
    return head if len(head) <= limit else head[:limit - 1].rstrip() + "…"


def example_goals(registry: ToolRegistry, *, today: dt.date, limit: int = 3) -> list[ExampleGoal]:
    """Up to ``limit`` goals the embedded planner plans with ``registry``'s tools, each listing
    something else, a chain of two tools first when the tools link."""
    if limit <= 0 or not len(registry):
        return []
    planner = EmbeddedPlanner(registry)
    vocab = planner.vocabulary
    found: list[ExampleGoal] = []
    firsts: set[str] = set()
    for goal in _candidates(registry, vocab):
        if len(found) >= limit or any(e.goal.lower() == goal.lower() for e in found):
            continue
        try:
            plan = planner.plan(goal, today=today)
        except PlanStudioError:
            continue  # a candidate the planner cannot read is not offered
        tools = tuple(step.tool for step in plan.steps)
        if not tools or tools[-1] in firsts:
            continue  # one example per thing listed
        firsts.add(tools[-1])
        found.append(ExampleGoal(goal, tools, first_sentence(registry.get(tools[-1]).description)))
    if not found:  # tools the embedded planner does not plan with: their own words
        for tool in registry:
            sentence = first_sentence(tool.description).rstrip(".")
            if sentence and len(found) < limit:
                found.append(ExampleGoal(sentence, (tool.name,), first_sentence(tool.description)))
    return found


def _candidates(registry: ToolRegistry, vocab: Vocabulary) -> list[str]:
    """Goals to try, best first: a chain over a link, then one per tool with a filter or two."""
    infos = list(vocab.tools.values())
    chains: list[str] = []
    singles: list[str] = []
    for info in infos:
        verb = _verb(registry, info)
        place = _place(info, vocab)
        value = _value(info)
        for other_name in info.links:
            other = vocab.tools[other_name]
            other_place = _place(other, vocab)
            chains.append(f"{verb} {info.entity} from {other_place + ' ' if other_place else ''}{other.entity}")
        if value and place:
            singles.append(f"{verb} {value} {info.entity} in {place}")
        if place:
            singles.append(f"{verb} {info.entity} in {place}")
        if info.date_from and info.date_to:
            singles.append(f"{verb} {(value + ' ') if value else ''}{info.entity} from last week")
        if value:
            singles.append(f"{verb} {value} {info.entity}")
        singles.append(f"{verb} {info.entity}")
    return chains[:1] + singles + chains[1:]


def _verb(registry: ToolRegistry, info: ToolInfo) -> str:
    words = first_sentence(registry.get(info.name).description).split()
    word = words[0].lower() if words else ""
    return word.capitalize() if word in _GOAL_VERBS else "List"


def _place(info: ToolInfo, vocab: Vocabulary) -> str:
    """A place the tool's place parameter takes: from its schema's examples, else its group's words."""
    for param in info.city_params.values():
        known = info.known_values.get(param)
        if known:
            return known[0]
    places = list(dict.fromkeys(vocab.cities.values()))
    return places[0] if info.city_params and places else ""


def _value(info: ToolInfo) -> str:
    """The first value of the enum parameter that sorts the tool's rows (a type, kind, category or
    status), as words ("in_transit" → "in transit"); "" when it has none."""
    for param, values in info.enums.items():
        if values and param in _SORTING_PARAMS:
            return values[0].replace("_", " ")
    return ""

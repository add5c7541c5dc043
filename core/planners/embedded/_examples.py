"""Example goals and feedback for the embedded planner's messages, made from its vocabulary.

A refusal says what to type instead ("e.g. '<entity> from last week'"). The example is made
from the tools the planner plans with and the words their groups handed it, so a message
never names a domain the registry does not have.
"""

from __future__ import annotations

from ._vocabulary import ToolInfo, Vocabulary

__all__ = ["example_feedback", "example_goal", "understood"]


def _dated(vocab: Vocabulary) -> ToolInfo | None:
    """The first tool that takes a date range, else the first tool."""
    tools = list(vocab.tools.values())
    return next((t for t in tools if t.date_from and t.date_to), tools[0] if tools else None)


def _places(vocab: Vocabulary) -> list[str]:
    return list(dict.fromkeys(vocab.cities.values()))


def example_goal(vocab: Vocabulary) -> str:
    """A goal this planner reads, e.g. "<entity> from last week going to <place>"; "" with no tools."""
    info = _dated(vocab)
    if info is None:
        return ""
    goal = info.entity + (" from last week" if info.date_from and info.date_to else "")
    places = _places(vocab)
    if places and "destination" in info.city_params:
        goal += f" going to {places[-1]}"
    elif places and "location" in info.city_params:
        goal += f" in {places[-1]}"
    return goal


def example_feedback(vocab: Vocabulary) -> str:
    """Re-plan feedback this planner reads: another place, else a limit, else dropping a step."""
    places = _places(vocab)
    if places:
        return f"use {places[min(2, len(places) - 1)]} instead"
    if any(t.limit for t in vocab.tools.values()):
        return "limit 10"
    return "drop the last step"


def understood(vocab: Vocabulary) -> str:
    """What re-plan feedback the planner understands, with examples from its tools."""
    said: list[str] = []
    places = _places(vocab)
    if len(places) > 1:
        new, old = places[min(2, len(places) - 1)], places[0]
        said.append(f"a place ('use {new} instead', '{new}, not {old}')")
    values = list(dict.fromkeys(p.replace("_", " ") for t in vocab.tools.values()
                                for p in [*t.enums, *vocab.name_cues] if p in t.params))
    if values:
        said.append(" or ".join([", ".join(values[:-1]), values[-1]] if len(values) > 1 else values))
    said.extend(f"'{p.replace('_', ' ')}'" for p in dict.fromkeys(b for t in vocab.tools.values() for b in t.bools))
    if any(t.date_from and t.date_to for t in vocab.tools.values()):
        said.append("a date phrase ('last month instead')")
    if any(t.limit for t in vocab.tools.values()):
        said.append("a limit ('limit 10', 'top 5', 'no limit')")
    entities = [t.entity for t in vocab.tools.values()]
    first = entities[0] if entities else "<entity>"
    other = entities[1] if len(entities) > 1 else first
    dated = any(t.date_from and t.date_to for t in vocab.tools.values())
    said.append(f"removing a step ('drop the {first} step', 'remove step 1') or a filter"
                + (" ('remove the date filter')" if dated else ""))
    if len(entities) > 1:
        said.append(f"another list ('{other} instead of {first}')")
    said.append(f"adding a step ('add {other}')")
    return ", ".join(said)

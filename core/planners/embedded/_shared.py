"""Qualifiers said once for a list of independent entities.

"Get shipments and inspections from last week" means both lists from last week, and
"shipments and inspections at landfills in <city>" both narrowed to the same landfills. So
when a goal ends with a list of entities joined by commas or "and" and qualifiers follow the
last of them, or when a sentence of its own before the list qualifies it ("Last week, get
..."), each listed entity gets them, as if they had been said after each one; an entity that
has no place for one (facilities have no dates) does without it. Steps that the plan builder
makes from the same shared words (the landfills in <city>) are then made once.

A qualifier right after one entity in the middle of the list ("shipments from last week and
failed inspections") stays with that entity: the list it could be shared over ends there.
"""

from __future__ import annotations

from typing import Iterable

from ._group import Group
from ._parse import CITY, Mention
from ._vocabulary import Vocabulary

__all__ = ["share_qualifiers", "shared_mentions"]


def share_qualifiers(groups: list[Group], vocab: Vocabulary) -> None:
    _share_trailing(groups, vocab)
    _share_leading(groups, vocab)


def shared_mentions(groups: Iterable[Group]) -> set[int]:
    """Ids of the mentions that more than one group holds."""
    seen: set[int] = set()
    shared: set[int] = set()
    for group in groups:
        for mention in {id(m): m for m in [*group.qualifiers, *group.filters]}.values():
            (shared if id(mention) in seen else seen).add(id(mention))
    return shared


def _share_trailing(groups: list[Group], vocab: Vocabulary) -> None:
    """The qualifiers after the goal's last entity go to each entity of the list it ends."""
    if len(groups) < 2:
        return
    last = groups[-1]
    if last.then or last.link or last.primary.refers_back:
        return
    end = last.primary.end
    qualifiers = [q for q in last.qualifiers if q.start >= end]
    filters = [f for f in last.filters if f.start >= end]
    if any(q.tool not in vocab.tools[last.primary.tool].links for q in qualifiers):
        # "<kind> that failed inspections": a second list that uses the last one's rows,
        # not a qualifier of the whole list.
        return
    run: list[Group] = []
    for group in reversed(groups[:-1]):
        if _said_after(group) or group.primary.refers_back or group.link:
            break  # "their contaminants" belong to a chain, not to the list
        run.append(group)
        if group.then:
            break  # "..., then X and Y from last week": the list starts here
    _give(run, qualifiers, filters, vocab)


def _share_leading(groups: list[Group], vocab: Vocabulary) -> None:
    """What a sentence before a list said ("Last week, get X and Y") goes to each of X and Y."""
    for at, group in enumerate(groups):
        if not group.leading:
            continue
        qualifiers = [m for m in group.leading if m.kind == "entity"]
        filters = [m for m in group.leading if m.kind == "filter"]
        run: list[Group] = []
        for later in groups[at + 1:]:
            if later.then or later.link or later.leading or later.primary.refers_back:
                break
            run.append(later)
        _give(run, qualifiers, filters, vocab)


def _said_after(group: Group) -> bool:
    """Whether the group's part says something after its entity ("shipments from last week")."""
    return any(m.start >= group.primary.end for m in [*group.qualifiers, *group.filters])


def _give(run: list[Group], qualifiers: list[Mention], filters: list[Mention], vocab: Vocabulary) -> None:
    """Add the shared mentions to each group of ``run`` that can take them.

    Only entities that narrow ("at landfills": the facilities a step's ids are limited to)
    are shared; a group whose tool has no link to them keeps to itself, since the filters
    said with them describe those facilities, not the group's rows.
    """
    if not qualifiers and not filters:
        return
    if any(q.refers_back for q in qualifiers):
        return
    for group in run:
        links = vocab.tools[group.primary.tool].links
        if any(q.tool not in links for q in qualifiers):
            continue
        group.qualifiers.extend(q for q in qualifiers if q not in group.qualifiers)
        group.filters.extend(f for f in filters if f not in group.filters and not _has_own(group, f))


def _has_own(group: Group, shared: Mention) -> bool:
    """Whether the group already names a value for the shared filter's parameter."""
    assert shared.filter is not None
    own = [m.filter for m in [group.primary, *group.filters] if m.filter is not None]
    return any(f.param == shared.filter.param and (f.param != CITY or f.kind == shared.filter.kind)
               for f in own)

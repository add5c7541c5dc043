"""From a read goal to steps: groups, narrowing steps, links and parallel marks.

Each segment of the goal that names an entity is a group. Its first entity (or the head of
a noun compound, "facility inspections") is the group's primary step; other entities in the
segment qualify it ("shipments from Berlin facilities"). A filter goes to the nearest step
of the group that accepts it; a filter the primary cannot take but a tool it links to can
(a city for contaminants: ``facility_id`` links to facilities) becomes a narrowing step
listed first, whose ids the primary takes. "their ..." / "... details" / "then ..." link a
group to the latest earlier step it has a link parameter for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .._errors import PlannerError
from .._plan import Plan, Step
from ._embedded_parse import DATES, LIMIT, Filter, Mention, Parsed, accepts
from ._embedded_vocabulary import Vocabulary

__all__ = ["Group", "Node", "make_groups", "build_nodes", "nodes_to_steps", "mark_parallel",
           "ordered_params"]


@dataclass
class Group:
    primary: Mention
    qualifiers: list[Mention] = field(default_factory=list)
    filters: list[Mention] = field(default_factory=list)
    then: bool = False
    link: bool = False
    add: bool = False


@dataclass
class Node:
    tool: str
    mention: Mention | None
    params: dict[str, Any] = field(default_factory=dict)
    refs: dict[str, int] = field(default_factory=dict)  # param -> absolute step index
    after: list[int] = field(default_factory=list)  # absolute step indexes that must finish first
    note: str | None = None


def make_groups(parsed: Parsed, vocab: Vocabulary, *, infer: bool = True,
                loose: list[Mention] | None = None) -> list[Group]:
    """Groups of the goal; with ``infer``, a goal naming no entity gets the tool its filters fit.

    Filters in segments that name no entity join the group before them (or after them);
    with ``loose`` given they are collected there instead (re-plan feedback).
    """
    groups: list[Group] = []
    pending: list[Mention] = []
    pending_nouns: list[Mention] = []
    for seg in parsed.segments:
        entities = seg.entities
        filters = [m for m in seg.mentions if m.kind == "filter"]
        if not entities:
            if loose is not None:
                loose.extend(filters)
            elif groups:
                groups[-1].filters.extend(filters)
            else:
                pending.extend(filters)
                pending_nouns.extend(m for m in seg.mentions if m.kind == "param")
            continue
        primary = _head(parsed.text, entities)
        groups.append(Group(primary, [e for e in entities if e is not primary], pending + filters,
                            then=seg.then, link=seg.link, add=seg.add))
        pending = []
    if not groups and infer and (pending or pending_nouns):
        tool = infer_tool(vocab, pending, pending_nouns)
        if tool is not None:
            first = min(pending + pending_nouns, key=lambda m: m.start)
            groups.append(Group(Mention("entity", first.start, first.start, tool=tool), [], pending))
    return groups


def infer_tool(vocab: Vocabulary, filters: list[Mention], nouns: list[Mention]) -> str | None:
    """The one tool that takes the most of the named filters and parameters, if one stands out."""
    scores: dict[str, int] = {name: 0 for name in vocab.tools}
    for m in filters:
        if m.filter is None or m.filter.param in (DATES, LIMIT):
            continue
        for name, info in vocab.tools.items():
            if accepts(info, m.filter) is not None:
                scores[name] += 1
    for m in nouns:
        for name, info in vocab.tools.items():
            if m.param in info.params:
                scores[name] += 1
    best = max(scores.values(), default=0)
    winners = [name for name, score in scores.items() if score == best]
    if best == 0:
        return None
    if len(winners) > 1:
        entities = " or ".join(vocab.tools[w].entity for w in winners)
        raise PlannerError(f"the goal's filters fit {entities} equally; say which one you want listed")
    return winners[0]


def _head(text: str, entities: list[Mention]) -> Mention:
    """The primary entity: the first, unless it only modifies the noun right after it."""
    head = entities[0]
    for nxt in entities[1:]:
        if re.fullmatch(r"(?:'s|')?\s*", text[head.end:nxt.start]):
            head = nxt
        else:
            break
    return head


def _distance(mention: Mention | None, flt: Mention) -> tuple[int, int]:
    if mention is None:
        return (10**6, 1)
    if mention.start >= flt.end:
        return (mention.start - flt.end, 0)  # adjectives come before their noun
    return (max(0, flt.start - mention.end), 1)


def build_nodes(groups: list[Group], vocab: Vocabulary, prior_tools: list[str] | None = None,
                ignored: list[Filter] | None = None) -> list[Node]:
    """Nodes for ``groups``, numbered after ``prior_tools`` (the steps already in a plan)."""
    prior = list(prior_tools or [])
    nodes: list[Node] = []
    primaries: list[int] = []
    for group in groups:
        pinfo = vocab.tools[group.primary.tool]
        primary = Node(group.primary.tool, group.primary)
        narrowing: dict[str, Node] = {}
        separate: list[Node] = []
        for q in group.qualifiers:
            node = Node(q.tool, q)
            if q.tool in pinfo.links and q.tool not in narrowing:
                narrowing[q.tool] = node
            else:
                separate.append(node)
        named = [primary, *narrowing.values(), *separate]
        for node in named:
            if node.mention is not None and node.mention.filter is not None:
                _set(vocab, node, node.mention.filter)
        for f in group.filters:
            assert f.filter is not None
            takers = [n for n in named if accepts(vocab.tools[n.tool], f.filter) is not None]
            if takers:
                chosen = min(takers, key=lambda n: _distance(n.mention, f))
                if f.filter.param == LIMIT and primary in takers:
                    # A limit counts the group's own rows ("..., first 5") unless it stands
                    # before another entity's noun ("contaminants of the first 20 shipments").
                    following = [n for n in takers if n.mention is not None and n.mention.start >= f.end]
                    chosen = min(following, key=lambda n: n.mention.start) if following else primary
                _set(vocab, chosen, f.filter)
                continue
            for other, _param in pinfo.links.items():
                if accepts(vocab.tools[other], f.filter) is not None:
                    if other not in narrowing:
                        narrowing[other] = Node(other, None)
                        named.append(narrowing[other])
                    _set(vocab, narrowing[other], f.filter)
                    break
            else:
                if ignored is not None:
                    ignored.append(f.filter)
        position = lambda n: n.mention.start if n.mention is not None else -1  # noqa: E731
        before = sorted([*narrowing.values(), *(n for n in separate if position(n) < position(primary))],
                        key=position)
        after = sorted((n for n in separate if position(n) >= position(primary)), key=position)
        base = len(prior) + len(nodes)
        ordered = [*before, primary, *after]
        index = {id(n): base + k for k, n in enumerate(ordered)}
        primary_index = index[id(primary)]
        for tool, node in narrowing.items():
            primary.refs[pinfo.links[tool]] = index[id(node)]
            node.note = f"Narrows step {primary_index} ({primary.tool}) to these {vocab.tools[tool].entity}."
        if group.link or group.then:
            _link_back(vocab, primary, [*primaries[::-1], *range(len(prior) - 1, -1, -1)],
                       [*prior, *(n.tool for n in nodes)], then=group.then)
        nodes.extend(ordered)
        primaries.append(primary_index)
    return nodes


def _link_back(vocab: Vocabulary, node: Node, candidates: list[int], tools: list[str], *, then: bool) -> None:
    links = vocab.tools[node.tool].links
    for index in candidates:
        param = links.get(tools[index])
        if param is not None and param not in node.refs and param not in node.params:
            node.refs[param] = index
            return
    if then and candidates:
        node.after.append(candidates[0])


def _set(vocab: Vocabulary, node: Node, flt: Filter) -> None:
    params = accepts(vocab.tools[node.tool], flt) or {}
    for key, value in params.items():
        node.params.setdefault(key, value)


def ordered_params(vocab: Vocabulary, tool: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` in the order the tool declares them, so equal plans print the same."""
    order = {p: n for n, p in enumerate(vocab.tools[tool].params)} if tool in vocab.tools else {}
    return dict(sorted(params.items(), key=lambda kv: order.get(kv[0], len(order))))


def reference(vocab: Vocabulary, tool: str, index: int) -> str:
    path = vocab.tools[tool].id_path if tool in vocab.tools else "data.*.id"
    return f"${{step[{index}].{path}}}"


def nodes_to_steps(vocab: Vocabulary, nodes: list[Node], prior: list[Step], ids: list[str]) -> list[Step]:
    """Steps for ``nodes`` (after the ``prior`` steps), with the given new ids."""
    all_tools = [s.tool for s in prior] + [n.tool for n in nodes]
    all_ids = [s.id for s in prior] + ids
    steps = []
    for node, step_id in zip(nodes, ids):
        params = dict(node.params)
        for param, index in node.refs.items():
            params[param] = reference(vocab, all_tools[index], index)
        depends = sorted({*node.refs.values(), *node.after})
        steps.append(Step(id=step_id, tool=node.tool, params=ordered_params(vocab, node.tool, params),
                          depends_on=[all_ids[i] for i in depends], note=node.note))
    return steps


def mark_parallel(plan: Plan, keep: set[str] = frozenset()) -> None:
    """A step is parallel when some other step neither needs it nor is needed by it.

    Steps whose ids are in ``keep`` (locked ones) are left as they are.
    """
    ancestors: dict[str, set[str]] = {}

    def up(step_id: str) -> set[str]:
        if step_id not in ancestors:
            ancestors[step_id] = set()
            found: set[str] = set()
            for dep in plan.dependencies_of(step_id):
                if dep in {s.id for s in plan.steps}:
                    found |= {dep} | up(dep)
            ancestors[step_id] = found
        return ancestors[step_id]

    for step in plan.steps:
        if step.id in keep:
            continue
        step.parallel = any(other.id != step.id and other.id not in up(step.id) and step.id not in up(other.id)
                            for other in plan.steps)


def check_has_steps(groups: list[Group], vocab: Vocabulary, goal: str) -> None:
    if not groups:
        raise PlannerError(
            f"the embedded planner found nothing in {goal!r} that names one of its tools. "
            f"It plans with: {vocab.describe() or 'no tools (the registry has no list tools)'}. "
            "Name one of these, with filters such as a city, a status or a date phrase "
            "(e.g. 'shipments from last week going to Leipzig').")

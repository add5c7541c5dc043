"""From a read goal to steps: groups, narrowing steps, links and parallel marks.

Each segment of the goal that names an entity is a group. Its first entity (or the head of
a noun compound, "facility inspections") is the group's primary step; other entities in the
segment qualify it ("shipments from <city> facilities"). A filter goes to the nearest step
of the group that accepts it; a filter the primary cannot take but a tool it links to can
(a city for contaminants: ``facility_id`` links to facilities) becomes a narrowing step
listed first, whose ids the primary takes. "their ..." / "... details" / "then ..." link a
group to the latest earlier step it has a link parameter for, and an entity named after the
primary in its own segment ("<kind> that failed inspections") uses the primary's ids.

A segment that opens a sentence with a preposition ("At <kind> in <city>, list
<entity>") or names no entity ("Last week, get ...") qualifies the segment after it; one
that opens with a preposition later ("..., at <kind> in <city>") qualifies the one before.
"Those facilities" names an earlier step, so it is referenced rather than listed again.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from ..._errors import PlannerError
from ...plan._model import Plan, Step
from ...plan._references import step_reference
from ._parse import DATES, LIMIT, Filter, Mention, Parsed, Segment, accepts
from ._examples import example_goal
from ._group import Group
from ._shared import share_qualifiers, shared_mentions
from ._vocabulary import ToolInfo, Vocabulary

__all__ = ["Node", "make_groups", "build_nodes", "nodes_to_steps", "mark_parallel",
           "ordered_params"]


@dataclass
class Node:
    tool: str
    mention: Mention | None
    params: dict[str, Any] = field(default_factory=dict)
    refs: dict[str, int] = field(default_factory=dict)  # param -> absolute step index
    after: list[int] = field(default_factory=list)  # absolute step indexes that must finish first
    note: str | None = None
    # The mentions that set its parameters, so steps built from the same shared words are one step.
    sources: set[int] = field(default_factory=set)


def make_groups(parsed: Parsed, vocab: Vocabulary, *, infer: bool = True,
                loose: list[Mention] | None = None) -> list[Group]:
    """Groups of the goal; with ``infer``, a goal naming no entity gets the tool its filters fit.

    Filters in segments that name no entity join the group before them (or after them);
    with ``loose`` given they are collected there instead (re-plan feedback).
    """
    groups: list[Group] = []
    pending: list[Mention] = []
    pending_nouns: list[Mention] = []
    fronted: list[Mention] = []
    for at, seg in enumerate(parsed.segments):
        entities = seg.entities
        filters = [m for m in seg.mentions if m.kind == "filter"]
        if loose is None and _leads_into_next(parsed.segments, at):
            # "At <kind> in <city>, list ...", "<date>, get ...": said before the part they qualify.
            fronted.extend(entities)
            pending.extend(filters)
            continue
        if not entities:
            if loose is not None:
                loose.extend(filters)
            elif groups:
                groups[-1].filters.extend(filters)
            else:
                pending.extend(filters)
                pending_nouns.extend(m for m in seg.mentions if m.kind == "param")
            continue
        if groups and seg.prepositional and not (seg.then or seg.link or seg.add):
            # "List <entity>, at <kind> in <city>": qualifies the part before.
            groups[-1].qualifiers.extend(entities)
            groups[-1].filters.extend(filters)
            continue
        primary = _head(parsed.text, entities)
        groups.append(Group(primary, [*fronted, *(e for e in entities if e is not primary)], pending + filters,
                            then=seg.then, link=seg.link, add=seg.add, leading=[*fronted, *pending]))
        pending, fronted = [], []
    if not groups and infer and (pending or pending_nouns):
        tool = infer_tool(vocab, pending, pending_nouns)
        if tool is not None:
            first = min(pending + pending_nouns, key=lambda m: m.start)
            groups.append(Group(Mention("entity", first.start, first.start, tool=tool), [], pending))
    share_qualifiers(groups, vocab)
    return groups


def _leads_into_next(segments: list[Segment], at: int) -> bool:
    """Whether segment ``at`` opens a sentence only to qualify the part that follows it.

    That is a part naming no entity ("Last week, ...") or one opening with a preposition
    ("For <entity> <filters>, get <other entity>"), with an entity still to come.
    """
    seg = segments[at]
    if not seg.opens or seg.then or seg.add or not (seg.prepositional or not seg.entities):
        return False
    following = next((later for later in segments[at + 1:] if later.entities), None)
    # A part that links back ("..., their contaminants") continues the sentence before; what
    # opens it is about that sentence's steps, not a new one.
    return following is not None and not (following.link and not seg.entities)


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
                ignored: list[Mention] | None = None) -> list[Node]:
    """Nodes for ``groups``, numbered after ``prior_tools`` (the steps already in a plan).

    Filters that no step takes (dates for facilities, a second limit for one step) are
    added to ``ignored``, if given.
    """
    tools = list(prior_tools or [])  # the tool of every step so far, by absolute index
    nodes: list[Node] = []
    primaries: list[int] = []
    shared = shared_mentions(groups)
    made: dict[tuple[str, frozenset[int]], int] = {}  # a step built from shared words -> its index
    narrowed: dict[int, list[int]] = {}  # a shared narrowing step -> the steps it narrows
    placed: list[Mention] = []
    missed: list[Mention] = []  # a filter shared by a list may miss one step and be placed in another
    for group in groups:
        pinfo = vocab.tools[group.primary.tool]
        primary = Node(group.primary.tool, group.primary)
        qualifiers = [q for q in group.qualifiers if not _refer_back(pinfo, primary, q, tools)]
        narrowing, separate = _qualifier_nodes(pinfo, primary, qualifiers)
        named = [primary, *narrowing.values(), *separate]
        for node in named:
            if node.mention is not None and node.mention.filter is not None:
                _set(vocab, node, node.mention.filter)
                node.sources.add(id(node.mention))
            elif node is not primary:
                node.sources.add(id(node.mention))
        for f in group.filters:
            (placed if _place_filter(vocab, f, primary, named, narrowing) else missed).append(f)
        # Words shared by a list ("shipments and inspections at landfills") narrow each of
        # its steps through one step, which may be a step the list names itself.
        reused = {tool: made[key] for tool, node in narrowing.items()
                  if (key := _made_key(node, shared)) in made}
        if (not narrowing and not separate and not primary.refs and not (group.link or group.then)
                and (key := _made_key(primary, shared)) in made):
            primaries.append(made[key])
            continue
        for tool in reused:
            del narrowing[tool]
        ordered = _in_order(primary, narrowing, separate)
        base = len(tools)
        index = {id(n): base + k for k, n in enumerate(ordered)}
        primary_index = index[id(primary)]
        for tool, node in narrowing.items():
            primary.refs[pinfo.links[tool]] = index[id(node)]
            node.note = f"Narrows step {primary_index} ({primary.tool}) to these {vocab.tools[tool].entity}."
            narrowed[index[id(node)]] = [primary_index]
        for tool, at in reused.items():
            primary.refs[pinfo.links[tool]] = at
            if at in narrowed:
                narrowed[at].append(primary_index)
                named_steps = [f"{i} ({tools[i] if i < len(tools) else primary.tool})" for i in narrowed[at]]
                nodes[at - len(prior_tools or [])].note = (
                    f"Narrows steps {', '.join(named_steps[:-1])} and {named_steps[-1]} "
                    f"to these {vocab.tools[tool].entity}.")
        for node in ordered:
            if (key := _made_key(node, shared)) is not None:
                made.setdefault(key, index[id(node)])
        tools.extend(n.tool for n in ordered)
        primary_set = set(primaries)

        def earlier() -> Iterator[int]:
            """The latest group's step first, then any other earlier step, latest first.

            Lazy: a link is usually found at once, and listing every earlier step for every
            group would cost a goal of many parts their number squared."""
            yield from reversed(primaries)
            yield from (i for i in range(base - 1, -1, -1) if i not in primary_set)

        if group.link or group.then:
            _link_back(vocab, primary, earlier(), tools, then=group.then)
        # An entity said after the primary in the same part is about it ("incinerators in
        # <city> that failed inspections", "<entity> with <other entity> details"), so it
        # uses the rows of the nearest step before it it has a link for; after a link cue
        # ("their") earlier parts' steps count too.
        at = ordered.index(primary)
        for k in range(at + 1, len(ordered)):
            within = (base + j for j in range(k - 1, -1, -1))
            _link_back(vocab, ordered[k], itertools.chain(within, earlier() if group.link else ()), tools,
                       then=False)
        nodes.extend(ordered)
        primaries.append(primary_index)
    if ignored is not None:
        done = {id(m) for m in placed}
        ignored.extend({id(m): m for m in missed if id(m) not in done}.values())
    return nodes


def _made_key(node: Node, shared: set[int]) -> tuple[str, frozenset[int]] | None:
    """What makes two steps built from shared words the same step, or ``None`` for other steps."""
    if node.refs or not node.sources & shared:
        return None
    return (node.tool, frozenset(node.sources))


def _refer_back(pinfo: ToolInfo, primary: Node, qualifier: Mention, tools: list[str]) -> bool:
    """ "<entity> of those <earlier entity>": use the earlier step's ids rather than list them again."""
    if not qualifier.refers_back or qualifier.tool not in pinfo.links:
        return False
    earlier = [i for i, tool in enumerate(tools) if tool == qualifier.tool]
    if not earlier:
        return False
    primary.refs[pinfo.links[qualifier.tool]] = earlier[-1]
    return True


def _qualifier_nodes(pinfo: ToolInfo, primary: Node, qualifiers: list[Mention]) -> tuple[dict[str, Node], list[Node]]:
    """Qualifiers the primary has a link for narrow it (one per tool); the others are steps of their own."""
    narrowing: dict[str, Node] = {}
    separate: list[Node] = []
    for q in qualifiers:
        node = Node(q.tool, q)
        if q.tool in pinfo.links and q.tool not in narrowing and pinfo.links[q.tool] not in primary.refs:
            narrowing[q.tool] = node
        else:
            separate.append(node)
    return narrowing, separate


def _place_filter(vocab: Vocabulary, f: Mention, primary: Node, named: list[Node],
                  narrowing: dict[str, Node]) -> bool:
    """Give ``f`` to the step of the group it qualifies, or to a new narrowing step; whether
    a step now holds it (not when no step takes it, or the step has another value for it)."""
    assert f.filter is not None
    # Whether a step takes the filter depends on its tool alone: ask once per tool.
    taking = {tool for tool in {n.tool for n in named} if accepts(vocab.tools[tool], f.filter) is not None}
    takers = [n for n in named if n.tool in taking]
    if takers:
        owner = _owner(f, primary, takers)
        owner.sources.add(id(f))
        return _set(vocab, owner, f.filter)
    for other in vocab.tools[primary.tool].links:
        if accepts(vocab.tools[other], f.filter) is not None:
            if other not in narrowing:
                narrowing[other] = Node(other, None)
                named.append(narrowing[other])
            narrowing[other].sources.add(id(f))
            return _set(vocab, narrowing[other], f.filter)
    return False


def _owner(f: Mention, primary: Node, takers: list[Node]) -> Node:
    """Which of the steps that take filter ``f`` it qualifies."""
    assert f.filter is not None
    if f.filter.param == LIMIT and primary in takers:
        # A limit counts the group's own rows ("..., first 5") unless it stands
        # before another entity's noun ("contaminants of the first 20 shipments").
        following = [n for n in takers if n.mention is not None and n.mention.start >= f.end]
        return min(following, key=lambda n: n.mention.start) if following else primary  # type: ignore[union-attr]
    if f.filter.param == DATES and not f.possessive:
        # Dates follow what they qualify ("<entity> found <date> in <other entity> going to
        # <city>"); only a possessive ("today's contaminants") or an opening date goes forward.
        before = [n for n in takers if n.mention is not None and n.mention.end <= f.start]
        if before:
            return max(before, key=lambda n: n.mention.end)  # type: ignore[union-attr]
    return min(takers, key=lambda n: _distance(n.mention, f))


def _in_order(primary: Node, narrowing: dict[str, Node], separate: list[Node]) -> list[Node]:
    """A group's steps as listed: narrowing steps and entities said first, the primary, the rest."""
    position = lambda n: n.mention.start if n.mention is not None else -1  # noqa: E731
    before = sorted([*narrowing.values(), *(n for n in separate if position(n) < position(primary))],
                    key=position)
    after = sorted((n for n in separate if position(n) >= position(primary)), key=position)
    return [*before, primary, *after]


def _link_back(vocab: Vocabulary, node: Node, candidates: Iterable[int], tools: list[str], *, then: bool) -> None:
    """Use the ids of the first of ``candidates`` that ``node`` has a link for; after "then",
    with no link, at least run after the first candidate."""
    links = vocab.tools[node.tool].links
    if not links:
        if then:
            first = next(iter(candidates), None)
            if first is not None:
                node.after.append(first)
        return
    first: int | None = None
    for index in candidates:
        if first is None:
            first = index
        param = links.get(tools[index])
        if param is not None and param not in node.refs and param not in node.params:
            node.refs[param] = index
            return
    if then and first is not None:
        node.after.append(first)


def _set(vocab: Vocabulary, node: Node, flt: Filter) -> bool:
    """Put ``flt`` on ``node`` unless it has another value there already; whether it now holds it."""
    params = accepts(vocab.tools[node.tool], flt) or {}
    for key, value in params.items():
        node.params.setdefault(key, value)
    return all(node.params.get(key) == value for key, value in params.items())


def ordered_params(vocab: Vocabulary, tool: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` in the order the tool declares them, so equal plans print the same."""
    order = {p: n for n, p in enumerate(vocab.tools[tool].params)} if tool in vocab.tools else {}
    return dict(sorted(params.items(), key=lambda kv: order.get(kv[0], len(order))))


def reference(vocab: Vocabulary, tool: str, step_id: str) -> str:
    """The reference to the ids a ``tool`` step ``step_id`` lists (nodes count positions;
    the step they become names its source by id)."""
    path = vocab.tools[tool].id_path if tool in vocab.tools else "data.*.id"
    return step_reference(step_id, f".{path}")


def nodes_to_steps(vocab: Vocabulary, nodes: list[Node], prior: list[Step], ids: list[str]) -> list[Step]:
    """Steps for ``nodes`` (after the ``prior`` steps), with the given new ids."""
    all_tools = [s.tool for s in prior] + [n.tool for n in nodes]
    all_ids = [s.id for s in prior] + ids
    steps = []
    for node, step_id in zip(nodes, ids):
        params = dict(node.params)
        for param, index in node.refs.items():
            params[param] = reference(vocab, all_tools[index], all_ids[index])
        depends = sorted({*node.refs.values(), *node.after})
        steps.append(Step(id=step_id, tool=node.tool, params=ordered_params(vocab, node.tool, params),
                          depends_on=[all_ids[i] for i in depends], note=node.note))
    return steps


def mark_parallel(plan: Plan, keep: set[str] = frozenset()) -> Plan:
    """``parallel`` as demo-domain.md puts it: entities that do not depend on each other are
    steps with no dependencies, marked parallel. So a step is parallel when it needs no other
    step and at least one other step needs none either (that one can run alongside it); a
    step that uses another's rows waits for it, and is never parallel.

    Steps whose ids are in ``keep`` (locked ones) are left as they are. Returns the plan with
    its steps so marked (a new plan: ``plan`` is a value, not changed).
    """
    ids = {s.id for s in plan.steps}
    free = {s.id for s in plan.steps if not _needs_another(plan, s, ids)}
    steps = [s if s.id in keep or s.parallel == (parallel := len(free) > 1 and s.id in free)
             else s.model_copy(update={"parallel": parallel}) for s in plan.steps]
    return plan.model_copy(update={"steps": steps})


def _needs_another(plan: Plan, step: Step, ids: set[str]) -> bool:
    if any(dep in ids and dep != step.id for dep in step.depends_on):
        return True
    return any(ref.step in ids and ref.step != step.id for _name, ref in step.readable_references())


def check_has_steps(groups: list[Group], vocab: Vocabulary, goal: str) -> None:
    if not groups:
        raise PlannerError(
            f"the embedded planner found nothing in {goal!r} that names one of its tools. "
            f"It plans with: {vocab.describe() or 'no tools (the registry has no list tools)'}. "
            "Name one of these, with filters for its parameters"
            + (f" (e.g. {example!r})." if (example := example_goal(vocab)) else "."))

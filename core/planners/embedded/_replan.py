"""Offline re-planning: feedback text read by the same rules as goals, applied to a plan.

Understood: removing steps ("drop the inspections step", "remove step 2", "remove steps 1
and 2", "drop the last step") or keeping only some ("just the shipments"); listing another
entity instead ("contaminants instead of shipments", "switch to inspections"); removing
filters ("no limit", "all of them", "remove the date filter", "without the <city> filter",
"not rejected", "any status"); changing filters ("use <city> instead", "<city>, not
<old city>", "change <old city> to <city>", "<old city> -> <city>", "only high risk", "limit 10",
"only 10", "last month instead"): a filter replaces the same filter where the plan has one,
and is otherwise added to the first step of each chain that takes it (a limit: the last),
or through a new narrowing step (a city for inspections lists facilities first); adding
steps ("add inspections", "also their contaminants").

Feedback is all or nothing: when a part of it needs a locked step, names a value the plan
does not have, or is not understood, the plan stays as it was and the error says what was
understood, what could not be done and which words were not understood.
"""

from __future__ import annotations

import datetime as dt
import re

from ..._errors import PlannerError
from ...plan._model import Plan, PlanMetadata
from . import _phrases as phrases
from .._base import no_step_left
from ._build import make_groups, mark_parallel
from ._group import Group
from ._edit import PlanEdit
from ._examples import understood
from ._feedback import Reading, bare_counts, entity_swaps, named_step_indexes, old_values, same_filter
from ._parse import MASK, CITY, DATES, LIMIT, Filter, Mention, Parsed, accepts, parse, phrase_pattern
from ._notices import READ_AS_KEY
from ._unread import UNREAD_KEY
from ._vocabulary import Vocabulary

__all__ = ["apply_feedback"]

_ARTICLES = r"(?:\s+(?:the|all|any|those|these|its|their|a|an))*\s+"
_PREPOSITION = re.compile(r"(?:to|in|at|from|for)\s+", re.IGNORECASE)
_TAILS = r"(?:\s+(?:steps?|filters?|restrictions?|conditions?|lists?|parts?|details?|ones?))?"


def apply_feedback(vocab: Vocabulary, plan: Plan, feedback: str, today: dt.date, *,
                   follow_up_of: str | None = None) -> Plan:
    """``plan`` changed as ``feedback`` asks.

    Raises ``PlannerError``, leaving the plan as it was, when nothing is understood, when a
    part of the feedback is not understood, or when a part cannot be done (it needs a locked
    step, or names a value the plan does not have); the message says which. With
    ``follow_up_of`` (the previous goal), ``feedback`` is a follow-up goal, and the message
    says so rather than speak of a re-plan.
    """
    edit = PlanEdit(vocab, plan, today)
    reading = Reading(feedback)
    text = _remove_named_steps(edit, feedback, reading)
    parsed = parse(text, vocab, today)
    for old_tool, new in entity_swaps(parsed, reading, edit.tools()):
        if not edit.replace_tool(old_tool, new.tool):  # type: ignore[arg-type]
            parsed.mentions.remove(new)  # said as the replacement, not as a list to add
            for seg in parsed.segments:
                seg.mentions = [m for m in seg.mentions if m is not new]
            reading.read(new.start, new.end)
    bare_counts(parsed, reading)
    used: set[int] = set()
    olds = old_values(parsed, used, reading)
    olds += _remove_filters(edit, parsed, used, reading)
    for mention in parsed.mentions:
        if mention.kind != "param":
            reading.read(mention.start, mention.end)
    _read_named_params(edit.vocab, parsed, reading)
    loose: list[Mention] = []
    groups = make_groups(parsed, vocab, infer=False, loose=loose)
    adding, targeted, keep = _sort_groups(edit, parsed, groups, loose)
    if keep:
        edit.keep_only(keep)
    loose = [m for m in loose if id(m) not in used and m.filter is not None]
    loose = _one_value_each(edit, loose)
    for mention in loose:
        edit.apply_filter(mention.filter, None, _old_for(mention.filter, olds))  # type: ignore[arg-type]
    for mentions, tool in targeted:
        targets = [s for s in edit.steps if s.tool == tool]
        for mention in mentions:
            if id(mention) in used or mention.filter is None:
                continue
            edit.apply_filter(mention.filter, targets, _old_for(mention.filter, olds))
    for group in adding:
        group.filters = [m for m in group.filters if id(m) not in used]
    edit.add_groups(adding)
    unknown = reading.unknown()
    if edit.misses or unknown or not edit.changes:
        raise PlannerError(_refusal(feedback, edit, unknown, follow_up_of))
    if not edit.steps:
        raise no_step_left(feedback)
    problem = edit.out_of_bounds("the follow-up" if follow_up_of is not None else "the feedback")
    if problem is not None:
        raise PlannerError(problem + ("" if follow_up_of is not None else ". The plan is unchanged."))
    if edit.structure_changed:
        new_plan = mark_parallel(Plan(goal=plan.goal, steps=edit.steps, metadata=plan.metadata), keep=edit.locked)
        edit.steps = new_plan.steps
    # Every word of feedback is used or the change is refused, so no word goes unread now.
    # How a goal's words were read (typos) is about that goal, not about this plan.
    kept = {k: v for k, v in plan.metadata.model_dump().items() if k not in (UNREAD_KEY, READ_AS_KEY)}
    metadata = PlanMetadata.model_validate({
        **kept, "planner": "embedded", "today": today,
        "created_at": dt.datetime.now(dt.timezone.utc).replace(microsecond=0)})
    return Plan(goal=plan.goal, steps=edit.steps, metadata=metadata)


def _sort_groups(edit: PlanEdit, parsed: Parsed, groups: list[Group], loose: list[Mention]
                 ) -> tuple[list[Group], list[tuple[list[Mention], str]], set[str]]:
    """Which parts of the feedback add steps, which change the steps of their tool, and which
    tools to keep alone; filters that narrow the plan as a whole go to ``loose``."""
    adding: list[Group] = []
    targeted: list[tuple[list[Mention], str]] = []
    present_tools = {s.tool for s in edit.steps}
    linked_tools = {t for s in edit.steps if s.tool in edit.vocab.tools for t in edit.vocab.tools[s.tool].links}
    keep: list[Group] = []
    for at, group in enumerate(groups):
        absent = group.primary.tool not in present_tools
        plain = not (group.add or group.link or group.qualifiers)
        own = [Mention("filter", group.primary.start, group.primary.end, filter=group.primary.filter)
               ] if group.primary.filter is not None else []
        if absent and plain and ((own and not group.filters) or (
                group.primary.tool in linked_tools and _said_as_place(parsed, group.primary))):
            # "at landfills", "only at landfills in <city>", "from <city> facilities": where the
            # plan's rows are, so it narrows the plan rather than adding a list.
            loose.extend([*own, *group.filters])
        elif group.add or group.link or absent:
            adding.append(group)
        elif plain and not own and not group.filters and (
                _KEEP_ONLY.search(parsed.masked, 0, group.primary.start)
                or (keep and keep[-1] is groups[at - 1] and not group.then)):
            keep.append(group)  # "just shipments", "keep only shipments and inspections": the other lists go
        else:
            targeted.append(([*group.filters, *own], group.primary.tool))
            for q in group.qualifiers:
                if q.filter is not None:
                    targeted.append(([Mention("filter", q.start, q.end, filter=q.filter)], q.tool))
    return adding, targeted, {g.primary.tool for g in keep}


def _refusal(feedback: str, edit: PlanEdit, unknown: list[str], follow_up_of: str | None = None) -> str:
    """Why the plan stays as it was: what was understood, what could not be done, what was not understood.

    A follow-up goal (``follow_up_of`` is the previous goal) is said to be one: the user
    typed a goal, not re-plan feedback, and no plan was changed.
    """
    missed = f" (it did not understand {', '.join(map(repr, unknown))})" if unknown else ""
    if follow_up_of is not None:
        opening = f"{feedback!r} reads as a follow-up to the previous goal {follow_up_of!r}, but"
        if not edit.changes and not edit.misses:
            return (f"{opening} the embedded planner found no change to that goal's plan it understands in it"
                    f"{missed}. It understands: {understood(edit.vocab)}.")
    elif not edit.changes and not edit.misses:
        return (f"the embedded planner found no change it understands in {feedback!r}{missed}, so the plan "
                f"is unchanged. It understands: {understood(edit.vocab)}.")
    said = [f"understood: {', '.join(edit.changes)}"] if edit.changes else []
    if edit.misses:
        said.append(f"could not do: {'; '.join(edit.misses)}")
    if unknown:
        said.append(f"{'but ' if edit.changes else ''}did not understand {', '.join(map(repr, unknown))}")
    hint = f" It understands: {understood(edit.vocab)}." if unknown else ""
    if follow_up_of is not None:
        return f"{opening} in it the embedded planner {'; '.join(said)}.{hint}"
    return f"in {feedback!r} the embedded planner {'; '.join(said)}. The plan is unchanged.{hint}"


# "only shipments", "just the shipments", "keep only shipments", right before the entity.
_KEEP_ONLY = re.compile(r"(?<![\w-])(?:only|just|keep(?:\s+only)?|nothing\s+but)\s+(?:the\s+)?$", re.IGNORECASE)
# A place said before an entity: "at landfills", "from <city> facilities" (mentions are masked).
_PLACE = re.compile(rf"(?<![\w-])(?:at|in|from|of|for|across|within|inside)\s+(?:the\s+)?[{MASK}\s]*$",
                    re.IGNORECASE)


def _said_as_place(parsed: Parsed, mention: Mention) -> bool:
    return _PLACE.search(parsed.masked, 0, mention.start) is not None


def _one_value_each(edit: PlanEdit, loose: list[Mention]) -> list[Mention]:
    """``loose`` without values that clash: two new values for one parameter ("<city>,
    <other city>", "<carrier> and <other carrier>") cannot both be meant, and a step takes one."""
    clashing: set[int] = set()
    for n, mention in enumerate(loose):
        for other in loose[n + 1:]:
            a, b = mention.filter, other.filter
            if a is not None and b is not None and same_filter(a, b) and a.value != b.value:
                clashing |= {id(mention), id(other)}
                edit.misses.append(f"it names both {a.describe()} and {b.describe()}, and a step takes one; "
                                   f"say which (e.g. '{b.value} instead of {a.value}')")
    return [m for m in loose if id(m) not in clashing]


def _remove_named_steps(edit: PlanEdit, feedback: str, reading: Reading) -> str:
    """Apply "drop the inspections step", "remove step 2", "remove steps 1 and 2", "drop the
    last step"; return the rest of the text, with what was read blanked out."""
    verbs = re.compile(rf"{phrase_pattern(phrases.REMOVE_VERBS)}\s*", re.IGNORECASE)
    text = feedback
    count = len(edit.steps)

    def blank(start: int, end: int) -> None:
        nonlocal text
        text = text[:start] + " " * (end - start) + text[end:]
        reading.read(start, end)

    doomed: list[int] = []
    for m in list(verbs.finditer(text)):
        named = named_step_indexes(text, m.end(), count)
        if named is None:
            continue
        indexes, end = named
        for n in indexes:
            if not 0 <= n < count:
                raise PlannerError(f"there is no step {n}: the plan has steps 0 to {count - 1}. "
                                   "The plan is unchanged.")
            if edit.steps[n].id in edit.locked:
                raise PlannerError(f"step {n} ({edit.steps[n].tool}) is locked, so it stays. The plan is unchanged.")
            doomed.append(n)
        blank(m.start(), end)
    if doomed:
        # All at once: numbers count in the plan as it was, not after the first removal.
        names = [f"{n} ({edit.steps[n].tool})" for n in sorted(set(doomed))]
        why = f"removed step {names[0]}" if len(names) == 1 else \
            f"removed steps {', '.join(names[:-1])} and {names[-1]}"
        edit.remove_steps({edit.steps[n].id for n in doomed}, why)
    verb_words = phrase_pattern(phrases.REMOVE_VERBS)
    for info in edit.vocab.tools.values():
        pattern = rf"{verb_words}(?:{_ARTICLES}|\s*)(?:{phrase_pattern(info.forms)}){_TAILS}"
        for m in list(re.finditer(pattern, text, re.IGNORECASE)):
            matching = [s for s in edit.steps if s.tool == info.name]
            if not matching:
                continue
            free = {s.id for s in matching if s.id not in edit.locked}
            if not free:
                raise PlannerError(f"every {info.name} step is locked, so none is removed. The plan is unchanged.")
            edit.remove_steps(free, f"removed the {info.name} step" + ("s" if len(free) > 1 else ""))
            blank(m.start(), m.end())
    return text


def _param_nouns(vocab: Vocabulary) -> dict[str, tuple[str, ...]]:
    nouns: dict[str, tuple[str, ...]] = {k: (v,) for k, v in vocab.param_nouns().items()}
    nouns.update(phrases.PARAM_NOUNS)
    nouns.update(vocab.said_param_nouns)
    limits = tuple({t.limit for t in vocab.tools.values() if t.limit})
    if limits:
        nouns["limit"] = limits
    return nouns


def _remove_filters(edit: PlanEdit, parsed: Parsed, used: set[int], reading: Reading) -> list[Filter]:
    """ "no limit", "remove the date filter", "drop the <city> filter", "without rejected",
    "not rejected", "any status", "show all"; return the values named for removal that the
    feedback also gives a new value for ("exclude rejected, only delivered"): those are replaced."""
    verbs = re.compile(rf"{phrase_pattern((*phrases.REMOVE_VERBS, 'not'))}(?:{_ARTICLES}|\s*)", re.IGNORECASE)
    any_words = re.compile(rf"{phrase_pattern(phrases.ANY_WORDS)}\s+", re.IGNORECASE)
    nouns = _param_nouns(edit.vocab)
    noun_re = re.compile(rf"(?:{phrase_pattern(nouns)}){_TAILS}", re.IGNORECASE)
    filters = [m for m in parsed.mentions if m.kind == "filter" and m.filter is not None]
    replaced: list[Filter] = []
    every: list[tuple[int, int]] = []  # "all results", "show all": every row, so no limit
    for m in re.finditer(phrase_pattern(phrases.NO_LIMIT_PHRASES), parsed.text, re.IGNORECASE):
        if not any(x.start < m.end() and m.start() < x.end for x in filters):
            edit.remove_params(set(nouns["limit"]), None, "removed the limit")
            reading.read(*m.span())
            every.append(m.span())
    for m in [*verbs.finditer(parsed.masked), *any_words.finditer(parsed.masked)]:
        if any(s <= m.start() < e for s, e in every):
            continue
        after = m.end()
        noun = noun_re.match(parsed.text, after)
        mention = next((x for x in filters if x.start == after), None)
        if mention is None and m.re is verbs and (place := _PREPOSITION.match(parsed.masked, after)):
            # "not to <city>", "without in <city>": the value after the preposition.
            mention = next((x for x in filters if x.start == place.end()), None)
        if mention is not None and m.re is verbs and id(mention) not in used:
            flt = mention.filter
            assert flt is not None
            used.add(id(mention))
            reading.read(m.start(), mention.end)
            if any(x is not mention and id(x) not in used and same_filter(x.filter, flt) for x in filters):  # type: ignore[arg-type]
                replaced.append(flt)
            elif flt.param == CITY:
                params = {p for t in edit.vocab.tools.values() for p in t.city_params.values()}
                edit.remove_params(params, flt.value, f"removed {flt.value}")
            elif flt.param == DATES:
                params = {p for t in edit.vocab.tools.values() for p in (t.date_from, t.date_to) if p}
                edit.remove_params(params, None, "removed the dates")
            elif flt.param == LIMIT:
                edit.remove_params(set(nouns["limit"]), None, "removed the limit")
            else:
                edit.remove_params({flt.param}, flt.value, f"removed {flt.describe()}")
        elif noun is not None:
            key = re.sub(r"\s+", " ", noun.group()).lower()
            key = re.sub(rf"{_TAILS}$", "", key).strip()
            params = set(nouns.get(key, ()))
            if params:
                edit.remove_params(params, None, f"removed the {key} filter")
                reading.read(m.start(), noun.end())
                for x in parsed.mentions:
                    if noun.start() <= x.start < noun.end():
                        used.add(id(x))
    return replaced


def _read_named_params(vocab: Vocabulary, parsed: Parsed, reading: Reading) -> None:
    """ "change the city to <city>", "set the limit to 20": the noun names what the new value sets."""
    nouns = _param_nouns(vocab)
    given: set[str] = set()
    for m in parsed.mentions:
        if m.kind == "filter" and m.filter is not None:
            for info in vocab.tools.values():
                given.update(accepts(info, m.filter) or {})
            given.update(p for info in vocab.tools.values() for p in info.city_params.values()
                         if m.filter.param == CITY)
    for m in re.finditer(phrase_pattern(nouns), parsed.text, re.IGNORECASE):
        if given & set(nouns[re.sub(r"\s+", " ", m.group().lower())]):
            reading.read(*m.span())


def _old_for(flt: Filter, olds: list[Filter]) -> Filter | None:
    return next((o for o in olds if same_filter(o, flt)), None)

"""Offline re-planning: feedback text read by the same rules as goals, applied to a plan.

Understood: removing steps ("drop the inspections step", "remove step 2") or filters
("no limit", "remove the date filter", "without the Berlin filter"); changing filters
("use Munich instead", "Munich instead of Berlin", "only high risk", "limit 10",
"last month instead"): a filter replaces the same filter where the plan has one, and is
otherwise added to the first step of each chain that takes it (a limit: the last), or
through a new narrowing step (a city for shipments lists facilities first); adding steps
("add inspections", "also their contaminants"). Locked steps are never changed or
removed; only their references are renumbered when steps before them come or go.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from .._errors import PlannerError
from .._plan import Plan, Step
from .._templates import find_references, rewrite_step_indexes
from . import _embedded_phrases as phrases
from ._embedded_build import (Group, Node, build_nodes, make_groups, mark_parallel, nodes_to_steps,
                              ordered_params, reference)
from ._embedded_parse import CITY, DATES, LIMIT, Filter, Mention, Parsed, accepts, parse, phrase_pattern
from ._embedded_vocabulary import Vocabulary

__all__ = ["apply_feedback", "UNDERSTOOD"]

UNDERSTOOD = ("a city ('use Munich instead', 'Munich instead of Berlin'), a status, risk level, "
              "category, facility type, inspection result or carrier ('only high risk'), "
              "'contaminated', 'near capacity', a date phrase ('last month instead'), "
              "'limit 10', removing a step ('drop the inspections step', 'remove step 1') or a "
              "filter ('no limit', 'remove the date filter'), adding a step ('add inspections')")

_ARTICLES = r"(?:\s+(?:the|all|any|those|these|its|their|a|an))*\s+"
_TAILS = r"(?:\s+(?:steps?|filters?|restrictions?|conditions?|lists?|parts?))?"


class _Edit:
    def __init__(self, vocab: Vocabulary, plan: Plan, today: dt.date) -> None:
        self.vocab = vocab
        self.today = today
        self.steps: list[Step] = [s.model_copy(deep=True) for s in plan.steps]
        self.locked = {s.id for s in self.steps if s.locked}
        self.changes: list[str] = []
        self.misses: list[str] = []  # what was understood but could not be done, for the error
        self.structure_changed = False

    # -- helpers ---------------------------------------------------------------------------
    def tools(self) -> list[str]:
        return [s.tool for s in self.steps]

    def plan(self) -> Plan:
        return Plan(steps=self.steps)

    def editable(self, step: Step) -> bool:
        return step.id not in self.locked and step.tool in self.vocab.tools

    def ancestors(self, step_id: str) -> set[str]:
        plan = self.plan()
        seen: set[str] = set()
        todo = [step_id]
        while todo:
            for dep in plan.dependencies_of(todo.pop()):
                if dep not in seen and dep in {s.id for s in self.steps}:
                    seen.add(dep)
                    todo.append(dep)
        return seen

    def new_ids(self, count: int) -> list[str]:
        used = {s.id for s in self.steps}
        numbers = [int(m[1]) for i in used if (m := re.fullmatch(r"s(\d+)", i))]
        start = max(numbers, default=0) + 1
        ids: list[str] = []
        n = start
        while len(ids) < count:
            if f"s{n}" not in used:
                ids.append(f"s{n}")
            n += 1
        return ids

    def renumber(self, mapping: dict[int, int]) -> None:
        for step in self.steps:
            step.params = rewrite_step_indexes(step.params, mapping)

    # -- removing --------------------------------------------------------------------------
    def remove_steps(self, doomed: set[str], why: str) -> None:
        if not doomed:
            return
        old_index = {s.id: n for n, s in enumerate(self.steps)}
        for step in self.steps:
            if step.id in doomed:
                continue
            refs = [r for r in step.references() if 0 <= r.step < len(self.steps)
                    and self.steps[r.step].id in doomed]
            if refs and step.id in self.locked:
                raise PlannerError(f"{why}: step {old_index[step.id]} ({step.tool}) is locked and uses "
                                   f"that step's results; unlock it or keep the step. The plan is unchanged.")
            for param, value in list(step.params.items()):
                gone = [r for r in find_references(value) if 0 <= r.step < len(self.steps)
                        and self.steps[r.step].id in doomed]
                if not gone:
                    continue
                del step.params[param]
                # Hand the removed step's own input on: shipments -> contaminants loses the
                # shipments step, so the contaminants take the facilities it was narrowed to.
                for ref in gone:
                    for upstream in self.steps[ref.step].references():
                        if not 0 <= upstream.step < len(self.steps):
                            continue
                        source = self.steps[upstream.step]
                        link = self.vocab.tools[step.tool].links.get(source.tool) if step.tool in self.vocab.tools else None
                        if source.id not in doomed and link and link not in step.params:
                            step.params[link] = upstream.text
                            step.params = ordered_params(self.vocab, step.tool, step.params)
            step.depends_on = [d for d in step.depends_on if d not in doomed]
        kept = [s for s in self.steps if s.id not in doomed]
        mapping = {old_index[s.id]: n for n, s in enumerate(kept)}
        self.steps = kept
        self.renumber(mapping)
        for step in self.steps:
            wanted = {self.steps[r.step].id for r in step.references() if 0 <= r.step < len(self.steps)}
            for dep in sorted(wanted - set(step.depends_on)):
                if step.id not in self.locked:
                    step.depends_on.append(dep)
        self.structure_changed = True
        self.changes.append(why)

    def remove_params(self, params: set[str], value: Any = None, why: str = "") -> bool:
        done = False
        for step in self.steps:
            if not self.editable(step):
                continue
            for param in params & set(step.params):
                if value is None or step.params[param] == value:
                    del step.params[param]
                    done = True
        if done:
            self.changes.append(why or f"removed {', '.join(sorted(params))}")
        else:
            self.misses.append(f"no unlocked step has {why.replace('removed ', '', 1) or 'that filter'} to remove")
        return done

    # -- filters ---------------------------------------------------------------------------
    def present_params(self, step: Step, flt: Filter) -> list[str]:
        info = self.vocab.tools[step.tool]
        if flt.param == CITY:
            kinds = [flt.kind] if flt.kind == "destination" else ["location", "destination"]
            return [info.city_params[k] for k in kinds if k in info.city_params and info.city_params[k] in step.params]
        wanted = accepts(info, flt) or {}
        return [p for p in wanted if p in step.params]

    def apply_filter(self, flt: Filter, targets: list[Step] | None, old: Filter | None) -> bool:
        editable = [s for s in self.steps if self.editable(s)]
        primary = [s for s in (targets if targets is not None else editable) if self.editable(s)]
        extended = primary if targets is None else [
            s for s in editable if s in primary or any(s.id in self.ancestors(t.id) for t in primary)]

        def matches_old(step: Step, param: str) -> bool:
            if old is None:
                return True
            return step.params.get(param) == _value_of(old, param, step.params.get(param))

        present = [(s, p) for s in extended for p in self.present_params(s, flt) if matches_old(s, p)]
        if targets is not None and any(s in primary for s, _ in present):
            present = [(s, p) for s, p in present if s in primary]
        if old is not None and not present:
            self.misses.append(f"no unlocked step has {old.describe()} to replace")
            return False
        if present:
            for step, param in present:
                if flt.param == CITY:
                    step.params[param] = flt.value
                else:
                    step.params.update({k: v for k, v in (accepts(self.vocab.tools[step.tool], flt) or {}).items()
                                        if k == param or flt.param == DATES})
            self.changes.append(f"set {flt.describe()}")
            return True
        takers = [s for s in primary if accepts(self.vocab.tools[s.tool], flt) is not None]
        if not takers:
            takers = [s for s in extended if accepts(self.vocab.tools[s.tool], flt) is not None]
        if takers:
            chosen = self.ends(takers, last=flt.param == LIMIT)
            for step in chosen:
                step.params.update(accepts(self.vocab.tools[step.tool], flt) or {})
                step.params = ordered_params(self.vocab, step.tool, step.params)
            self.changes.append(f"added {flt.describe()}")
            return True
        if self.narrow(flt, self.ends(primary, last=False)):
            return True
        locked = [s for s in self.steps if s.id in self.locked and accepts(self.vocab.tools[s.tool], flt)]
        self.misses.append(f"no unlocked step takes {flt.describe()}"
                           + (" (the steps that do are locked)" if locked else ""))
        return False

    def ends(self, steps: list[Step], *, last: bool) -> list[Step]:
        """The first step of each chain among ``steps`` (with ``last``, the final one)."""
        ids = {s.id for s in steps}
        out = []
        for step in steps:
            if last:
                if not any(step.id in self.ancestors(o.id) for o in steps if o.id != step.id):
                    out.append(step)
            elif not (self.ancestors(step.id) & ids):
                out.append(step)
        return out

    def narrow(self, flt: Filter, targets: list[Step]) -> bool:
        done = False
        for target in targets:
            info = self.vocab.tools[target.tool]
            for other, param in info.links.items():
                if param in target.params or accepts(self.vocab.tools[other], flt) is None:
                    continue
                at = self.steps.index(target)
                self.renumber({n: n + 1 for n in range(at, len(self.steps))})
                node_params = accepts(self.vocab.tools[other], flt) or {}
                new = Step(id=self.new_ids(1)[0], tool=other,
                           params=ordered_params(self.vocab, other, node_params),
                           note=f"Narrows the {target.tool} step to these {self.vocab.tools[other].entity}.")
                self.steps.insert(at, new)
                target.params[param] = reference(self.vocab, other, at)
                target.params = ordered_params(self.vocab, target.tool, target.params)
                target.depends_on.append(new.id)
                self.structure_changed = True
                done = True
                break
        if done:
            self.changes.append(f"added {flt.describe()} through a narrowing step")
        return done

    # -- adding ----------------------------------------------------------------------------
    def add_groups(self, groups: list[Group]) -> None:
        if not groups:
            return
        nodes: list[Node] = build_nodes(groups, self.vocab, self.tools())
        steps = nodes_to_steps(self.vocab, nodes, self.steps, self.new_ids(len(nodes)))
        self.steps.extend(steps)
        self.structure_changed = True
        self.changes.append("added " + ", ".join(s.tool for s in steps))


def _value_of(old: Filter, param: str, current: Any) -> Any:
    if old.param == CITY:
        return old.value
    if old.param == DATES:
        return current  # any dates match
    return old.value


def apply_feedback(vocab: Vocabulary, plan: Plan, feedback: str, today: dt.date) -> Plan:
    """``plan`` changed as ``feedback`` asks; raises ``PlannerError`` when nothing is understood."""
    edit = _Edit(vocab, plan, today)
    text = _remove_named_steps(edit, feedback)
    parsed = parse(text, vocab, today)
    used: set[int] = set()
    _remove_filters(edit, parsed, used)
    olds = _old_values(parsed, used)
    loose: list[Mention] = []
    groups = make_groups(parsed, vocab, infer=False, loose=loose)
    adding: list[Group] = []
    targeted: list[tuple[list[Mention], str]] = []
    present_tools = {s.tool for s in edit.steps}
    for group in groups:
        kind_only = (group.primary.filter is not None and not group.filters and not group.qualifiers
                     and group.primary.tool not in present_tools)
        if kind_only and not (group.add or group.link):
            # "at landfills": a facility kind narrows the plan rather than adding a list.
            loose.append(Mention("filter", group.primary.start, group.primary.end, filter=group.primary.filter))
        elif group.add or group.link or group.primary.tool not in present_tools:
            adding.append(group)
        else:
            filters = list(group.filters)
            if group.primary.filter is not None:
                filters.append(Mention("filter", group.primary.start, group.primary.end, filter=group.primary.filter))
            targeted.append((filters, group.primary.tool))
            for q in group.qualifiers:
                if q.filter is not None:
                    targeted.append(([Mention("filter", q.start, q.end, filter=q.filter)], q.tool))
    for mention in loose:
        if id(mention) in used or mention.filter is None:
            continue
        edit.apply_filter(mention.filter, None, _old_for(mention.filter, olds))
    for mentions, tool in targeted:
        targets = [s for s in edit.steps if s.tool == tool]
        for mention in mentions:
            if id(mention) in used or mention.filter is None:
                continue
            edit.apply_filter(mention.filter, targets, _old_for(mention.filter, olds))
    for group in adding:
        group.filters = [m for m in group.filters if id(m) not in used]
    edit.add_groups(adding)
    if not edit.changes:
        if edit.misses:
            raise PlannerError(f"nothing in {feedback!r} could be changed: {'; '.join(edit.misses)}. "
                               "The plan is unchanged.")
        raise PlannerError(
            f"the embedded planner found no change it understands in {feedback!r}, so the plan is "
            f"unchanged. It understands: {UNDERSTOOD}.")
    if edit.structure_changed:
        new_plan = Plan(goal=plan.goal, steps=edit.steps, metadata=plan.metadata)
        mark_parallel(new_plan, keep=edit.locked)
        edit.steps = new_plan.steps
    metadata = plan.metadata.model_copy(update={
        "planner": "embedded", "today": today,
        "created_at": dt.datetime.now(dt.timezone.utc).replace(microsecond=0)})
    return Plan(goal=plan.goal, steps=edit.steps, metadata=metadata)


def _remove_named_steps(edit: _Edit, feedback: str) -> str:
    """Apply "drop the inspections step" / "remove step 1"; return the rest of the text."""
    verbs = phrase_pattern(phrases.REMOVE_VERBS)
    text = feedback
    for m in list(re.finditer(rf"{verbs}{_ARTICLES}steps?\s+(?P<n>\d+)\b", text, re.IGNORECASE)):
        n = int(m["n"])
        if not 0 <= n < len(edit.steps):
            raise PlannerError(f"there is no step {n}: the plan has steps 0 to {len(edit.steps) - 1}. "
                               "The plan is unchanged.")
        step = edit.steps[n]
        if step.id in edit.locked:
            raise PlannerError(f"step {n} ({step.tool}) is locked, so it stays. The plan is unchanged.")
        edit.remove_steps({step.id}, f"removed step {n} ({step.tool})")
        text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    for info in edit.vocab.tools.values():
        pattern = rf"{verbs}(?:{_ARTICLES}|\s*)(?:{phrase_pattern(info.forms)}){_TAILS}"
        for m in list(re.finditer(pattern, text, re.IGNORECASE)):
            matching = [s for s in edit.steps if s.tool == info.name]
            if not matching:
                continue
            free = {s.id for s in matching if s.id not in edit.locked}
            if not free:
                raise PlannerError(f"every {info.name} step is locked, so none is removed. The plan is unchanged.")
            edit.remove_steps(free, f"removed the {info.name} step" + ("s" if len(free) > 1 else ""))
            text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    return text


def _param_nouns(vocab: Vocabulary) -> dict[str, tuple[str, ...]]:
    nouns: dict[str, tuple[str, ...]] = {k: (v,) for k, v in vocab.param_nouns().items()}
    nouns.update(phrases.PARAM_NOUNS)
    limits = tuple({t.limit for t in vocab.tools.values() if t.limit})
    if limits:
        nouns["limit"] = limits
    return nouns


def _remove_filters(edit: _Edit, parsed: Parsed, used: set[int]) -> None:
    """"no limit", "remove the date filter", "drop the Berlin filter", "without rejected"."""
    verbs = re.compile(rf"{phrase_pattern(phrases.REMOVE_VERBS)}(?:{_ARTICLES}|\s*)", re.IGNORECASE)
    nouns = _param_nouns(edit.vocab)
    noun_re = re.compile(rf"(?:{phrase_pattern(nouns)}){_TAILS}", re.IGNORECASE)
    for m in verbs.finditer(parsed.masked):
        after = m.end()
        noun = noun_re.match(parsed.text, after)
        mention = next((x for x in parsed.mentions if x.start == after), None)
        if mention is not None and mention.kind == "filter" and mention.filter is not None:
            flt = mention.filter
            if flt.param == CITY:
                params = {p for t in edit.vocab.tools.values() for p in t.city_params.values()}
                edit.remove_params(params, flt.value, f"removed {flt.value}")
            elif flt.param == DATES:
                params = {p for t in edit.vocab.tools.values() for p in (t.date_from, t.date_to) if p}
                edit.remove_params(params, None, "removed the dates")
            elif flt.param == LIMIT:
                edit.remove_params({"limit"}, None, "removed the limit")
            else:
                edit.remove_params({flt.param}, flt.value, f"removed {flt.describe()}")
            used.add(id(mention))
        elif noun is not None:
            key = re.sub(r"\s+", " ", noun.group(1) if noun.lastindex else noun.group()).lower()
            key = re.sub(rf"{_TAILS}$", "", key).strip()
            params = set(nouns.get(key, ()))
            if params:
                edit.remove_params(params, None, f"removed the {key} filter")
                for x in parsed.mentions:
                    if noun.start() <= x.start < noun.end():
                        used.add(id(x))


def _old_values(parsed: Parsed, used: set[int]) -> list[Filter]:
    """Values named as the ones to replace: "instead of Berlin", "replace Berlin with Munich"."""
    olds: list[Filter] = []
    cues = [m.end() for m in re.finditer(r"\binstead\s+of\s+", parsed.masked, re.IGNORECASE)]
    for m in re.finditer(r"\b(?:replace|change|swap|switch)\s+(?:the\s+)?", parsed.masked, re.IGNORECASE):
        rest = parsed.masked[m.end():]
        if re.search(r"\s(?:with|to|for|by)\s", rest):
            cues.append(m.end())
    for at in cues:
        mention = next((x for x in parsed.mentions if x.start >= at and x.kind == "filter"), None)
        if mention is not None and mention.filter is not None and parsed.masked[at:mention.start].strip() in ("", "the"):
            olds.append(mention.filter)
            used.add(id(mention))
    return olds


def _old_for(flt: Filter, olds: list[Filter]) -> Filter | None:
    return next((o for o in olds if o.param == flt.param), None)

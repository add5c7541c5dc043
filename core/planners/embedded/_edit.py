"""Changes to a copy of a plan that re-plan feedback asks for: steps removed, kept, replaced
or added, filters removed, replaced or added (through a narrowing step where the step has no
parameter for them). Locked steps are never changed or removed; references name steps by id, so
nothing is renumbered when steps come or go. What cannot be done is noted in ``misses``,
what was done in ``changes``, so the caller can refuse the whole edit and say why.

Steps are values (``docs/decisions/0003-the-plan-is-a-value.md``): the edit keeps a list of the
plan's steps and puts a new step in a step's place (``update``) for each change, so it shares
the given plan's steps instead of copying them deeply, and never changes them. A step read
before a change is stale after it: code that changes one step twice reads it again by id.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Iterable

from ..._errors import PlannerError
from ...plan._model import Plan, Step
from ...plan._references import find_references, renamed_steps
from ...formats._seed import seed_step_ids
from ._build import Node, build_nodes, make_groups, nodes_to_steps, ordered_params, reference
from ._group import Group
from ._parse import CITY, DATES, LIMIT, Filter, accepts, parse
from ._vocabulary import Vocabulary, out_of_bounds

__all__ = ["PlanEdit"]


class PlanEdit:
    """A copy of a plan's steps being changed, with what was done and what could not be."""

    def __init__(self, vocab: Vocabulary, plan: Plan, today: dt.date) -> None:
        self.vocab = vocab
        self.today = today
        self.goal = plan.goal
        self.goal_today = plan.metadata.today  # what the goal's date phrases were read against
        self.original = {s.id: (s.tool, s.params) for s in plan.steps}
        self.steps: list[Step] = list(plan.steps)
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
        numbers = [int(m[1]) for i in used if (m := re.fullmatch(r"s(\d{1,9})", i))]
        start = max(numbers, default=0) + 1
        ids: list[str] = []
        n = start
        while len(ids) < count:
            if f"s{n}" not in used:
                ids.append(f"s{n}")
            n += 1
        return ids

    def out_of_bounds(self, said: str) -> str | None:
        """Why a number the edit put in a step is outside its tool's schema, or ``None``."""
        for step in self.steps:
            if not self.editable(step):
                continue
            tool, before = self.original.get(step.id, (None, {}))
            changed = {k: v for k, v in step.params.items()
                       if tool != step.tool or k not in before or before[k] != v}
            problem = out_of_bounds(self.vocab.tools[step.tool], changed, said)
            if problem is not None:
                return problem
        return None

    def by_id(self, step_id: str) -> Step | None:
        return next((s for s in self.steps if s.id == step_id), None)

    def update(self, step_id: str, **changes: Any) -> None:
        """Put the step ``step_id`` with ``changes`` in its place (nothing, if it is gone)."""
        for n, step in enumerate(self.steps):
            if step.id == step_id:
                self.steps[n] = step.model_copy(update=changes)
                return

    # -- removing --------------------------------------------------------------------------
    def remove_steps(self, doomed: set[str], why: str) -> None:
        if not doomed:
            return
        old_index = {s.id: n for n, s in enumerate(self.steps)}
        for step in list(self.steps):
            if step.id in doomed:
                continue
            refs = [r for r in step.references() if r.step in doomed]
            if refs and step.id in self.locked:
                raise PlannerError(f"cannot {why.replace('removed', 'remove', 1)}: step {old_index[step.id]} ({step.tool}) is locked and "
                                   f"uses the rows of a step that would go; unlock it or keep the step. "
                                   "The plan is unchanged.")
            params = dict(step.params)
            for param, value in step.params.items():
                gone = [r for r in find_references(value) if r.step in doomed]
                if not gone:
                    continue
                del params[param]
                # Hand the removed step's own input on: shipments -> contaminants loses the
                # shipments step, so the contaminants take the facilities it was narrowed to.
                for ref in gone:
                    for upstream in self.by_id(ref.step).references():  # type: ignore[union-attr]
                        source = self.by_id(upstream.step)
                        if source is None:
                            continue
                        link = self.vocab.tools[step.tool].links.get(source.tool) if step.tool in self.vocab.tools else None
                        if source.id not in doomed and link and link not in params:
                            params[link] = upstream.text
                            params = ordered_params(self.vocab, step.tool, params)
            self.update(step.id, params=params, depends_on=[d for d in step.depends_on if d not in doomed])
        self.steps = [s for s in self.steps if s.id not in doomed]
        present = {s.id for s in self.steps}
        for step in list(self.steps):
            wanted = {r.step for r in step.references()} & present
            missing = sorted(wanted - set(step.depends_on))
            if missing and step.id not in self.locked:
                self.update(step.id, depends_on=[*step.depends_on, *missing])
        self.structure_changed = True
        self.changes.append(why)

    def remove_params(self, params: set[str], value: Any = None, why: str = "") -> bool:
        done = False
        for step in list(self.steps):
            if not self.editable(step):
                continue
            gone = {p for p in params & set(step.params) if value is None or step.params[p] == value}
            if gone:
                self.update(step.id, params={k: v for k, v in step.params.items() if k not in gone})
                done = True
        if done:
            self.changes.append(why or f"removed {', '.join(sorted(params))}")
            return True
        what = why.replace("removed ", "", 1) or "that filter"
        holders = [s for s in self.steps if s.id in self.locked
                   and any(value is None or s.params[p] == value for p in params & set(s.params))]
        self.misses.append(f"no unlocked step has {what} to remove" + self.locked_note(holders, params))
        return False

    def locked_note(self, steps: list[Step], params: Iterable[str]) -> str:
        """ "; step 0 (facilities_list) has location=<city> but is locked", for error messages."""
        if not steps:
            return ""
        said = []
        for step in steps:
            values = ", ".join(f"{p}={step.params[p]}" for p in sorted(set(params) & set(step.params)))
            said.append(f"step {self.steps.index(step)} ({step.tool}) "
                        + (f"has {values}" if values else "would take it"))
        return f"; {' and '.join(said)} but {'they are' if len(steps) > 1 else 'is'} locked"

    def keep_only(self, tools: set[str]) -> None:
        """Remove every step that is neither of ``tools`` nor needed by one that is."""
        kept = {s.id for s in self.steps if s.tool in tools}
        for step_id in list(kept):
            kept |= self.ancestors(step_id)
        doomed = [s for s in self.steps if s.id not in kept]
        if not doomed:
            self.misses.append(f"every step of the plan is a {' or '.join(sorted(tools))} step or "
                               "needed by one, so none can go")
            return
        locked = [s for s in doomed if s.id in self.locked]
        if locked:
            self.misses.append(f"keeping only {', '.join(sorted(tools))} would remove "
                               + " and ".join(f"step {self.steps.index(s)} ({s.tool})" for s in locked)
                               + (", which is locked" if len(locked) == 1 else ", which are locked"))
            return
        names = " and ".join(f"{self.steps.index(s)} ({s.tool})" for s in doomed)
        self.remove_steps({s.id for s in doomed}, f"kept only {', '.join(sorted(tools))}: removed step"
                          f"{'s' if len(doomed) > 1 else ''} {names}")

    # -- filters ---------------------------------------------------------------------------
    def filter_params(self, flt: Filter) -> set[str]:
        """Every parameter name ``flt`` may set, on any tool."""
        names: set[str] = set()
        for info in self.vocab.tools.values():
            names.update(info.city_params.values() if flt.param == CITY else (accepts(info, flt) or {}))
        return names

    def present_params(self, step: Step, flt: Filter) -> list[str]:
        info = self.vocab.tools[step.tool]
        if flt.param == CITY:
            kinds = [flt.kind] if flt.kind == "destination" else ["location", "destination"]
            return [info.city_params[k] for k in kinds if k in info.city_params and info.city_params[k] in step.params]
        wanted = accepts(info, flt) or {}
        return [p for p in wanted if p in step.params]

    def apply_filter(self, flt: Filter, targets: list[Step] | None, old: Filter | None) -> bool:
        if targets is not None:  # as they are now: an earlier filter may have changed them
            targets = [self.by_id(s.id) or s for s in targets]
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
            holders = [s for s in self.steps if s.id in self.locked and s.tool in self.vocab.tools
                       and any(matches_old(s, p) for p in self.present_params(s, flt))]
            self.misses.append(f"no unlocked step has {old.describe()} to replace"
                               + self.locked_note(holders, self.filter_params(flt)))
            return False
        held = [s for s in self.steps if s.id in self.locked and s.tool in self.vocab.tools
                and self.present_params(s, flt)]
        if not present and targets is None and held:
            # Only a locked step has this filter, so the new value would replace it there.
            self.misses.append(f"no unlocked step takes {flt.describe()}"
                               + self.locked_note(held, self.filter_params(flt)))
            return False
        if present:
            for step, param in present:
                step = self.by_id(step.id) or step
                if flt.param == CITY:
                    self.update(step.id, params={**step.params, param: flt.value})
                else:
                    self.update(step.id, params={**step.params, **{
                        k: v for k, v in (accepts(self.vocab.tools[step.tool], flt) or {}).items()
                        if k == param or flt.param == DATES}})
            self.changes.append(f"set {flt.describe()}")
            return True
        takers = [s for s in primary if accepts(self.vocab.tools[s.tool], flt) is not None]
        if not takers:
            takers = [s for s in extended if accepts(self.vocab.tools[s.tool], flt) is not None]
        if takers:
            chosen = self.ends(takers, last=flt.param == LIMIT)
            for step in chosen:
                step = self.by_id(step.id) or step
                added = {**step.params, **(accepts(self.vocab.tools[step.tool], flt) or {})}
                self.update(step.id, params=ordered_params(self.vocab, step.tool, added))
            self.changes.append(f"added {flt.describe()}")
            return True
        if self.narrow(flt, self.ends(primary, last=False)):
            return True
        locked = [s for s in self.steps if s.id in self.locked and s.tool in self.vocab.tools
                  and accepts(self.vocab.tools[s.tool], flt)]
        holders = [s for s in locked if self.present_params(s, flt)] or locked
        self.misses.append(f"no unlocked step takes {flt.describe()}"
                           + self.locked_note(holders, self.filter_params(flt)))
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
                node_params = accepts(self.vocab.tools[other], flt) or {}
                new = Step(id=self.new_ids(1)[0], tool=other,
                           params=ordered_params(self.vocab, other, node_params),
                           note=f"Narrows the {target.tool} step to these {self.vocab.tools[other].entity}.")
                self.steps.insert(at, new)
                narrowed = {**target.params, param: reference(self.vocab, other, new.id)}
                self.update(target.id, params=ordered_params(self.vocab, target.tool, narrowed),
                            depends_on=[*target.depends_on, new.id])
                self.structure_changed = True
                done = True
                break
        if done:
            self.changes.append(f"added {flt.describe()} through a narrowing step")
        return done

    # -- replacing -------------------------------------------------------------------------
    def replace_tool(self, old: str, new: str) -> bool:
        """Every ``old`` step lists ``new`` instead, keeping its id and the parameters ``new`` takes."""
        info = self.vocab.tools[new]
        done = False
        for n, step in enumerate(self.steps):
            if step.tool != old:
                continue
            if step.id in self.locked:
                self.misses.append(f"listing {info.entity} instead would change step {n} ({old}), which is locked")
                continue
            users = [f"step {k} ({o.tool})" for k, o in enumerate(self.steps)
                     if any(r.step == step.id for r in o.references())]
            if users:
                self.misses.append(f"step {n} ({old}) cannot list {info.entity} instead: "
                                   f"{' and '.join(users)} uses its rows")
                continue
            kept: dict[str, Any] = {}
            dropped: list[str] = []
            for param, value in step.params.items():
                refs = find_references(value)
                linked = all((source := self.by_id(r.step)) is not None and info.links.get(source.tool) == param
                             for r in refs)
                fits = param in info.params and (param not in info.enums or value in info.enums[param])
                if fits and linked:
                    kept[param] = value
                else:
                    dropped.append(f"{param}={value}")
            still = {r.step for r in find_references(kept)}
            was = {r.step for r in step.references()}
            self.steps[n] = step.model_copy(update={
                "depends_on": [d for d in step.depends_on if d in still or d not in was],
                "tool": new, "params": ordered_params(self.vocab, new, kept), "note": None})
            self.structure_changed = True
            self.changes.append(f"step {n} lists {new} instead of {old}"
                                + (f" (without {', '.join(dropped)}, which {new} does not take)" if dropped else ""))
            done = True
        return done

    # -- adding ----------------------------------------------------------------------------
    def add_groups(self, groups: list[Group]) -> None:
        if not groups:
            return
        nodes: list[Node] = build_nodes(groups, self.vocab, self.tools())
        for group in groups:
            node = next((n for n in nodes if n.mention is group.primary), None)
            if group.link and node is not None and not node.refs:
                info = self.vocab.tools[node.tool]
                wanted = " or ".join(self.vocab.tools[t].entity for t in info.links) or "nothing"
                self.misses.append(f"'their {info.entity}' needs an earlier step listing {wanted}, "
                                   f"whose ids {node.tool} takes, and the plan has none")
                return
        steps = nodes_to_steps(self.vocab, nodes, self.steps, self.new_ids(len(nodes)))
        for group in groups:
            at = next((k for k, n in enumerate(nodes) if n.mention is group.primary), None)
            if at is not None and not (group.link or group.qualifiers or nodes[at].refs or nodes[at].after):
                steps[at] = self.as_the_goal_plans(steps[at], {p for f in group.filters if f.filter is not None
                                                   for p in accepts(self.vocab.tools[steps[at].tool], f.filter) or {}})
        for step in steps:
            same = next((n for n, old in enumerate(self.steps) if (old.tool, old.params) == (step.tool, step.params)),
                        None)
            if same is not None:
                self.misses.append(f"step {same} ({step.tool}) lists those already")
                return
        self.steps.extend(steps)
        self.structure_changed = True
        self.changes.append("added " + ", ".join(s.tool for s in steps))

    def as_the_goal_plans(self, step: Step, said: set[str]) -> Step:
        """Link and filter a step added back ("add inspections" after "drop the inspections
        step") as the plan's goal has it: if planning the goal gives a step of the same tool
        that the plan has lost, ``step`` takes its references, to the steps of the plan that
        are still there, and its filters, except the parameters the feedback set (``said``).

        Steps are matched by id and tool: ids are stable across re-plans, and the embedded
        planner numbers a goal's steps the same way each time.
        """
        planned = self._goal_steps()
        present = {s.id: n for n, s in enumerate(self.steps)}
        lost = [s for s in planned if s.tool == step.tool and s.id not in present]
        if not lost:
            return step
        model = lost[0]
        planned_by_id = {s.id: s for s in planned}
        names: dict[str, str] = {}  # a goal step's id → the id of the plan's step it is
        for ref in model.references():
            target = planned_by_id.get(ref.step)
            if target is None:
                continue
            at = present.get(target.id)
            if at is None or self.steps[at].tool != target.tool:
                return step  # what it was linked to is gone or another list now: plan it as said
            names[ref.step] = self.steps[at].id
        params = {k: v for k, v in renamed_steps(model.params, names).items() if k not in said}
        return step.model_copy(update={
            "params": ordered_params(self.vocab, step.tool, {**params, **step.params}),
            "depends_on": sorted({*step.depends_on, *names.values()}, key=lambda i: present.get(i, len(present)))})

    def _goal_steps(self) -> list[Step]:
        """The steps planning the plan's goal afresh gives (none when it cannot be planned)."""
        try:
            parsed = parse(self.goal, self.vocab, self.goal_today)
            groups = make_groups(parsed, self.vocab)
            nodes = build_nodes(groups, self.vocab)
            return nodes_to_steps(self.vocab, nodes, [], seed_step_ids(len(nodes)))
        except PlannerError:
            return []


def _value_of(old: Filter, param: str, current: Any) -> Any:
    if old.param == CITY:
        return old.value
    if old.param == DATES:
        return current  # any dates match
    return old.value

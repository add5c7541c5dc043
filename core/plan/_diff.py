"""What changed between two versions of a plan, step by step and param by param.

Steps are matched by id first: edits keep ids, so two versions of one plan match exactly.
A re-plan by a model may give its steps new ids, so the steps left over are matched in two
more passes, in plan order: first a step with the same tool and the same params (the same
step under a new id), then a step with the same tool (the same step with changed params).
What is left is added or removed. Without ``match_new_ids`` only the first pass runs: a
review's decisions (``core.storage.step_decisions``) answer the agent by the ids it sent, so
a step under a new id is the reviewer's own, never one of the agent's edited. References
are compared by the step they name, not by position, so a step inserted or deleted early
does not make every later reference look changed.

Steps are named by their id in the new plan; a removed step by its id in the old one (the
editor draws it ghosted), which cannot clash, as a removed step's id is not in the new plan
unless it was matched. In words (``summary``) a step is named by its label (``step_label``:
tool and note or short id), never by position, which the edits being reported move.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from ._model import Plan, Step
from ._labels import step_label
from ._references import renamed_steps

__all__ = ["PlanDiff", "StepChange", "ParamChange", "FieldChange", "EdgeChange", "diff_plans"]

# Step fields compared besides params; depends_on is compared by the steps it names.
_FIELDS = ("tool", "note", "locked", "ask_first", "parallel", "result_key", "format_data")


@dataclass(frozen=True)
class ParamChange:
    name: str
    change: Literal["added", "removed", "changed"]
    old: Any = None
    new: Any = None

    def __str__(self) -> str:
        if self.change == "added":
            return f"{self.name} set to {_show(self.new)}"
        if self.change == "removed":
            return f"{self.name} removed (was {_show(self.old)})"
        return f"{self.name}: {_show(self.old)} → {_show(self.new)}"


@dataclass(frozen=True)
class FieldChange:
    name: str
    old: Any
    new: Any

    def __str__(self) -> str:
        return f"{self.name}: {_show(self.old)} → {_show(self.new)}"


@dataclass(frozen=True)
class StepChange:
    """A step in both versions that differs. ``matched_by`` says how the two were paired:
    ``id``, ``content`` (same tool and params under a new id) or ``tool``."""

    old_id: str
    new_id: str
    params: tuple[ParamChange, ...] = ()
    fields: tuple[FieldChange, ...] = ()
    moved: bool = False
    matched_by: Literal["id", "content", "tool"] = "id"

    @property
    def note_changed(self) -> bool:
        return any(f.name == "note" for f in self.fields)

    @property
    def lock_changed(self) -> bool:
        return any(f.name == "locked" for f in self.fields)

    def describe(self) -> str:
        parts = [str(p) for p in self.params] + [str(f) for f in self.fields]
        if self.moved:
            parts.append("moved")
        return "; ".join(parts)


@dataclass(frozen=True)
class EdgeChange:
    """An edge (``to`` needs ``from``) only one version has."""

    from_id: str
    to_id: str
    change: Literal["added", "removed"]


@dataclass
class PlanDiff:
    old: Plan
    new: Plan
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[StepChange] = field(default_factory=list)
    edges: list[EdgeChange] = field(default_factory=list)
    goal: tuple[str, str] | None = None
    matches: dict[str, str] = field(default_factory=dict)  # old id → new id

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.edges or self.goal)

    def changed_step_ids(self) -> set[str]:
        """Ids in the new plan of the steps added or changed: the editor's "changed since
        the approved version" marks."""
        return set(self.added) | {c.new_id for c in self.changed}

    def step_change(self, new_id: str) -> StepChange | None:
        return next((c for c in self.changed if c.new_id == new_id), None)

    def summary(self) -> str:
        """The changes in words, one line each, added and changed steps named as in the new
        plan and removed ones as in the old."""
        if self.is_empty:
            return "no changes"
        counts = [f"{len(items)} {word}" for items, word in ((self.added, "added"), (self.removed, "removed"),
                                                            (self.changed, "changed")) if items]
        lines = [", ".join(counts) or "steps unchanged"]
        if self.goal:
            lines.append(f"goal: {_show(self.goal[0])} → {_show(self.goal[1])}")
        lines += [f"+ {step_label(self.new.step(i))}" for i in self.added]
        lines += [f"- {step_label(self.old.step(i))}" for i in self.removed]
        lines += [f"~ {step_label(self.new.step(c.new_id))}: {c.describe()}" for c in self.changed]
        for edge in self.edges:
            sign = "+" if edge.change == "added" else "-"
            lines.append(f"{sign} edge {self._name(edge.from_id)} → {self._name(edge.to_id)}")
        return "\n".join(lines)

    def _name(self, step_id: str) -> str:
        if any(s.id == step_id for s in self.new.steps):
            return step_label(self.new.step(step_id))
        return step_label(self.old.step(step_id)) + " (removed)"


def _show(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width - 1] + "…"


def _canonical(step: Step, names: Mapping[str, str]) -> dict[str, Any]:
    """``step``'s params with references to old steps named as the steps they were paired with."""
    return renamed_steps(step.params, names) if names else step.params


def diff_plans(old: Plan, new: Plan, *, match_new_ids: bool = True) -> PlanDiff:
    """What changed from ``old`` to ``new`` (see the module docstring for how steps are paired;
    ``match_new_ids=False`` pairs steps by id only)."""
    new_ids = {s.id for s in new.steps}
    matches: dict[str, str] = {}
    how: dict[str, Literal["id", "content", "tool"]] = {}
    for step in old.steps:
        if step.id in new_ids:
            matches[step.id] = step.id
            how[step.id] = "id"

    def renames() -> dict[str, str]:
        return {o: n for o, n in matches.items() if o != n}

    same: dict[str, str] = {}
    for kind in ("content", "tool") if match_new_ids else ():
        taken = set(matches.values())
        for step in new.steps:
            if step.id in taken:
                continue
            names = renames()
            for candidate in old.steps:
                if candidate.id in matches or candidate.tool != step.tool:
                    continue
                if kind == "tool" or _canonical(candidate, names) == _canonical(step, same):
                    matches[candidate.id] = step.id
                    how[candidate.id] = kind  # type: ignore[assignment]
                    taken.add(step.id)
                    break

    names = renames()
    new_by_id = {s.id: s for s in new.steps}
    moved = _moved(old, new, matches)
    changed = []
    for step in old.steps:
        if step.id not in matches:
            continue
        other = new_by_id[matches[step.id]]
        params = _param_changes(_canonical(step, names), other.params, step.params, other.params)
        fields = [FieldChange(name, getattr(step, name), getattr(other, name))
                  for name in _FIELDS if getattr(step, name) != getattr(other, name)]
        was = sorted(matches.get(d, f"-{d}") for d in step.depends_on)
        if was != sorted(other.depends_on):
            fields.append(FieldChange("depends_on", list(step.depends_on), list(other.depends_on)))
        if params or fields or other.id in moved:
            changed.append(StepChange(step.id, other.id, tuple(params), tuple(fields), other.id in moved, how[step.id]))

    before = [(matches.get(a, a), matches.get(b, b)) for a, b in old.edges()]
    after = new.edges()
    had, has = set(before), set(after)
    edges = [EdgeChange(a, b, "added") for a, b in after if (a, b) not in had]
    edges += [EdgeChange(a, b, "removed") for a, b in before if (a, b) not in has]
    matched_new = set(matches.values())
    return PlanDiff(
        old=old, new=new,
        added=[s.id for s in new.steps if s.id not in matched_new],
        removed=[s.id for s in old.steps if s.id not in matches],
        changed=changed, edges=edges,
        goal=(old.goal, new.goal) if old.goal != new.goal else None,
        matches=matches)


def _param_changes(old: dict[str, Any], new: dict[str, Any], old_shown: dict[str, Any],
                   new_shown: dict[str, Any]) -> list[ParamChange]:
    """Compared in canonical form (references by step), shown as written."""
    out = []
    for name in [*old, *(n for n in new if n not in old)]:
        if name not in new:
            out.append(ParamChange(name, "removed", old=old_shown[name]))
        elif name not in old:
            out.append(ParamChange(name, "added", new=new_shown[name]))
        elif old[name] != new[name] or type(old[name]) is not type(new[name]):
            out.append(ParamChange(name, "changed", old=old_shown[name], new=new_shown[name]))
    return out


def _moved(old: Plan, new: Plan, matches: dict[str, str]) -> set[str]:
    """New ids of the matched steps whose order among the matched changed: those outside a
    longest run that kept its order, so moving one step marks one step."""
    position = {s.id: n for n, s in enumerate(new.steps)}
    sequence = [(position[matches[s.id]], matches[s.id]) for s in old.steps if s.id in matches]
    # Longest increasing subsequence (patience sorting), keeping the chosen members.
    tails: list[int] = []
    tail_at: list[int] = []
    parent: list[int] = [-1] * len(sequence)
    for i, (value, _id) in enumerate(sequence):
        k = bisect.bisect_left(tails, value)
        if k == len(tails):
            tails.append(value)
            tail_at.append(i)
        else:
            tails[k] = value
            tail_at[k] = i
        parent[i] = tail_at[k - 1] if k else -1
    kept: set[str] = set()
    i = tail_at[-1] if tail_at else -1
    while i >= 0:
        kept.add(sequence[i][1])
        i = parent[i]
    return {new_id for _pos, new_id in sequence if new_id not in kept}

"""What every plan edit shares: finding a step by id, building the edited plan, and keeping
positional references on their steps when positions change.

Edits never change a plan in place: each returns a new ``Plan`` (built through the model, so
its bounds and unique ids are checked) and shares the untouched steps with the old one, so a
history of plans stays cheap and the old plans stay as they were.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator, Sequence

from ._errors import EditRefused
from ._plan import Plan, Step
from ._templates import referenced_step_indexes, rewrite_step_indexes


def index_of(plan: Plan, step_id: str) -> int:
    """Where step ``step_id`` is; ``EditRefused`` when the plan has no such step."""
    for n, step in enumerate(plan.steps):
        if step.id == step_id:
            return n
    raise EditRefused(f"this plan has no step with id {step_id!r}", step_ids=[step_id])


def rebuilt(plan: Plan, steps: Sequence[Step]) -> Plan:
    return Plan(goal=plan.goal, steps=list(steps), metadata=plan.metadata)


def with_step(plan: Plan, index: int, **changes: Any) -> Plan:
    """``plan`` with the step at ``index`` changed; positions do not move."""
    steps = list(plan.steps)
    steps[index] = steps[index].model_copy(update=changes)
    return rebuilt(plan, steps)


class _Renumber(Mapping[int, int]):
    """Old position to new position for ``rewrite_step_indexes``. An index past the old
    plan's end (a reference the validator already reports as dangling) moves with the end,
    so it stays dangling instead of landing on a step that was added."""

    def __init__(self, moved: dict[int, int], old_len: int, new_len: int) -> None:
        self._moved, self._old_len, self._new_len = moved, old_len, new_len

    def __getitem__(self, index: int) -> int:
        if index in self._moved:
            return self._moved[index]
        if index >= self._old_len:
            return index - self._old_len + self._new_len
        raise KeyError(index)

    def __iter__(self) -> Iterator[int]:
        return iter(self._moved)

    def __len__(self) -> int:
        return len(self._moved)


def reordered(plan: Plan, steps: Sequence[Step]) -> Plan:
    """``plan`` with ``steps`` (some of its steps, in any order, plus new ones) and every
    reference renumbered so it names the same step id as before.

    A reference to a step that is not kept would silently name another step; callers
    remove those first, and any left over here is moved past the end (dangling, reported
    by the validator) rather than retargeted.
    """
    new_position = {s.id: n for n, s in enumerate(steps)}
    moved: dict[int, int] = {}
    gone = 0
    for old, step in enumerate(plan.steps):
        if step.id in new_position:
            moved[old] = new_position[step.id]
        else:
            moved[old] = len(steps) + gone  # see the docstring: never onto a real step
            gone += 1
    mapping = _Renumber(moved, len(plan.steps), len(steps) + gone)
    if all(old == new for old, new in moved.items()) and len(steps) == len(plan.steps):
        return rebuilt(plan, steps)
    out = []
    for step in steps:
        if referenced_step_indexes(step.params):
            step = step.model_copy(update={"params": rewrite_step_indexes(step.params, mapping)})
        out.append(step)
    return rebuilt(plan, out)


def referencing_params(step: Step, index: int) -> list[str]:
    """The names of ``step``'s params that hold a reference to the step at ``index``."""
    return [name for name, value in step.params.items() if index in referenced_step_indexes(value)]


def needs(plan: Plan) -> dict[str, set[str]]:
    """For each step id, the ids of the steps it needs (``depends_on`` and references),
    malformed references included; unknown ids and positions are left out."""
    ids = [s.id for s in plan.steps]
    known = set(ids)
    out: dict[str, set[str]] = {}
    for step in plan.steps:
        wanted = {d for d in step.depends_on if d in known}
        wanted |= {ids[i] for i in referenced_step_indexes(step.params) if i < len(ids)}
        wanted.discard(step.id)
        out[step.id] = wanted
    return out


def path_between(plan: Plan, start: str, goal: str, extra: tuple[str, str] | None = None) -> list[str] | None:
    """A shortest chain of steps from ``start`` to ``goal`` where each feeds the next
    (``goal`` needs ... needs ``start``), with the edge ``extra`` (from, to) added; ``None``
    when there is none."""
    feeds: dict[str, list[str]] = {s.id: [] for s in plan.steps}
    position = {s.id: n for n, s in enumerate(plan.steps)}
    for step_id, wanted in needs(plan).items():
        for source in sorted(wanted, key=position.__getitem__):
            feeds[source].append(step_id)
    if extra is not None:
        feeds.setdefault(extra[0], []).append(extra[1])
    parent = {start: start}
    queue = [start]
    for node in queue:
        for nxt in feeds.get(node, []):
            if nxt in parent:
                continue
            parent[nxt] = node
            if nxt == goal:
                chain = [goal]
                while chain[-1] != start:
                    chain.append(parent[chain[-1]])
                return chain[::-1]
            queue.append(nxt)
    return None


def chain_text(plan: Plan, chain: Sequence[str]) -> str:
    return " → ".join(plan.label(i) for i in chain)

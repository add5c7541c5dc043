"""What every plan edit shares: finding a step by id, building the edited plan, and which
params of a step read another.

References name their step by id (``core.plan._references``), so an edit that adds, deletes or
moves steps touches no other step's params: there is nothing to renumber.

Edits never change a plan in place: each returns a new ``Plan`` (built through the model, so
its bounds and unique ids are checked) and shares the untouched steps with the old one, so a
history of plans stays cheap and the old plans stay as they were.
"""

from __future__ import annotations

from typing import Any, Sequence

from .._errors import EditRefused
from ..plan._model import Plan, Step
from ..plan._references import referenced_step_ids


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


def referencing_params(step: Step, source_id: str) -> list[str]:
    """The names of ``step``'s params that hold a reference to step ``source_id``."""
    return [name for name, value in step.params.items() if source_id in referenced_step_ids(value)]


def needs(plan: Plan) -> dict[str, set[str]]:
    """For each step id, the ids of the steps it needs (``depends_on`` and references),
    malformed references included; unknown ids are left out."""
    known = {s.id for s in plan.steps}
    out: dict[str, set[str]] = {}
    for step in plan.steps:
        wanted = {d for d in step.depends_on if d in known}
        wanted |= referenced_step_ids(step.params) & known
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

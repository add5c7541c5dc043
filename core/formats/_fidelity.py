"""What an export dropped: the plan compared with what its exported text reads back as.

Every format that can both write and read a plan is held to the same measure: whatever the
text, read back by the same format, does not give back is named (which field, which steps),
so no export can lose data without saying so, and a format that learns to hold more needs no
list of its own kept in step. Steps are compared by position (every format keeps the order);
dependencies as the steps each step needs (written, or implied by a reference), as a
dependency a reference implies need not be written twice.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ..plan._model import Plan, Step
from ..plan._references import renamed_steps

__all__ = ["dropped_in_round_trip", "step_list"]

_MAX_NAMED = 8  # steps named in one notice before "and N more"


def step_list(indexes: list[int]) -> str:
    """``step 3`` / ``steps 0, 2 and 5`` / ``steps 0, 1, … and 12 more``."""
    if len(indexes) == 1:
        return f"step {indexes[0]}"
    shown = [str(n) for n in indexes[:_MAX_NAMED]]
    if len(indexes) > _MAX_NAMED:
        return f"steps {', '.join(shown)} and {len(indexes) - _MAX_NAMED} more"
    return f"steps {', '.join(shown[:-1])} and {shown[-1]}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def _same(a: Any, b: Any) -> bool:
    # As JSON, not as Python: True == 1 and 1 == 1.0 in Python, but a tool gets another value.
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _needs(plan: Plan) -> list[set[int]]:
    index = {s.id: n for n, s in enumerate(plan.steps)}
    needs: list[set[int]] = [set() for _ in plan.steps]
    for before, after in plan.edges():  # one pass: asking each step for its own costs n²
        needs[index[after]].add(index[before])
    return needs


# Step fields compared one to one: field -> how a notice names it.
_FIELDS: dict[str, str] = {
    "tool": "tool names", "parallel": "parallel flags", "note": "notes", "locked": "locks", "ask_first": "ask-first marks",
    "result_key": "result keys", "format_data": "format data",
}


def dropped_in_round_trip(plan: Plan, back: Plan, *, holds_metadata: bool = True) -> list[str]:
    """What ``back`` (the plan read again from its export) lacks or changed, one notice per
    kind of loss; empty when nothing was lost. A format that has no place for metadata loses
    all of it, even where the defaults it reads back happen to match (today's date)."""
    notices: list[str] = []
    if back.goal != plan.goal:
        notices.append("the goal" if not back.goal else f"the goal (read back as {_short(back.goal)})")
    before, after = plan.metadata.model_dump(mode="json"), back.metadata.model_dump(mode="json")
    lost = [k for k in before if k not in after or not _same(before[k], after[k])]
    added = [k for k in after if k not in before]
    if not holds_metadata:
        notices.append("metadata (" + ", ".join(before) + ")")
    elif lost or added:
        notices.append("metadata " + ", ".join(lost + added))
    if len(back.steps) != len(plan.steps):
        notices.append(f"the number of steps ({len(plan.steps)} written, {len(back.steps)} read back)")
        return notices
    pairs = list(zip(plan.steps, back.steps))
    if any(a.id != b.id for a, b in pairs):
        notices.append("step ids (read back as " + ", ".join(s.id for s in back.steps[:3])
                       + (", …" if len(back.steps) > 3 else "") + ")")
    for name, what in _FIELDS.items():
        differ = [n for n, (a, b) in enumerate(pairs) if not _same(getattr(a, name), getattr(b, name))]
        if differ:
            notices.append(f"{what} of {step_list(differ)}")
    notices += _param_notices(pairs)
    needs_before, needs_after = _needs(plan), _needs(back)
    lost_deps = [n for n in range(len(pairs)) if needs_before[n] - needs_after[n]]
    if lost_deps:
        shown = [f"step {n} on {step_list(sorted(needs_before[n] - needs_after[n]))}" for n in lost_deps]
        more = f" and {len(shown) - _MAX_NAMED} more" if len(shown) > _MAX_NAMED else ""
        notices.append("dependencies: " + "; ".join(shown[:_MAX_NAMED]) + more)
    new_deps = [n for n in range(len(pairs)) if needs_after[n] - needs_before[n]]
    if new_deps:
        notices.append(f"dependencies added to {step_list(new_deps)}")
    return notices


def _param_notices(pairs: list[tuple[Step, Step]]) -> list[str]:
    # A reference read back names the step at the same position under the id it was read
    # with: compared under the written ids, so lost ids are one notice, not one per param.
    names = {b.id: a.id for a, b in pairs}
    by_param: dict[str, list[int]] = {}
    example: dict[str, Callable[[], str]] = {}
    for n, (a, b) in enumerate(pairs):
        back = renamed_steps(b.params, names)
        for name in sorted(set(a.params) | set(back)):
            if name in a.params and name in back and _same(a.params[name], back[name]):
                continue
            by_param.setdefault(name, []).append(n)
            if name not in example:
                old, new = a.params.get(name, "(none)"), b.params.get(name, "(none)")
                example[name] = lambda old=old, new=new: f"{_short(old)} read back as {_short(new)}"
    return [f"params.{name} of {step_list(steps)} ({example[name]()})" for name, steps in by_param.items()]

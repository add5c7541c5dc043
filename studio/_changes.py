"""What changed between two versions of a plan, in a few words a notice can hold."""

from __future__ import annotations

from core import Plan, Step

__all__ = ["describe_changes"]


def describe_changes(old: Plan, new: Plan) -> str:
    """What changed between two versions of a plan, step by step, in a few words."""
    old_steps = {s.id: s for s in old.steps}
    new_ids = {s.id for s in new.steps}
    added = [new.label(s.id) for s in new.steps if s.id not in old_steps]
    removed = [old.label(s.id) for s in old.steps if s.id not in new_ids]
    changed = [f"{new.label(s.id)} ({what})" for s in new.steps
               if s.id in old_steps and (what := _step_changes(old_steps[s.id], s))]
    parts = [f"{what}: {', '.join(labels)}" for what, labels in
             (("added", added), ("removed", removed), ("changed", changed)) if labels]
    return "; ".join(parts) or "no step changed"


def _step_changes(old: Step, new: Step) -> str:
    """``location 'Berlin' → 'Munich', +risk_level 'high', -limit``; other fields by name."""
    parts = []
    for name in [*new.params, *(n for n in old.params if n not in new.params)]:
        before, after = old.params.get(name, _ABSENT), new.params.get(name, _ABSENT)
        if before is _ABSENT:
            parts.append(f"+{name} {after!r}")
        elif after is _ABSENT:
            parts.append(f"-{name}")
        elif before != after:
            parts.append(f"{name} {before!r} → {after!r}")
    parts += [name for name in ("tool", "depends_on", "parallel", "locked", "result_key", "format_data")
              if getattr(old, name) != getattr(new, name)]
    return ", ".join(parts)


_ABSENT = object()

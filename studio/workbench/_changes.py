"""What changed between two versions of a plan, in a few words a notice can hold.

The words are read off the one plan diff (``core.diff_plans``), as a review's decisions and
the compare view are: references name steps by id, so a delete lists the step it removed and
the params it unlinked, nothing else; moves are found as the compare view finds them. Steps
are named by label (``core.step_label``: tool and note or short id), never by position, which
the change itself moves. Notes are left out as changes: a notice says what runs differently.

Steps are paired by id only (``match_new_ids=False``), as these notices always did: the
versions panel words every version on each rerun, and pairing a re-plan's new ids by content
costs quadratic time (2.8 s for 1000 steps all under new ids, against 0.1 s by id); the
compare view, drawn on request, pairs them.
"""

from __future__ import annotations

from core import Plan, StepChange, diff_plans, step_label

__all__ = ["describe_changes"]

# Step fields named when they change, in this order; a note is not what runs.
_FIELDS = ("tool", "depends_on", "parallel", "locked", "result_key", "format_data")


def describe_changes(old: Plan, new: Plan) -> str:
    """What changed between two versions of a plan, step by step, in a few words."""
    diff = diff_plans(old, new, match_new_ids=False)
    position = {s.id: n for n, s in enumerate(new.steps)}
    changed = [f"{step_label(new.step(c.new_id))} ({what})"
               for c in sorted(diff.changed, key=lambda c: position[c.new_id]) if (what := _step_changes(c, old, new))]
    parts = [f"{what}: {', '.join(labels)}" for what, labels in
             (("added", [step_label(new.step(i)) for i in diff.added]),
              ("removed", [step_label(old.step(i)) for i in diff.removed]), ("changed", changed)) if labels]
    return "; ".join(parts) or "no step changed"


def _step_changes(change: StepChange, old: Plan, new: Plan) -> str:
    """``location 'Berlin' → 'Munich', +risk_level 'high', -limit``; other fields by name."""
    params = {p.name: p for p in change.params}
    order = [*new.step(change.new_id).params, *old.step(change.old_id).params]
    parts = []
    for name in dict.fromkeys(n for n in order if n in params):
        param = params[name]
        if param.change == "added":
            parts.append(f"+{name} {param.new!r}")
        elif param.change == "removed":
            parts.append(f"-{name}")
        elif repr(param.old) == repr(param.new):  # a reference that now names another step
            parts.append(f"{name} now reads another step")
        else:
            parts.append(f"{name} {param.old!r} → {param.new!r}")
    fields = {f.name for f in change.fields}
    parts += [name for name in _FIELDS if name in fields]
    if change.moved:
        parts.append("moved")
    return ", ".join(parts)

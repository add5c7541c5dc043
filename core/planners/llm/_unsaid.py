"""Filters the user never asked for, left out of a model's plan.

Small models add a value from a param's list that nothing in the goal asks for ("status":
"delivered" for "contaminated shipments"): the grammar makes it a valid value, and the plan
then quietly shows fewer rows. A listed (enum) text value whose words the user did not say
(the goal, a re-plan's feedback) is left out, and the planner log says so. Words are compared
by their first five letters, so "rejected" answers "rejects" and "in_transit" "in transit";
words under three letters ("in") are not asked for. Booleans and free text are not touched:
"contaminated" may well mean ``has_contaminants: true``.

Ids likewise (a param named ``id``, ``ids`` or ``..._id(s)``): they come from an earlier
step's output or from the user, so literal ids none of which the user wrote were made up.
"""

from __future__ import annotations

import re
from typing import Any

from ...tooling._registry import ToolRegistry, schema_alternatives
from ._params import ID_PARAM, step_params

__all__ = ["drop_unsaid_choices", "ids_at_bound"]

_PREFIX = 5
_WORD = re.compile(r"[a-z0-9]+")


def drop_unsaid_choices(steps: list[Any], registry: ToolRegistry, said: str) -> list[str]:
    """Leave out of ``steps`` (raw seed steps, changed in place) each enum value the user did
    not say; one line per value left out."""
    heard = {w[:_PREFIX] for w in _WORD.findall(said.lower())}
    done: list[str] = []
    for n, raw, _tool, name, schema, defs in step_params(steps, registry):
        value = raw["params"].get(name)
        if ID_PARAM.search(name) and _made_up_ids(value, said.lower()):
            del raw["params"][name]
            done.append(f"step {n} · {name}: left out: ids come from an earlier step or the goal, "
                        "and the goal gives none of these")
            continue
        if not isinstance(value, str) or "${" in value or not _listed(schema, defs, value):
            continue
        words = [w[:_PREFIX] for w in _WORD.findall(value.lower()) if len(w) >= 3]
        if words and not all(w in heard for w in words):
            del raw["params"][name]
            done.append(f'step {n} · {name}: "{value}" left out: the goal does not ask for it')
    return done


def ids_at_bound(steps: list[Any], registry: ToolRegistry, bound: int) -> list[str]:
    """A line for each list of literal ids in ``steps`` as long as the schema let it be: the
    model may have had more to write (a range the user gave, say), and the reviewer is told."""
    lines = []
    for n, raw, _tool, name, _schema, _defs in step_params(steps, registry):
        value = raw["params"].get(name)
        if ID_PARAM.search(name) and isinstance(value, list) and len(value) >= bound:
            lines.append(f"step {n} · {name}: {len(value)} ids, as many as the request lets a list hold "
                         "(one a word of the goal): check that none is missing")
    return lines


def _made_up_ids(value: Any, said: str) -> bool:
    """Literal ids (text, or a list of them) none of which the user wrote."""
    values = value if isinstance(value, list) else [value]
    texts = [v for v in values if isinstance(v, str)]
    if not texts or len(texts) != len(values) or any("${" in v for v in texts):
        return False
    return not any(v.strip().lower() in said for v in texts if v.strip())


def _listed(schema: dict[str, Any], defs: dict[str, Any], value: str) -> bool:
    return any(value in (o.get("enum") or []) for o in schema_alternatives(schema, defs))

"""Date phrases a model wrote into a plan, resolved with the studio's date table.

The LLM planner asks the model to copy the goal's own words for a date ("last week",
"since October 3") into a date param rather than work the date out: small models get the
arithmetic wrong, or write ``"${today - 7 days}"``. ``resolve_date_phrases`` turns such a
value into the ISO date ``core._dates`` gives for it: the start of the range for a param
that starts one (``date_from``, ``start``, ``since``...), the end for one that ends it
(``date_to``, ``end``, ``until``...), the start for a single date. A value that is no phrase
the table knows is left as it is, for the validator to name.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from .._dates import find_dates
from .._errors import PlannerError
from .._registry import ToolRegistry, schema_alternatives

__all__ = ["resolve_date_phrases"]

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ENDS = re.compile(r"(?:^|_)(?:to|end|until|till|before|through|last)(?:_|$)", re.IGNORECASE)
_MAX_PHRASE = 200  # a date phrase is a few words; longer text is not read as one


def resolve_date_phrases(steps: list[Any], registry: ToolRegistry, today: dt.date) -> list[str]:
    """Replace date phrases in ``steps`` (raw seed steps, changed in place) by ISO dates;
    returns one line per value replaced, ``step N · param: "phrase" → date``."""
    done: list[str] = []
    for n, raw in enumerate(steps):
        if not isinstance(raw, dict) or raw.get("tool") not in registry or not isinstance(raw.get("params"), dict):
            continue
        tool = registry.get(raw["tool"])
        defs = tool.parameters.get("$defs", {})
        for name, schema in (tool.parameters.get("properties") or {}).items():
            value = raw["params"].get(name)
            if not _is_phrase(value) or not _takes_a_date(schema, defs):
                continue
            try:
                found = find_dates(value, today)
            except PlannerError:
                continue  # "the last 99999999 days": left for the validator
            if not found:
                continue
            chosen = found[0].date_to if _ENDS.search(name) else found[0].date_from
            raw["params"][name] = chosen.isoformat()
            done.append(f'step {n} · {name}: "{value}" → {chosen.isoformat()}')
    return done


def _is_phrase(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= _MAX_PHRASE and not _ISO.match(value.strip()) \
        and "${" not in value


def _takes_a_date(schema: dict[str, Any], defs: dict[str, Any]) -> bool:
    return any(o.get("format") == "date" for o in schema_alternatives(schema, defs))

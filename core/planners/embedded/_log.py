"""The embedded planner's log: which words of the goal chose which tool and which filter,
read from its parse (``Parsed.mentions``), for the planner log (``_planner_log``)."""

from __future__ import annotations

import json
from typing import Any

from ._parse import Parsed

__all__ = ["words_log"]


def words_log(parsed: Parsed) -> dict[str, Any]:
    """One planner-log attempt: each mention's words and what they chose, in goal order."""
    words = []
    for mention in sorted(parsed.mentions, key=lambda m: m.start):
        said = parsed.text[mention.start:mention.end]
        if mention.kind == "entity" and mention.tool:
            chose = f"tool {mention.tool}"
        elif mention.kind == "filter" and mention.filter is not None:
            chose = f"filter {_filter_text(mention.filter.param, mention.filter.value, mention.filter.kind)}"
        elif mention.kind == "param" and mention.param:
            chose = f"parameter {mention.param}"
        else:
            continue
        words.append({"words": said, "chose": chose})
    return {"attempt": 1, "planner": "embedded", "words": words}


def _filter_text(param: str, value: Any, kind: str) -> str:
    name = param.lstrip("@")
    if name == "dates" and isinstance(value, tuple) and len(value) == 2:
        return f"dates {value[0].isoformat()} to {value[1].isoformat()}"
    if name == "city":
        return f"{kind or 'location'} = {json.dumps(value)}"
    return f"{name} = {json.dumps(value, default=str)}"

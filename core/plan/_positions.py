"""The positional seed form of a reference, ``${step[N].path}``, at the boundaries that speak it.

Inside core a reference names its step by id (``${steps.<id>.path}``, ``core.plan._references``).
Positions remain where a format or a prompt needs them: the Planner Agent's seed JSON, Semantic
Kernel, Teams, the model's prompt and its replies. Each converts here, once, as it reads or
writes; nothing inside core holds a position, so no edit has anything to renumber.

A plan read in the seed form (a plan stored by a release before ids, an agent's plan sent to
the review API, a README example pasted into the JSON panel) is converted by the ``Plan``
model itself, with the order of the steps as read: the same meaning it had when written. A
position past the plan's end names the id ``step[N]``, which no step has, so the validator
names it. The JSON panel shows the id form: it already shows ``depends_on`` by id, and a
reference there keeps naming its step when a step is moved by editing the text.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from .._limits import MAX_INDEX_DIGITS
from ._references import ID_AT, Reference, id_of, step_reference, walk_strings

__all__ = ["POSITION_AT", "ids_for_positions", "positions_for_ids", "has_positions", "dangling_position", "as_written"]

# The opening of a positional reference, malformed ones included (``${step[2].data.`` still
# names step 2), so a conversion never leaves one half read.
_DANGLING = re.compile(r"step\[([0-9]+)\]")
POSITION_AT = re.compile(r"\$\{\s*step\s*\[\s*([0-9]{1,%d})\s*\]" % MAX_INDEX_DIGITS)


def has_positions(params: Any) -> bool:
    found = False

    def look(text: str) -> str:
        nonlocal found
        found = found or POSITION_AT.search(text) is not None
        return text

    walk_strings(params, look)
    return found


def ids_for_positions(params: Any, ids: Sequence[str]) -> Any:
    """``params`` with each ``${step[N]`` naming ``ids[N]`` by id. A position past the end
    names the id ``step[N]``, as the seed reader does for such a ``depends_on``: dangling, so
    the validator names it, and never taken by a step added later (a position left as it
    was would be, when the plan grows)."""

    def convert(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return step_reference(ids[n] if n < len(ids) else f"step[{n}]")[:-1]

    return walk_strings(params, lambda text: POSITION_AT.sub(convert, text))


def positions_for_ids(params: Any, position: Mapping[str, int]) -> Any:
    """``params`` with each reference to a step of ``position`` written ``${step[N]...``; a
    reference to an id the plan lacks stays by id (a dangling reference, reported where read)."""

    def convert(m: re.Match[str]) -> str:
        n = position.get(id_of(m))
        return m.group() if n is None else f"${{step[{n}]"

    return walk_strings(params, lambda text: ID_AT.sub(convert, text))


def dangling_position(step_id: str) -> int | None:
    """N when ``step_id`` is the ``step[N]`` a position past a plan's end was read as."""
    m = _DANGLING.fullmatch(step_id)
    return int(m.group(1)) if m else None


def as_written(ref: Reference) -> str:
    """A dangling position's reference as its author wrote it (``${step[5].data}``), for messages."""
    past = dangling_position(ref.step)
    if past is None:
        return ref.text
    return ref.text.replace(step_reference(ref.step)[:-1], f"${{step[{past}]", 1)


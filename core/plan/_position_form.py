"""A whole plan's JSON text in either form of its references, for the Plan JSON's toggle: by
id (``${steps.<id>.path}``, what core holds) or by position (``${step[N].path}``, the seed's form,
``core.plan._positions``).

Switching is done on the text itself, so the user's layout stays; a caller checks that the text
still reads as the same plan (an id-like text in a note is not a reference) and else writes the
plan afresh with ``plan_with_positions``.
"""

from __future__ import annotations

import re
from typing import Sequence

from ._model import Plan
from ._positions import POSITION_AT, positions_for_ids
from ._references import ID_AT, id_of, step_reference

__all__ = ["plan_with_positions", "text_with_ids", "text_with_positions"]


def text_with_positions(text: str, ids: Sequence[str]) -> str:
    """A plan's JSON text with each ``${steps.<id>`` of a step in ``ids`` written ``${step[N]``
    (the seed's form), the rest of the text as it was. Text-level, so a caller checks that the
    result still reads as the same plan (an id in a note is text, not a reference)."""
    position = {step_id: n for n, step_id in enumerate(ids)}

    def convert(m: re.Match[str]) -> str:
        n = position.get(id_of(m))
        return m.group() if n is None else f"${{step[{n}]"

    return ID_AT.sub(convert, text)


def text_with_ids(text: str, ids: Sequence[str]) -> str:
    """``text_with_positions`` undone: each ``${step[N]`` within ``ids`` written by id."""

    def convert(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return step_reference(ids[n])[:-1] if n < len(ids) else m.group()

    return POSITION_AT.sub(convert, text)


def plan_with_positions(plan: Plan) -> Plan:
    """``plan`` with every reference in its params written ``${step[N]`` by the steps' order, for
    writing out only: not validated again (the model would read the positions back into ids)."""
    position = {step.id: n for n, step in enumerate(plan.steps)}
    return plan.model_copy(update={"steps": [
        step.model_copy(update={"params": positions_for_ids(step.params, position)}) for step in plan.steps]})

"""How a change report names a step: by what it is, not where it stands.

A position ("step 3") names another step after any insert, delete or move, so a report of
what changed between two versions would call one step by two numbers. A step's label is its
tool with its note's first line, where it has one (what the user called it), or with its id,
shortened (``send_mail · s_1a2b3c4d``): both stay with the step through every edit.
"""

from __future__ import annotations

from ._model import Step

__all__ = ["step_label"]

_ID_CHARS = 10   # the ids the studio gives (``s_`` and 8 hex digits) are shown whole
_NOTE_CHARS = 40


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def step_label(step: Step) -> str:
    """``send_mail “Mail the weekly report”``, or ``send_mail · s3`` for a step without a note."""
    note = (step.note or "").strip().splitlines()
    if note:
        return f"{step.tool} “{_cut(note[0].strip(), _NOTE_CHARS)}”"
    short = step.id if len(step.id) <= _ID_CHARS else step.id[:_ID_CHARS] + "…"
    return f"{step.tool} · {short}"

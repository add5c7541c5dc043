"""What the planner tells the user about how it read a goal, from the plan's metadata.

Three kinds, each a metadata key that is kept when the plan is saved, exported as native or
seed JSON and loaded again, so the studio and the CLI show them wherever the plan goes:

- ``not_applied``: a filter the goal asked for that the plan does NOT apply (a negation no
  tool's schema can express, ``_embedded_negation``); a warning;
- ``read_as``: a word read as another ("read 'x' as 'y'", ``_embedded_typos``); information;
- ``unread_words``: words of the goal the plan does not use (``_embedded_unread``); a warning;
- ``missing_params``: a required parameter the goal does not give (``_required``); a warning.
"""

from __future__ import annotations

from typing import Literal

from ...plan._model import Plan
from ._unread import unread_notice

__all__ = ["NOT_APPLIED_KEY", "READ_AS_KEY", "planner_notices"]

NOT_APPLIED_KEY = "not_applied"
MISSING_KEY = "missing_params"  # ``_required.MISSING_KEY``
READ_AS_KEY = "read_as"

NoticeKind = Literal["warning", "info"]


def _texts(plan: Plan, key: str) -> list[str]:
    said = getattr(plan.metadata, key, None)
    return [s for s in said if isinstance(s, str)] if isinstance(said, list) else []


def planner_notices(plan: Plan) -> list[tuple[NoticeKind, str]]:
    """(kind, sentence) for each thing the user should know about how the goal was read:
    filters not applied first (they change what the plan means), then words read as others,
    then words not used."""
    notices: list[tuple[NoticeKind, str]] = [("warning", text) for text in _texts(plan, NOT_APPLIED_KEY)]
    notices.extend(("info", text) for text in _texts(plan, READ_AS_KEY))
    unread = unread_notice(plan)
    if unread:
        notices.append(("warning", unread))
    notices.extend(("warning", text) for text in _texts(plan, MISSING_KEY))
    return notices

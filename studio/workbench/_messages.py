"""How a failure reads to the user: our errors by their message, anything else as a hint (the
log keeps the details). A use case never lets an exception out: ``attempt`` turns it into a
notice of its outcome."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator

from core import PlanFormatError, PlanStudioError

from ._bench import Outcome

__all__ = ["attempt", "failure_message", "log", "plain_message"]

log = logging.getLogger("studio")


def plain_message(exc: PlanStudioError) -> str:
    """The message without the parts meant for a log: the format's short name before a format
    error (the page names the format in words) and pydantic's "Value error, "."""
    message = str(exc)
    if isinstance(exc, PlanFormatError):
        message = message.removeprefix(f"{exc.format}: ")
    return message.replace("Value error, ", "")


def failure_message(action: str, exc: BaseException) -> str:
    """What the user reads when ``action`` failed: the message of our errors, a hint otherwise."""
    if isinstance(exc, PlanStudioError):
        return f"Could not {action}: {plain_message(exc)}"
    log.error("unexpected error while trying to %s", action, exc_info=exc)
    return f"Could not {action}: unexpected {type(exc).__name__}. The details are in the studio's log."


@contextmanager
def attempt(out: Outcome, action: str) -> Iterator[None]:
    """Any failure inside the block becomes an error notice of ``out`` (and ``out.ok`` stays False)."""
    try:
        yield
    except Exception as exc:
        out.ok = False
        out.say("error", failure_message(action, exc))

"""The Teams AI SAY command as a tool: a plan step that speaks to the user.

A Teams AI plan mixes DO commands (call an action) with SAY commands (tell the user
something). Here SAY is an ordinary tool, so a plan imported from that format runs on the
same executor and its messages show up as step results. The message may hold
``${steps.<id>.path}`` references; the executor fills them in before the call.
"""

from __future__ import annotations

from typing_extensions import TypedDict

from core import NonBlank, Settings, ToolRegistry

__all__ = ["SayResult", "register", "say"]


class SayResult(TypedDict):
    message: str


def say(message: NonBlank) -> SayResult:
    """Say something to the user: a message shown as this step's result, e.g. a summary or an answer.

    Args:
        message: The text to tell the user.

    Returns:
        {"message": text}: the message as it was said.
    """
    if not message.strip():
        raise ValueError("message must not be empty")
    return {"message": message}


def register(registry: ToolRegistry, settings: Settings) -> None:
    registry.register(say, group="conversation")

"""The Teams AI SAY command as a tool: a plan step that speaks to the user.

A Teams AI plan mixes DO commands (call an action) with SAY commands (tell the user
something). Here SAY is an ordinary tool, so a plan imported from that format runs on the
same executor and its messages show up as step results. The message may hold
``${steps.<id>.path}`` references; the executor fills them in before the call.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import NotRequired, TypedDict

from core import READ_ONLY, Settings, ToolRegistry

__all__ = ["SayResult", "register", "say"]


class SayResult(TypedDict):
    message: str
    citations: NotRequired[list[dict[str, Any]]]


def say(message: str, citations: list[dict[str, Any]] | None = None) -> SayResult:
    """Say something to the user: a message shown as this step's result, e.g. a summary or an answer.

    Args:
        message: The text to tell the user (may be empty, as a Teams AI SAY may be).
        citations: Sources the message cites, each with a title, url and content (a Teams AI
            SAY's context).

    Returns:
        {"message": text, "citations": [...]}: the message as it was said, with its sources.
    """
    said: SayResult = {"message": message}
    if citations:
        said["citations"] = citations
    return said


def register(registry: ToolRegistry, settings: Settings) -> None:
    registry.register(say, group="conversation", effects=READ_ONLY)

"""Deep tool calls over MCP stdio reach the review intake, as deep bodies do over HTTP.

The SDK's stdio transport parses each line with pydantic-core, whose JSON parser stops at 200
levels; a line it cannot parse is dropped unanswered, so an agent that declared a tool schema
nested 100 levels (about 200 levels of JSON) waited forever. The HTTP API reads bodies with
Python's ``json`` and answers 400 naming the field. So the MCP server reads stdin through
``DeepCallLines``: a ``tools/call`` line too deep for the SDK is parsed with Python's ``json``,
its arguments are kept here and the line passes on with a ticket in their place; the server's
``call_tool`` takes them back (``arguments_for``) and the intake refuses them as over HTTP.

    lines = DeepCallLines(stdin)            # what stdio_server(stdin=...) reads
    arguments = lines.arguments_for(args)   # in call_tool: the arguments as the agent sent them
"""

from __future__ import annotations

import json
import uuid
from typing import Any, AsyncIterable, AsyncIterator

from mcp.types import jsonrpc_message_adapter
from pydantic import ValidationError

__all__ = ["DeepCallLines"]

_TICKET = "plan_studio_deep_arguments"


class DeepCallLines:
    """The lines of ``source``, with deep tool calls' arguments swapped for tickets."""

    def __init__(self, source: AsyncIterable[str]) -> None:
        self._source = source
        self._kept: dict[str, dict[str, Any]] = {}

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._source:
            yield self._passable(line)

    def _passable(self, line: str) -> str:
        try:
            jsonrpc_message_adapter.validate_json(line, by_name=False)
            return line
        except ValidationError:
            pass
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return line  # not JSON at all: the SDK says so
        params = message.get("params") if isinstance(message, dict) else None
        if message.get("method") != "tools/call" or not isinstance(params, dict) \
                or not isinstance(params.get("arguments"), dict):
            return line
        ticket = uuid.uuid4().hex
        self._kept[ticket] = params["arguments"]
        return json.dumps({**message, "params": {**params, "arguments": {_TICKET: ticket}}}) + "\n"

    def arguments_for(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments as sent: those kept for a ticket, else ``arguments`` themselves."""
        if set(arguments) == {_TICKET} and arguments[_TICKET] in self._kept:
            return self._kept.pop(arguments[_TICKET])
        return arguments

"""An MCP server the tests define with the SDK's own server API (``MCPServer``).

    python tests/mcp_test_server.py stdio            # over stdin/stdout
    python tests/mcp_test_server.py http PORT TOKEN  # streamable HTTP at /mcp; 401 without the token

Its tools cover what a client must handle: structured output, text only, a tool error, a
server that dies mid-call, a call that never answers and a result as large as asked for.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

server = MCPServer(name="test-kit")


@server.tool(description="Add two whole numbers; the total is structured content.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Say hello to someone, as plain text only.", structured_output=False)
def greet(name: str) -> str:
    return f"Hello, {name}!"


@server.tool(description="Always fails with the reason given.")
def fail(reason: str) -> str:
    raise ToolError(reason)  # the SDK passes a ToolError's message on; other errors it hides


@server.tool(description="Stops the whole server process in the middle of the call.")
def die() -> str:
    os._exit(3)


@server.tool(description="Text of the given size in megabytes (1,000,000 characters each), as plain text.",
             structured_output=False)
def big_text(megabytes: int) -> str:
    return ("0123456789abcdef" * 62_500) * megabytes


@server.tool(description="Never answers.")
async def hang() -> str:
    await anyio.sleep(3600)
    return "late"


@server.tool(description="A code, as structured content that its output schema checks with a pattern that "
                         "backtracks (a hostile or careless server's schema).")
def code_of(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"code": text})


# Published as the server wrote it, not derived from a model: the SDK's server would check a
# model's pattern itself (in linear time), the client must not trust it to.
server._tool_manager.get_tool("code_of").fn_metadata.output_schema = {
    "type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}, "required": ["code"]}


def _http(port: int, token: str) -> None:
    import uvicorn

    app = server.streamable_http_app()

    async def guarded(scope, receive, send):  # the headers the client was told to send must arrive
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != f"Bearer {token}".encode():
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"no token"})
            return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        _http(int(sys.argv[2]), sys.argv[3])

"""Your own tools from MCP servers, through the official ``mcp`` SDK.

A server is given as one line (``_mcp_spec``) or an entry of an ``mcpServers`` file
(``_mcp_config``) and held open by an ``McpConnection`` (``_mcp_connection``: its session on an
anyio blocking portal, calls with a timeout). A server with a name (a prefix) has its tools
named ``NAME__tool`` and grouped under ``NAME``; they are called by the server's own names.

Each server tool becomes a ``Tool`` run by an ``McpRunner``: its description, input schema and
output schema are exactly the server's, its effects its ``annotations`` (unknown when it gives
none); arguments go through the one check (``core.tooling._argument_check``) before the call; the
result is the call's structured content when the server gives it, else its text.

With a data folder (``cache``), a server's listing is kept there (``_mcp_cache``) and the next
start of the studio or the CLI builds its tools from it, starting the server only when one of
them is called (``refresh`` lists it afresh instead).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import McpServerError, Tool, ToolDefinition, ToolRegistry
from core.tooling._definition import effects_from_annotations
from core.schema._untrusted import schema_problem

from ._load_notice import LoadNotice
from ._mcp_cache import ListedTool, read_listing
from ._mcp_connection import McpConnection, close_all
from ._mcp_spec import McpServerSpec, prefixed

__all__ = ["McpServerSpec", "McpConnection", "McpRunner", "connection_of", "start_mcp_server", "add_mcp_server",
           "close_all"]


@dataclass(frozen=True)
class McpRunner:
    """Runs an MCP server's tool as an MCP tool call on its connection, by the server's own name
    for it (``remote``: the tool's name here may carry the server's prefix)."""

    connection: McpConnection = field(repr=False)
    remote: str = ""
    schema: dict[str, Any] | None = field(default=None, repr=False, compare=False)  # as listed when loaded

    def __call__(self, name: str, args: dict[str, Any]) -> Any:
        return self.connection.call(self.remote or name, args, self.schema)


def connection_of(tool: Tool) -> McpConnection | None:
    """The server connection an MCP tool runs on; ``None`` for any other tool."""
    return tool.runner.connection if isinstance(tool.runner, McpRunner) else None


def _make_tool(listed: Any, group: str, connection: McpConnection) -> Tool:
    schema = listed.input_schema or {"type": "object"}
    problem = schema_problem(schema)
    if problem is not None:
        raise McpServerError(f"MCP tool {listed.name!r}: its input schema{problem[0]} {problem[1]}")
    prefix = getattr(connection.spec, "name", "")  # a stand-in connection may have no prefix
    definition = ToolDefinition(name=prefixed(prefix, listed.name), description=listed.description or "", input_schema=schema,
                                output_schema=listed.output_schema or None,
                                effects=effects_from_annotations(getattr(listed, "annotations", None)),
                                kind="mcp", source=f"MCP server {connection.spec.label}")
    return Tool(definition, McpRunner(connection, listed.name, schema), group=group)


def _task_support(listed: Any) -> str | None:
    if isinstance(listed, ListedTool):
        return listed.task_support
    return getattr(getattr(listed, "execution", None), "task_support", None)


def start_mcp_server(server: str | McpServerSpec, timeout: float, cache: Path | None = None,
                     refresh: bool = False) -> McpConnection:
    """Begin connecting to ``server`` (a ``--mcp`` line or a spec); ``add_mcp_server`` waits for
    it. With a data folder (``cache``) holding the server's listing, and no ``refresh``, the
    connection holds that listing and is started only when a tool is called."""
    spec = server if isinstance(server, McpServerSpec) else McpServerSpec.parse(server)
    kept = None if cache is None or refresh else read_listing(cache, spec)
    if kept is not None:
        return McpConnection.listed(spec, timeout, cache, *kept)
    return McpConnection(spec, timeout, cache).start()


def add_mcp_server(registry: ToolRegistry, server: str | McpServerSpec | McpConnection,
                   timeout: float = 30.0) -> list[str]:
    """Connect to ``server`` (or finish connecting) and add its tools to ``registry``; the
    problems with single tools (a name already taken, an invalid schema; a tool skipped on
    purpose is a ``LoadNotice``). Raises
    ``McpServerError`` when the server cannot be used at all."""
    pending = server if isinstance(server, McpConnection) else start_mcp_server(server, timeout)
    connection = pending.wait_ready() if pending.started else pending  # else listed from the cache
    spec = connection.spec
    group = spec.name or connection.server_name or spec.label
    if group in registry.groups():
        connection.close()
        raise McpServerError(f"MCP server {spec.label}: refused: its name {group!r} is already the "
                             "name of a tool group")
    problems = []
    for listed in connection.tools:
        if prefixed(spec.name, listed.name) in registry:
            problems.append(f"MCP server {spec.label}: tool {prefixed(spec.name, listed.name)!r} refused: a tool with "
                            "that name is already loaded")
            continue
        if _task_support(listed) == "required":
            # A task-augmented call answers later, through tasks/get: a plan step cannot wait
            # on that. The server's other tools work without it, so this is only a notice.
            problems.append(LoadNotice(f"MCP server {spec.label}: tool {listed.name!r} skipped: it only runs "
                                       "as an MCP task, which Plan Studio does not support; the server's "
                                       "other tools are loaded"))
            continue
        try:
            registry.add(_make_tool(listed, group, connection))
        except McpServerError as exc:
            problems.append(f"MCP server {spec.label}: {exc}")
    return problems

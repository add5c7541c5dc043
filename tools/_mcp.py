"""Your own tools from MCP servers, through the official ``mcp`` SDK.

A server is given as one line (``--mcp``, ``PLAN_STUDIO_MCP``, the Settings page):

- ``https://host/mcp`` is a streamable HTTP server; headers follow the URL after `` | ``:
  ``https://host/mcp | Authorization: Bearer TOKEN | X-Team: blue``.
- anything else is a command line that starts a stdio server (split like a shell would, no
  shell involved): ``npx -y @modelcontextprotocol/server-everything``.

The studio is synchronous (Streamlit reruns, the executor's thread), the SDK is async: each
server gets one event-loop thread of its own holding its client session, and calls reach it
with ``run_coroutine_threadsafe`` and a timeout. A server that does not start, dies or hangs
becomes an error naming it; the rest of the studio never waits longer than the timeout.

Each server tool becomes a ``Tool`` run by an ``McpRunner``: its description, input schema and
output schema are exactly the server's, its effects its ``annotations`` (unknown when it gives
none); arguments go through the one check (``core._argument_check``) before the call; the
result is the call's structured content when the server gives it, else its text.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import shlex
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any

from core import McpServerError, Tool, ToolDefinition, ToolExecutionError, ToolRegistry
from core._tool_definition import effects_from_annotations
from core._untrusted_schema import schema_problem

from ._load_notice import LoadNotice

__all__ = ["McpServerSpec", "McpConnection", "McpRunner", "connection_of", "start_mcp_server", "add_mcp_server",
           "close_all"]

_HEADER_SEPARATOR = " | "
_STDERR_TAIL = 400


@dataclass(frozen=True)
class McpServerSpec:
    """One ``--mcp`` value: a URL (streamable HTTP) with headers, or a stdio command line."""

    target: str
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def is_url(self) -> bool:
        return self.target.startswith(("http://", "https://"))

    @classmethod
    def parse(cls, text: str) -> "McpServerSpec":
        text = text.strip()
        if not text:
            raise McpServerError("an MCP server is empty: give a command line or an http(s) URL")
        if not text.startswith(("http://", "https://")):
            try:
                argv = shlex.split(text)
            except ValueError as exc:
                raise McpServerError(f"MCP server command {text!r}: {exc}") from None
            if not argv:
                raise McpServerError("an MCP server command is empty")
            return cls(text)
        url, *parts = text.split(_HEADER_SEPARATOR)
        headers: dict[str, str] = {}
        for part in parts:
            name, colon, value = part.partition(":")
            if not colon or not name.strip():
                raise McpServerError(f"MCP server {url.strip()}: header {name.strip()!r} is not "
                                     "'Name: value'")
            headers[name.strip()] = value.strip()
        return cls(url.strip(), headers)

    @property
    def label(self) -> str:
        """How the server is named in messages: header values never appear (they hold tokens)."""
        if not self.is_url:
            return self.target
        names = "".join(f"{_HEADER_SEPARATOR}{n}: ***" for n in self.headers)
        return f"{self.target}{names}"


class McpConnection:
    """One MCP server: its client session lives on an event-loop thread of its own."""

    def __init__(self, spec: McpServerSpec, timeout: float) -> None:
        self.spec = spec
        self.timeout = timeout
        self.server_name = ""
        self.tools: list[Any] = []  # mcp.types.Tool, as the server listed them
        self._loop: asyncio.AbstractEventLoop | None = None
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._stopped = threading.Event()
        self._gone: str | None = None  # why the connection ended, once it has
        self._http_status: str = ""  # the last HTTP error answer: the SDK's message leaves it out
        self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self._thread = threading.Thread(target=self._run, name=f"mcp {spec.label[:40]}", daemon=True)
        self._lost: str | None = None  # why the last call found the server gone; the next restarts it
        self._closed = False  # closed by the studio: never restarted
        self._restarting = threading.Lock()

    # -- from the studio's threads ------------------------------------------------------------

    def open(self) -> "McpConnection":
        """Start the server, initialize the session and list its tools, within the timeout."""
        return self.start().wait_ready()

    def start(self) -> "McpConnection":
        """Start connecting in the background (servers start side by side, not one by one)."""
        self._thread.start()
        return self

    def wait_ready(self) -> "McpConnection":
        """Wait until the tools are listed; ``McpServerError`` if that fails or takes too long."""
        try:
            self._ready.result(self.timeout)
        except concurrent.futures.TimeoutError:
            self._shut_down()
            raise McpServerError(f"MCP server {self.spec.label}: did not start and list its tools "
                                 f"within {self.timeout:g} s{self._stderr_tail()}") from None
        except McpServerError:
            self._shut_down()
            raise
        if self not in _OPEN:
            _OPEN.append(self)
        return self

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """Call ``tool`` on the server; its result (structured content, else text). A server
        that died during an earlier call is started again first (the step that saw it die
        has failed and said so)."""
        with self._restarting:
            if self._lost is not None and not self._closed:
                self._restart(tool)
        loop, session = self._loop, self._session
        if self._gone is not None or loop is None or session is None or loop.is_closed():
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label} is not running "
                                     f"({self._gone or 'not started'})")
        since = self._stderr_size()
        try:
            future = asyncio.run_coroutine_threadsafe(session.call_tool(tool, arguments), loop)
        except RuntimeError:  # the loop closed between the check and the call
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label} is not running") from None
        try:
            result = future.result(self.timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label} did not answer "
                                     f"within {self.timeout:g} s") from None
        except concurrent.futures.CancelledError:
            self._lost = "it stopped"
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label} stopped "
                                     f"during the call{self._stderr_tail(since)}") from None
        except Exception as exc:  # the SDK's errors: connection lost, JSON-RPC error, ...
            if _connection_lost(exc):
                self._lost = _describe(exc)
            gone = self._gone and f" ({self._gone})"
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label}: "
                                     f"{_describe(exc)}{gone or ''}{self._stderr_tail(since)}") from None
        return _result_value(tool, result)

    def close(self) -> None:
        """Stop the session (and a stdio server's process), even one still starting."""
        self._closed = True
        self._shut_down()

    def _restart(self, tool: str) -> None:
        lost = self._lost
        self._shut_down()
        self._loop = self._session = self._task = None
        self._ready = concurrent.futures.Future()
        self._stopped = threading.Event()
        self._gone = self._lost = None
        self._thread = threading.Thread(target=self._run, name=self._thread.name, daemon=True)
        try:
            self.start().wait_ready()
        except McpServerError as exc:
            self._lost = lost  # try again on the next call
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label} stopped earlier "
                                     f"({lost}) and did not start again: {exc}") from None

    def _shut_down(self) -> None:
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)
        if self._thread.is_alive():
            # The SDK gives a stdio server 2 s to exit on its own before it is terminated.
            self._stopped.wait(min(self.timeout, 5.0))
        if self in _OPEN:
            _OPEN.remove(self)

    # -- on the connection's own thread -------------------------------------------------------

    def _run(self) -> None:
        stopped, ready = self._stopped, self._ready
        try:
            asyncio.run(self._main())
        except asyncio.CancelledError:
            self._fail(McpServerError("closed by the studio"), ready)
        except BaseException as exc:  # noqa: BLE001 (reported to whoever waits, never raised here)
            self._fail(exc, ready)
        finally:
            # A restart may already have replaced this thread: then its state is not ours.
            if threading.current_thread() is self._thread:
                self._gone = self._gone or "the connection closed"
            stopped.set()

    async def _main(self) -> None:
        # The SDK is imported only when a server is configured.
        from ._mcp_session import BoundedClientSession

        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._stop = asyncio.Event()
        async with contextlib.AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(self._transport())
            session = await stack.enter_async_context(BoundedClientSession(read, write))
            init = await session.initialize()
            self.server_name = init.server_info.name
            tools, cursor = [], None
            while True:
                from mcp import types

                listed = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor)
                                                  if cursor else None)
                tools += listed.tools
                cursor = listed.next_cursor
                if not cursor:
                    break
            self.tools = tools
            self._session = session
            self._ready.set_result(None)
            await self._stop.wait()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        if self.spec.is_url:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = create_mcp_http_client(headers=self.spec.headers or None)
            client.event_hooks["response"].append(self._note_status)
            return _with_client(client, streamable_http_client(self.spec.target, http_client=client))
        from ._mcp_stdio import stdio_transport  # the SDK's, reading long lines in linear time

        return stdio_transport(shlex.split(self.spec.target), errlog=self._errlog)

    async def _note_status(self, response: Any) -> None:
        if response.status_code >= 400:
            self._http_status = f" (HTTP {response.status_code} {response.reason_phrase})".replace(" )", ")")

    def _fail(self, exc: BaseException, ready: concurrent.futures.Future[None]) -> None:
        message = _describe(exc) + self._http_status
        if threading.current_thread() is self._thread:
            self._gone = message
        if not ready.done():
            ready.set_exception(McpServerError(
                f"MCP server {self.spec.label}: could not start: {message}{self._stderr_tail()}"))

    def _stderr_size(self) -> int:
        try:
            self._errlog.flush()
            return self._errlog.seek(0, 2)
        except (OSError, ValueError):
            return 0

    def _stderr_tail(self, since: int = 0) -> str:
        """The end of what a stdio server wrote to stderr (after ``since``): usually why it stopped."""
        try:
            self._errlog.flush()
            self._errlog.seek(max(since, self._stderr_size() - 4000))
            text = self._errlog.read().strip()
        except (OSError, ValueError):
            return ""
        lines = [line for line in text.splitlines() if line.strip()]
        return f"; its last output: {' '.join(lines[-3:])[-_STDERR_TAIL:]}" if lines else ""


@contextlib.asynccontextmanager
async def _with_client(client: Any, transport: Any) -> Any:
    async with client, transport as streams:
        yield streams


def _describe(exc: BaseException) -> str:
    """One readable line for an exception, unwrapping the task groups anyio raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip()
    if text == "Connection closed":
        return "the connection closed (the server stopped)"
    kind = type(exc).__name__
    if not text:
        return {"ClosedResourceError": "the connection closed", "BrokenResourceError": "the connection broke",
                "EndOfStream": "the server closed the connection"}.get(kind, kind)
    return text if kind in ("MCPError", "McpServerError") else f"{kind}: {text}"


def _connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the server is gone (not that it answered with an error)."""
    text = _describe(exc)
    return text.startswith(("the connection", "the server closed")) or type(exc).__name__ in (
        "ClosedResourceError", "BrokenResourceError", "EndOfStream")


def _result_value(tool: str, result: Any) -> Any:
    texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
    if result.is_error:
        raise ToolExecutionError(f"{tool} failed: {' '.join(texts).strip() or 'the server reported an error'}")
    if result.structured_content is not None:
        return result.structured_content
    if texts and len(texts) == len(result.content):
        return "\n".join(texts)
    # Images, resources, links: the blocks as the server gave them, text ones included, so
    # nothing the call returned is dropped.
    return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]


@dataclass(frozen=True)
class McpRunner:
    """Runs an MCP server's tool as an MCP tool call on its connection."""

    connection: McpConnection = field(repr=False)

    def __call__(self, name: str, args: dict[str, Any]) -> Any:
        return self.connection.call(name, args)


def connection_of(tool: Tool) -> McpConnection | None:
    """The server connection an MCP tool runs on; ``None`` for any other tool."""
    return tool.runner.connection if isinstance(tool.runner, McpRunner) else None


def _make_tool(listed: Any, group: str, connection: McpConnection) -> Tool:
    schema = listed.input_schema or {"type": "object"}
    problem = schema_problem(schema)
    if problem is not None:
        raise McpServerError(f"MCP tool {listed.name!r}: its input schema{problem[0]} {problem[1]}")
    definition = ToolDefinition(name=listed.name, description=listed.description or "", input_schema=schema,
                                output_schema=listed.output_schema or None,
                                effects=effects_from_annotations(getattr(listed, "annotations", None)),
                                kind="mcp", source=f"MCP server {connection.spec.label}")
    return Tool(definition, McpRunner(connection), group=group)


def start_mcp_server(server: str, timeout: float) -> McpConnection:
    """Begin connecting to ``server``; ``add_mcp_server`` waits for it."""
    return McpConnection(McpServerSpec.parse(server), timeout).start()


def add_mcp_server(registry: ToolRegistry, server: str | McpConnection, timeout: float = 30.0) -> list[str]:
    """Connect to ``server`` (or finish connecting) and add its tools to ``registry``; the
    problems with single tools (a name already taken, an invalid schema; a tool skipped on
    purpose is a ``LoadNotice``). Raises
    ``McpServerError`` when the server cannot be used at all."""
    pending = server if isinstance(server, McpConnection) else start_mcp_server(server, timeout)
    connection = pending.wait_ready()
    spec = connection.spec
    group = connection.server_name or spec.label
    if group in registry.groups():
        connection.close()
        raise McpServerError(f"MCP server {spec.label}: refused: its name {group!r} is already the "
                             "name of a tool group")
    problems = []
    for listed in connection.tools:
        if listed.name in registry:
            problems.append(f"MCP server {spec.label}: tool {listed.name!r} refused: a tool with "
                            "that name is already loaded")
            continue
        if getattr(listed.execution, "task_support", None) == "required":
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


_OPEN: list[McpConnection] = []


@atexit.register
def close_all() -> None:
    """Stop every server this process started (stdio servers are child processes)."""
    for connection in list(_OPEN):
        connection.close()

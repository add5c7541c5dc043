"""One MCP server's client session, held open on an anyio blocking portal.

The studio is synchronous (Streamlit reruns, the executor's thread), the SDK is async: each
server gets an event loop of its own in a thread, through anyio's blocking portal
(``anyio.from_thread.start_blocking_portal``). The session lives in one task there (``_serve``);
calls reach it with ``portal.start_task_soon`` and wait with a timeout. A server that does not
start, dies or hangs becomes an error naming it; the rest of the studio never waits longer than
the timeout, and a server that died is started again on its next call.

A connection made from the server's cached listing (``McpConnection.listed``, ``_mcp_cache``)
is not started until a tool is called: then the server lists its tools again (the cache is
rewritten) and the call is checked against that listing, which decides.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import tempfile
import threading
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal

from core import McpServerError, ToolExecutionError

from ._mcp_cache import ListedTool, changed_since_listed, write_listing
from ._mcp_spec import McpServerSpec

__all__ = ["McpConnection", "close_all"]

_STDERR_TAIL = 400


class _Run:
    """One start of the server: its portal, the task holding the session, and how it ended."""

    def __init__(self, label: str) -> None:
        self.portal_cm = start_blocking_portal(name=f"mcp {label[:40]}")
        self.portal: BlockingPortal = self.portal_cm.__enter__()
        self.ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.stopped = threading.Event()  # the session task has ended, its cleanup done
        self.session: Any = None
        self.gone: str | None = None  # why the session ended, once it has
        self.task: concurrent.futures.Future[None] | None = None

    def close(self, wait: float) -> None:
        """End the session task (a stdio server's process is stopped as it ends), waiting up to
        ``wait`` seconds for it; then stop the portal's thread, in the background if it is
        still busy, so closing never takes longer than ``wait``."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.stopped.wait(wait)
        exit_portal = lambda: self.portal_cm.__exit__(None, None, None)  # noqa: E731
        if self.stopped.is_set():
            exit_portal()
        else:
            threading.Thread(target=exit_portal, name="mcp closing", daemon=True).start()


class McpConnection:
    """One MCP server: its client session lives on a blocking portal of its own."""

    def __init__(self, spec: McpServerSpec, timeout: float, cache: Path | None = None) -> None:
        self.spec = spec
        self.timeout = timeout
        self.cache = cache  # the data folder whose cache keeps this server's listing; None: not kept
        self.server_name = ""
        self.tools: list[Any] = []  # mcp.types.Tool as the server listed them (ListedTool from the cache)
        self._run: _Run | None = None
        self._http_status: str = ""  # the last HTTP error answer: the SDK's message leaves it out
        self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self._lost: str | None = None  # why the last call found the server gone; the next restarts it
        self._closed = False  # closed by the studio: never restarted
        self._restarting = threading.Lock()

    # -- from the studio's threads ------------------------------------------------------------

    @classmethod
    def listed(cls, spec: McpServerSpec, timeout: float, cache: Path, server_name: str,
               tools: list[ListedTool]) -> "McpConnection":
        """A connection with the server's cached listing, started when a tool is first called."""
        connection = cls(spec, timeout, cache)
        connection.server_name, connection.tools = server_name, list(tools)
        return connection

    @property
    def started(self) -> bool:
        return self._run is not None

    def open(self) -> "McpConnection":
        """Start the server, initialize the session and list its tools, within the timeout."""
        return self.start().wait_ready()

    def start(self) -> "McpConnection":
        """Start connecting in the background (servers start side by side, not one by one)."""
        run = _Run(self.spec.label)
        self._run = run
        run.task = run.portal.start_task_soon(self._serve, run)
        return self

    def wait_ready(self) -> "McpConnection":
        """Wait until the tools are listed; ``McpServerError`` if that fails or takes too long."""
        assert self._run is not None, "start() first"
        try:
            self._run.ready.result(self.timeout)
        except concurrent.futures.TimeoutError:
            self._shut_down()
            raise McpServerError(f"MCP server {self.spec.label}: did not start and list its tools "
                                 f"within {self.timeout:g} s{self._stderr_tail()}") from None
        except McpServerError:
            self._shut_down()
            raise
        if self not in _OPEN:
            _OPEN.append(self)
        if self.cache is not None:
            write_listing(self.cache, self.spec, self.server_name, self.tools)
        return self

    def call(self, tool: str, arguments: dict[str, Any], schema: dict[str, Any] | None = None) -> Any:
        """Call ``tool`` on the server; its result (structured content, else text). A server
        not started yet (its tools came from the cache) is started first, and so is one that
        died during an earlier call (the step that saw it die has failed and said so). ``schema``
        is the input schema the arguments were checked against: when the server's listing says
        otherwise, the call goes ahead only if they fit the server's."""
        with self._restarting:
            if self._run is None and not self._closed:
                self._start_for(tool)
            elif self._lost is not None and not self._closed:
                self._restart(tool)
        changed = changed_since_listed(tool, next((t for t in self.tools if t.name == tool), None), schema, arguments)
        if changed is not None:
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label}: {changed}")
        run = self._run
        if run is None or run.gone is not None or run.session is None:
            gone = run.gone if run is not None else None
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label} is not running "
                                     f"({gone or 'not started'})")
        since = self._stderr_size()
        try:
            future = run.portal.start_task_soon(run.session.call_tool, tool, arguments)
        except RuntimeError:  # the portal stopped between the check and the call
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
            gone = run.gone and f" ({run.gone})"
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label}: "
                                     f"{_describe(exc)}{gone or ''}{self._stderr_tail(since)}") from None
        return _result_value(tool, result)

    def close(self) -> None:
        """Stop the session (and a stdio server's process), even one still starting."""
        self._closed = True
        self._shut_down()

    def _start_for(self, tool: str) -> None:
        try:
            self.start().wait_ready()
        except McpServerError as exc:
            self._run = None  # tried again on the next call
            raise ToolExecutionError(f"{tool} failed: {exc}") from None

    def _restart(self, tool: str) -> None:
        lost = self._lost
        self._shut_down()
        self._lost = None
        try:
            self.start().wait_ready()
        except McpServerError as exc:
            self._lost = lost  # try again on the next call
            raise ToolExecutionError(f"{tool} failed: MCP server {self.spec.label} stopped earlier "
                                     f"({lost}) and did not start again: {exc}") from None

    def _shut_down(self) -> None:
        if self._run is not None:
            # The SDK gives a stdio server 2 s to exit on its own before it is terminated.
            self._run.close(min(self.timeout, 5.0))
        if self in _OPEN:
            _OPEN.remove(self)

    # -- in the portal's event loop -----------------------------------------------------------

    async def _serve(self, run: _Run) -> None:
        """Open the session, list the tools, then hold the session until cancelled."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                # A stdio server is started before the SDK is imported (``_mcp_stdio``): it boots meanwhile.
                read, write = await stack.enter_async_context(self._transport())
                from mcp import types

                from ._mcp_session import BoundedClientSession  # the SDK is imported only when a server is configured

                session = await stack.enter_async_context(BoundedClientSession(read, write))
                init = await session.initialize()
                self.server_name = init.server_info.name
                tools, cursor = [], None
                while True:
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    listed = await session.list_tools(params=params)
                    tools += listed.tools
                    cursor = listed.next_cursor
                    if not cursor:
                        break
                self.tools = tools
                run.session = session
                run.ready.set_result(None)
                await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            self._fail(run, McpServerError("closed by the studio"))
            raise
        except BaseException as exc:  # noqa: BLE001 (told to whoever waits, never raised into the portal)
            self._fail(run, exc)
        finally:
            run.gone = run.gone or "the connection closed"
            run.stopped.set()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        if self.spec.is_url:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = create_mcp_http_client(headers=self.spec.headers or None)
            client.event_hooks["response"].append(self._note_status)
            return _with_client(client, streamable_http_client(self.spec.target, http_client=client))
        from ._mcp_stdio import stdio_transport  # the SDK's, reading long lines in linear time

        return stdio_transport(self.spec.command(), errlog=self._errlog, env=self.spec.env, cwd=self.spec.cwd)

    async def _note_status(self, response: Any) -> None:
        if response.status_code >= 400:
            self._http_status = f" (HTTP {response.status_code} {response.reason_phrase})".replace(" )", ")")

    def _fail(self, run: _Run, exc: BaseException) -> None:
        message = _describe(exc) + self._http_status
        run.gone = message
        if not run.ready.done():
            run.ready.set_exception(McpServerError(
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


# Documented registry (tests/unit/test_registries.py): the MCP servers this process started, stopped at exit.
_OPEN: list[McpConnection] = []


@atexit.register
def close_all() -> None:
    """Stop every server this process started (stdio servers are child processes)."""
    for connection in list(_OPEN):
        connection.close()

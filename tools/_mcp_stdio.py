"""The stdio transport for MCP servers: the SDK's ``stdio_client``, reading lines in linear time.

The SDK's reader joins each chunk it reads from the server's stdout to the unfinished line
before it (``(buffer + chunk).split("\\n")``), so one message of n bytes read in 64 KiB
chunks costs about n * n / 128 KiB of copying: a 50 MB tool result took 52 s, nearly all
of it there. Here the pieces of an unfinished line are kept in a list and joined once,
when its newline arrives, so reading costs time in proportion to the bytes read.

Everything else is the SDK's own: the process is stopped (stdin closed, a grace period, then
the whole process tree killed) and drained by the SDK's helpers, and each line is parsed by
the SDK's parser, so the process handling stays the SDK's. One thing comes first: on POSIX the
process is started (as the SDK starts it: ``anyio.open_process`` in a session of its own) before
the SDK is imported, so the server boots while Python imports the SDK (over a second under load,
``benchmarks/mcp_config.py``) instead of after it. Its environment is the SDK's minimal one
(``_SDK_INHERITED``, the SDK's ``DEFAULT_INHERITED_ENV_VARS``; a test keeps them equal) with the
server's own variables on top.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from typing import Any, AsyncIterator, Mapping, TextIO

import anyio

from core import McpServerError

__all__ = ["stdio_transport", "default_environment"]

# The SDK's DEFAULT_INHERITED_ENV_VARS on POSIX (mcp.client.stdio), read here without importing it.
_SDK_INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def default_environment() -> dict[str, str]:
    """What the SDK passes to a stdio server by default (``get_default_environment``)."""
    if sys.platform == "win32":  # pragma: no cover
        from mcp.client.stdio import get_default_environment

        return get_default_environment()
    return {k: v for k in _SDK_INHERITED if (v := os.environ.get(k)) is not None and not v.startswith("()")}


async def _spawn(argv: list[str], env: dict[str, str], errlog: TextIO, cwd: str | None) -> Any:
    if cwd is not None and not os.path.isdir(cwd):
        raise McpServerError(f"its folder (cwd) {cwd} is not a folder that exists")
    if sys.platform == "win32":  # pragma: no cover
        from mcp.client import stdio as sdk_stdio

        command = await sdk_stdio._get_executable_command(argv[0])
        return await sdk_stdio._create_platform_compatible_process(command, argv[1:], env, errlog, cwd)
    return await anyio.open_process(argv, env=env, stderr=errlog, cwd=cwd, start_new_session=True)


@contextlib.asynccontextmanager
async def stdio_transport(argv: list[str], errlog: TextIO, env: Mapping[str, str] | None = None,
                          cwd: str | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """Start ``argv`` as an MCP server, with ``env`` over the SDK's default environment and in
    folder ``cwd``; its (read, write) streams for ``ClientSession``."""
    process = await _spawn(argv, {**default_environment(), **(env or {})}, errlog, cwd)
    try:
        from mcp.client import stdio as sdk_stdio  # while the server boots
        from mcp.shared.message import SessionMessage
    except BaseException:
        process.kill()
        raise
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    shutting_down = False

    async def stdout_reader() -> None:
        assert process.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        pending: list[str] = []  # pieces of the line not finished yet
        try:
            async with read_writer:
                try:
                    async for data in process.stdout:
                        text = decoder.decode(data)
                        *finished, rest = text.split("\n")
                        for line in finished:
                            if pending:
                                line = "".join([*pending, line])
                                pending.clear()
                            await read_writer.send(sdk_stdio._parse_line(line))
                        if rest:
                            pending.append(rest)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return  # the session is gone
                finally:
                    await sdk_stdio._drain_stdout(process)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, UnicodeDecodeError):
            if not shutting_down:
                sdk_stdio.logger.exception("Reading from the MCP server's stdout failed mid-session")

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for message in write_reader:
                    json = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((json + "\n").encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()  # the session sees the connection end, not a hang
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(sdk_stdio._WRITER_FLUSH_TIMEOUT):
            await writer_done.wait()
        await sdk_stdio._stop_server_process(process)
        await sdk_stdio._aclose_all(read_stream, write_stream, read_writer, write_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(stdout_reader)
        tasks.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            shutting_down = True
            with anyio.CancelScope(shield=True):  # the process must not outlive the connection
                await shutdown()
            tasks.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()

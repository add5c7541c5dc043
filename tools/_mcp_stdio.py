"""The stdio transport for MCP servers: the SDK's ``stdio_client``, reading lines in linear time.

The SDK's reader joins each chunk it reads from the server's stdout to the unfinished line
before it (``(buffer + chunk).split("\\n")``), so one message of n bytes read in 64 KiB
chunks costs about n * n / 128 KiB of copying: a 50 MB tool result took 52 s, nearly all
of it there. Here the pieces of an unfinished line are kept in a list and joined once,
when its newline arrives, so reading costs time in proportion to the bytes read.

Everything else is the SDK's own: the process is started, stopped (stdin closed, a grace
period, then the whole process tree killed) and drained by the SDK's helpers, and each line
is parsed by the SDK's parser, so the process handling stays exactly the SDK's.
"""

from __future__ import annotations

import codecs
import contextlib
from typing import Any, AsyncIterator, TextIO

import anyio
from mcp.client import stdio as sdk_stdio
from mcp.shared.message import SessionMessage

__all__ = ["stdio_transport"]


@contextlib.asynccontextmanager
async def stdio_transport(argv: list[str], errlog: TextIO) -> AsyncIterator[tuple[Any, Any]]:
    """Start ``argv`` as an MCP server; its (read, write) streams for ``ClientSession``."""
    command = await sdk_stdio._get_executable_command(argv[0])
    process = await sdk_stdio._create_platform_compatible_process(
        command=command, args=argv[1:], env=sdk_stdio.get_default_environment(), errlog=errlog)
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

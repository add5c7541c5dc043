"""Which MCP server to use, as one line (``--mcp``, ``PLAN_STUDIO_MCP``, the Settings page) or
as an entry of an ``mcpServers`` config file (``_mcp_config``).

One line is ``[NAME: ] TARGET [ | PART ...]``:

- ``https://host/mcp`` is a streamable HTTP server; headers follow the URL after `` | ``:
  ``https://host/mcp | Authorization: Bearer ${TOKEN} | X-Team: blue``.
- anything else is a command line that starts a stdio server (split like a shell would, no
  shell involved), with the environment variables it needs before it, as a shell takes them,
  and its working folder after `` | ``:
  ``MEMORY_FILE_PATH=/data/memory.json npx -y @modelcontextprotocol/server-memory | cwd: /data``.
- ``NAME: `` in front is the server's prefix: its tools are named ``NAME__tool`` and its
  group ``NAME``, so one server can be loaded twice (``docs: ...`` and ``notes: ...``). Two
  underscores, not a dot: tool names stay ``[A-Za-z0-9_-]``, which every model API's function
  names allow.

``${VAR}`` (also ``${env:VAR}`` as Cursor writes it, and ``${VAR:-default}``) in a command,
an argument, an environment value, a folder, a URL or a header is the variable from the
environment the studio or the CLI runs in; one that is not set is an error naming the server
and the variable. A stdio server gets the SDK's minimal environment (``PATH``, ``HOME``, ...)
with its own variables on top.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Mapping

from core import McpServerError

__all__ = ["McpServerSpec", "expand_variables", "prefix_name", "prefixed", "PREFIX_SEPARATOR"]

_HEADER_SEPARATOR = " | "
PREFIX_SEPARATOR = "__"
_NAME = re.compile(r"^([A-Za-z0-9][\w-]*):\s+(\S.*)$")
_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)=(.*)$", re.DOTALL)
_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_]\w*)(?::-([^}]*))?\}")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]")


def prefixed(prefix: str, tool: str) -> str:
    """A server tool's name in Plan Studio: ``prefix__tool``, or ``tool`` without a prefix."""
    return f"{prefix}{PREFIX_SEPARATOR}{tool}" if prefix else tool


def expand_variables(text: str, server: str, where: str, environ: Mapping[str, str]) -> str:
    """``text`` with each ``${VAR}`` replaced from ``environ``; ``McpServerError`` naming
    ``server``, ``where`` and the variable when one is not set and has no ``:-default``."""
    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise McpServerError(f"MCP server {server}: {where} uses ${{{name}}}, but the environment variable "
                             f"{name} is not set")
    return _VARIABLE.sub(value, text)


@dataclass(frozen=True)
class McpServerSpec:
    """One MCP server: a URL (streamable HTTP) with headers, or a stdio command with its
    environment and folder; ``name``, when given, prefixes its tools."""

    target: str  # the URL, or the command line as given (for messages: no variables expanded)
    headers: dict[str, str] = field(default_factory=dict)
    name: str = ""
    env: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    argv: tuple[str, ...] = ()  # a stdio server's command and arguments, variables expanded

    @property
    def is_url(self) -> bool:
        return self.target.startswith(("http://", "https://"))

    def command(self) -> list[str]:
        return list(self.argv) or shlex.split(self.target)

    @classmethod
    def parse(cls, text: str, environ: Mapping[str, str] | None = None) -> "McpServerSpec":
        import os

        environ = os.environ if environ is None else environ
        text = text.strip()
        if not text:
            raise McpServerError("an MCP server is empty: give a command line or an http(s) URL")
        name = ""
        named = _NAME.match(text)
        if named and not text.startswith(("http:", "https:")):
            name, text = prefix_name(named.group(1)), named.group(2)
        head, *parts = text.split(_HEADER_SEPARATOR)
        label = name or head.strip()
        if not head.startswith(("http://", "https://")):
            return cls._command_line(head.strip(), parts, name, environ)
        headers: dict[str, str] = {}
        for part in parts:
            key, colon, value = part.partition(":")
            if not colon or not key.strip():
                raise McpServerError(f"MCP server {head.strip()}: header {key.strip()!r} is not "
                                     "'Name: value'")
            headers[key.strip()] = expand_variables(value.strip(), label, f"header {key.strip()}", environ)
        return cls(expand_variables(head.strip(), label, "its URL", environ), headers, name)

    @classmethod
    def _command_line(cls, command: str, parts: list[str], name: str,
                      environ: Mapping[str, str]) -> "McpServerSpec":
        try:
            tokens = shlex.split(command)
        except ValueError as exc:
            raise McpServerError(f"MCP server command {command!r}: {exc}") from None
        assignments: list[tuple[str, str]] = []
        while tokens and (assignment := _ASSIGNMENT.match(tokens[0])):
            assignments.append((assignment.group(1), assignment.group(2)))
            tokens.pop(0)
        if not tokens:
            raise McpServerError("an MCP server command is empty")
        target = command if not assignments else shlex.join(tokens)  # never the variables' values
        label = name or target
        env = {key: expand_variables(value, label, f"environment variable {key}", environ)
               for key, value in assignments}
        cwd = None
        for part in parts:
            key, colon, value = part.partition(":")
            if key.strip().lower() != "cwd" or not colon or not value.strip():
                raise McpServerError(f"MCP server {label}: {part.strip()!r} after ' | ' is not 'cwd: FOLDER' "
                                     "(headers are for http(s) servers)")
            cwd = expand_variables(value.strip(), label, "its folder (cwd)", environ)
        argv = tuple(expand_variables(t, label, "its command line", environ) for t in tokens)
        return cls(target, name=name, env=env, cwd=cwd, argv=argv)

    @property
    def label(self) -> str:
        """How the server is named in messages: its name when it has one; header and environment
        values never appear (they hold tokens)."""
        if self.name:
            return self.name
        if not self.is_url:
            return self.target
        names = "".join(f"{_HEADER_SEPARATOR}{n}: ***" for n in self.headers)
        return f"{self.target}{names}"


def prefix_name(name: str) -> str:
    """A config key as a tool-name prefix: characters a function name cannot hold become ``_``."""
    return _NOT_IN_NAME.sub("_", name.strip())

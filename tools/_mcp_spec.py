"""Which MCP server to use, as one line (``--mcp``, ``PLAN_STUDIO_MCP``, the Settings page).

- ``https://host/mcp`` is a streamable HTTP server; headers follow the URL after `` | ``:
  ``https://host/mcp | Authorization: Bearer TOKEN | X-Team: blue``.
- anything else is a command line that starts a stdio server (split like a shell would, no
  shell involved): ``npx -y @modelcontextprotocol/server-everything``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from core import McpServerError

__all__ = ["McpServerSpec"]

_HEADER_SEPARATOR = " | "


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

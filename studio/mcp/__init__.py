"""The studio as an MCP server: ``make_mcp_server`` is the room's one way in (``plan-studio
mcp-server`` starts it over stdio)."""

from ._mcp_server import make_mcp_server

__all__ = ["make_mcp_server"]

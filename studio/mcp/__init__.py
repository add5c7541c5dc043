"""The studio as an MCP server."""

"""MCP servers from a config file in the format Claude Desktop, Cursor and Claude Code use
(``--mcp-config FILE``, ``PLAN_STUDIO_MCP_CONFIG``), read unchanged::

    {"mcpServers": {
        "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"],
                   "env": {"MEMORY_FILE_PATH": "/data/memory.json"}, "cwd": "/data"},
        "search": {"url": "https://host/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}

Each key is the server's prefix (``memory__create_entities``, see ``_mcp_spec``). Keys the
studio does not use (``type``, ``description``, the app's own settings around ``mcpServers``)
are left alone; a server with ``"disabled": true`` is skipped. A file that is not JSON is one
problem naming its line; a server entry that is wrong is one problem naming it, and the file's
other servers load.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from core import McpServerError

from ._mcp_spec import McpServerSpec, expand_variables, prefix_name

__all__ = ["read_mcp_config", "spec_from_entry"]

_HTTP_TYPES = {"http", "streamable-http", "streamablehttp", "streamable_http"}


def read_mcp_config(path: Path, environ: Mapping[str, str] | None = None) -> tuple[list[McpServerSpec], list[str]]:
    """The servers of the config file at ``path``, and one problem line per server (or for the
    whole file) that cannot be used."""
    environ = os.environ if environ is None else environ
    where = f"MCP config {path}"
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [f"{where}: cannot be read: {getattr(exc, 'strerror', None) or exc}"]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return [], [f"{where}, line {exc.lineno} column {exc.colno}: not valid JSON: {exc.msg}; "
                    "none of its servers loaded"]
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return [], [f"{where}: has no \"mcpServers\" object (the format Claude Desktop and Cursor use: "
                    "{\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}})"]
    specs: list[McpServerSpec] = []
    problems: list[str] = []
    for name, entry in servers.items():
        try:
            spec = spec_from_entry(str(name), entry, environ)
        except McpServerError as exc:
            problems.append(f"{where}: {exc}")
            continue
        if spec is not None:
            specs.append(spec)
    return specs, problems


def spec_from_entry(name: str, entry: Any, environ: Mapping[str, str]) -> McpServerSpec | None:
    """One ``mcpServers`` entry as a server spec; ``None`` for a disabled one."""
    label = repr(name)
    if not prefix_name(name):
        raise McpServerError("a server has an empty name")
    if not isinstance(entry, dict):
        raise McpServerError(f"MCP server {label}: is not an object with \"command\" or \"url\"")
    if entry.get("disabled") is True:
        return None
    kind = str(entry.get("type") or "").lower()
    url, command = entry.get("url") or entry.get("serverUrl"), entry.get("command")
    if kind == "sse":
        raise McpServerError(f"MCP server {label}: the SSE transport is not supported; give the server's "
                             "streamable HTTP URL (\"type\": \"http\")")
    if url is not None and command is not None:
        raise McpServerError(f"MCP server {label}: has both \"url\" and \"command\"; give one")
    if url is not None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise McpServerError(f"MCP server {label}: \"url\" must be an http(s) URL")
        headers = _strings(entry.get("headers"), label, "headers")
        return McpServerSpec(expand_variables(url, label, "its URL", environ),
                             {k: expand_variables(v, label, f"header {k}", environ) for k, v in headers.items()},
                             name=prefix_name(name))
    if kind in _HTTP_TYPES:
        raise McpServerError(f"MCP server {label}: type {kind!r} needs \"url\"")
    if kind and kind != "stdio":
        raise McpServerError(f"MCP server {label}: unknown type {kind!r} (stdio or http)")
    if not isinstance(command, str) or not command.strip():
        raise McpServerError(f"MCP server {label}: needs \"command\" (a stdio server) or \"url\" (streamable HTTP)")
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise McpServerError(f"MCP server {label}: \"args\" must be a list of strings")
    env = _strings(entry.get("env"), label, "env")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise McpServerError(f"MCP server {label}: \"cwd\" must be a folder's path")
    argv = tuple(expand_variables(str(a), label, "its command line", environ) for a in [command, *args])
    return McpServerSpec(
        " ".join([command, *map(str, args)]), name=prefix_name(name), argv=argv,
        env={k: expand_variables(v, label, f"environment variable {k}", environ) for k, v in env.items()},
        cwd=None if cwd is None else os.path.expanduser(expand_variables(cwd, label, "its folder (cwd)", environ)))


def _strings(value: Any, label: str, key: str) -> dict[str, str]:
    """An ``env`` or ``headers`` object; numbers and booleans as JSON writes them."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise McpServerError(f"MCP server {label}: \"{key}\" must be an object of names and values")
    out = {}
    for name, item in value.items():
        if isinstance(item, (dict, list)) or item is None:
            raise McpServerError(f"MCP server {label}: {key} {name!r} must be a string")
        out[str(name)] = item if isinstance(item, str) else json.dumps(item)
    return out

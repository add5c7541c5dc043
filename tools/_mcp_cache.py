"""Each MCP server's last tool listing, kept in the data folder so a command that only reads the
tools' definitions (validate, plan, ``plan-studio tools``, the Tools page) neither starts the
server nor imports the SDK (together over a second: ``benchmarks/mcp_config.py``).

One file per server, ``mcp-tools/<key>.json`` (folder 0700, file 0600): ``key`` is a SHA-256
of the server's whole spec (URL and headers, or command, arguments, environment and folder),
so any change to how it is started misses the cache; the values of its environment and
headers (tokens) are only hashed, never written. The file holds the server's name and its
tools as it listed them. A file that cannot be read or does not hold that is ignored (the
server is listed again), never an error. The server is started, and lists its tools again
(rewriting the file), when a tool is first called; ``McpConnection.call`` then checks the
called tool against that fresh listing (``changed_since_listed``).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core import PlanStudioError, ToolDefinition, private_folder
from core.tooling._argument_check import argument_problems, argument_validator

from ._mcp_spec import McpServerSpec

__all__ = ["ListedTool", "CACHE_FOLDER", "cache_key", "read_listing", "write_listing", "changed_since_listed"]

CACHE_FOLDER = "mcp-tools"
_FORMAT = 1


@dataclass(frozen=True)
class ListedTool:
    """A server's tool as its ``tools/list`` gave it, in the names the SDK's ``Tool`` uses."""

    name: str
    description: str | None = None
    input_schema: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    task_support: str | None = None

    @classmethod
    def of(cls, tool: Any) -> "ListedTool":
        """The SDK's ``mcp.types.Tool`` (or a ``ListedTool``) as kept in the cache."""
        if isinstance(tool, ListedTool):
            return tool
        annotations = getattr(tool, "annotations", None)
        if annotations is not None and not isinstance(annotations, dict):
            annotations = annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
        return cls(tool.name, tool.description, tool.input_schema, tool.output_schema, annotations,
                   getattr(getattr(tool, "execution", None), "task_support", None))


def cache_key(spec: McpServerSpec) -> str:
    """The hash of everything that decides which server ``spec`` starts and what it is sent."""
    whole = {"url": spec.target, "headers": spec.headers} if spec.is_url else {
        "command": spec.command(), "env": spec.env, "cwd": spec.cwd}
    return hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()


def _path(folder: Path, spec: McpServerSpec) -> Path:
    return Path(folder).expanduser() / CACHE_FOLDER / f"{cache_key(spec)}.json"


def read_listing(folder: Path, spec: McpServerSpec) -> tuple[str, list[ListedTool]] | None:
    """The server's name and tools as last listed, or None when there is no usable listing."""
    try:
        data = json.loads(_path(folder, spec).read_text(encoding="utf-8"))
        if not (isinstance(data, dict) and data.get("format") == _FORMAT and isinstance(data.get("tools"), list)
                and isinstance(data.get("server_name"), str)):
            return None
        tools = [_listed(item) for item in data["tools"]]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return data["server_name"], tools


def _listed(item: Any) -> ListedTool:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise TypeError("not a tool")
    tool = ListedTool(**item)  # an unknown key is a TypeError: the file is not ours
    for value, kind in ((tool.input_schema, dict), (tool.output_schema, dict), (tool.annotations, dict),
                        (tool.description, str), (tool.task_support, str)):
        if value is not None and not isinstance(value, kind):
            raise TypeError("not a tool")
    return tool


def write_listing(folder: Path, spec: McpServerSpec, server_name: str, tools: list[Any]) -> None:
    """Keep the server's listing (written whole, then moved into place; mode 0600). A listing
    that cannot be kept is only not kept: the next command lists the server again."""
    path = _path(folder, spec)
    data = {"format": _FORMAT, "server": spec.label, "server_name": server_name,
            "tools": [asdict(ListedTool.of(tool)) for tool in tools]}
    draft = None
    try:
        private_folder(path.parent)
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(draft, path)
    except (OSError, PlanStudioError, TypeError, ValueError):
        if draft is not None:
            draft.unlink(missing_ok=True)


def changed_since_listed(tool: str, fresh: Any | None, schema: dict[str, Any] | None,
                         arguments: dict[str, Any]) -> str | None:
    """Why ``tool`` cannot be called as the plan was checked: the server (just listed again) no
    longer has it, or its input schema changed and ``arguments`` do not fit the new one; None
    when the call may go ahead (the server's fresh listing decides)."""
    if fresh is None:
        return "the server no longer has this tool (its tools changed since they were last listed)"
    new_schema = getattr(fresh, "input_schema", None) or {"type": "object"}
    if schema is None or new_schema == schema:
        return None
    definition = ToolDefinition(name=tool, description="", input_schema=new_schema, kind="mcp")
    try:
        problems = argument_problems(definition, argument_validator(definition), arguments)
    except Exception as exc:  # noqa: BLE001 (a server's new schema is untrusted; say so, never a traceback)
        return f"the tool's input schema changed since it was last listed, and the new one cannot be used: {exc}"
    if not problems:
        return None
    said = "; ".join(f"{field}: {message}" for field, message in problems)
    return f"the tool's input schema changed since it was last listed, and the arguments do not fit it: {said}"

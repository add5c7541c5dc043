"""A stdio MCP server in plain Python (no SDK: it starts in milliseconds) for the listing-cache
tests: each start adds a line to ``FOLDER/starts.log``; its tools are ``FOLDER/tools.json`` as
read when it starts (a test changes them between starts).

    python tests/mcp_cache_server.py FOLDER
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

folder = Path(sys.argv[1])
with open(folder / "starts.log", "a", encoding="utf-8") as log:
    log.write("started\n")
tools = json.loads((folder / "tools.json").read_text(encoding="utf-8"))


def answer(message: dict) -> dict | None:
    method, params = message.get("method"), message.get("params") or {}
    if "id" not in message:
        return None  # a notification
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion"), "capabilities": {"tools": {}},
                  "serverInfo": {"name": "cache-kit", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        text = f"{params['name']} called with {json.dumps(params.get('arguments') or {}, sort_keys=True)}"
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"no {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


for line in sys.stdin:
    if line.strip():
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()

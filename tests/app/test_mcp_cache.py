"""An MCP server's tools from the cache of its last listing: the server is not started (and the
SDK not imported) until a tool is called; the call lists it again and the fresh listing decides.
The server (tests/mcp_cache_server.py, no SDK) logs each start, so a start is seen, not guessed."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from core import Settings, ToolExecutionError
from tools import connection_of, load_tools
from tools import McpServerSpec
from tools._mcp_cache import CACHE_FOLDER, cache_key

SERVER = Path(__file__).resolve().parents[1] / "mcp_cache_server.py"
SECRET = "s3cret-token-value-91"
LOOKUP = {"name": "lookup", "description": "Look a city up.",
          "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
          "annotations": {"readOnlyHint": True}}
GONE = {"name": "gone", "description": "A tool the server drops later.", "inputSchema": {"type": "object"}}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("mcpcache")


def _server(folder: Path) -> str:
    return f"API_KEY={SECRET} {sys.executable} {SERVER} {folder}"


def _settings(folder: Path, **extra) -> Settings:
    return Settings(data_dir=folder / "data", mcp=[_server(folder)], mcp_timeout=20, **extra)


def _starts(folder: Path) -> int:
    log = folder / "starts.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def _tools(folder: Path, *tools: dict) -> None:
    (folder / "tools.json").write_text(json.dumps(list(tools)))


@pytest.fixture
def load(folder) -> Iterator:
    loaded = []

    def load_now(**extra):
        registry, problems = load_tools(_settings(folder, **extra))
        assert problems == []
        loaded.append(registry)
        return registry
    yield load_now
    for registry in loaded:
        for tool in registry:
            if connection_of(tool) is not None:
                connection_of(tool).close()


def _cache_files(folder: Path) -> list[Path]:
    return sorted((folder / "data" / CACHE_FOLDER).glob("*.json"))


def test_a_first_listing_is_kept_private_and_without_the_servers_secrets(folder, load):
    _tools(folder, LOOKUP, GONE)
    registry = load()
    assert _starts(folder) == 1 and connection_of(registry.get("lookup")).started
    [kept] = _cache_files(folder)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    text = kept.read_text()
    assert SECRET not in text and "API_KEY" not in text
    assert [t["name"] for t in json.loads(text)["tools"]] == ["lookup", "gone"]


def test_a_cached_listing_builds_the_tools_without_starting_the_server_until_a_call(folder, load):
    before = _starts(folder)
    registry = load()
    lookup = registry.get("lookup")
    assert _starts(folder) == before and not connection_of(lookup).started
    assert lookup.required == ["city"] and lookup.effects.read_only and lookup.group == "cache-kit"
    assert lookup.source.startswith("MCP server ") and SECRET not in lookup.source
    assert lookup.call({"city": "Paris"}) == 'lookup called with {"city": "Paris"}'
    assert _starts(folder) == before + 1
    registry.get("gone").call({})  # the same server, already started
    assert _starts(folder) == before + 1


def test_a_changed_server_says_so_at_the_call_and_its_new_listing_is_kept(folder, load):
    registry = load()  # from the cache: lookup(city) and gone
    before = _starts(folder)
    changed = {**LOOKUP, "inputSchema": {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string", "maxLength": 5}, "country": {"type": "string"}}}}
    _tools(folder, changed)
    with pytest.raises(ToolExecutionError, match=r"gone failed: MCP server .*: the server no longer has this tool"):
        registry.get("gone").call({})
    assert _starts(folder) == before + 1
    with pytest.raises(ToolExecutionError, match=r"lookup failed: .*input schema changed .*do not fit it: city: "):
        registry.get("lookup").call({"city": "Amsterdam"})  # fits the cached schema, not the server's
    # Arguments that fit the server's new schema go through.
    assert registry.get("lookup").call({"city": "Paris"}) == 'lookup called with {"city": "Paris"}'
    fresh = load()  # the next start sees what the server listed
    assert "gone" not in fresh and fresh.get("lookup").param_names == ["city", "country"]
    assert _starts(folder) == before + 1


def test_another_spec_a_corrupt_cache_and_refresh_list_afresh(folder, load):
    before = _starts(folder)
    load(refresh_tools=True)
    assert _starts(folder) == before + 1
    # Another environment value is another server: its own listing.
    other = load_tools(Settings(data_dir=folder / "data", mcp_timeout=20,
                                mcp=[f"API_KEY=other {sys.executable} {SERVER} {folder}"]))[0]
    assert _starts(folder) == before + 2 and len(_cache_files(folder)) == 2
    connection_of(other.get("lookup")).close()
    for kept, text in zip(_cache_files(folder), ["{not json", '{"format": 1, "server_name": "x", "tools": [{"name": 3}]}']):
        kept.write_text(text)
    registry = load()  # no problem said, no traceback: listed afresh and kept again
    assert _starts(folder) == before + 3 and "lookup" in registry
    ours = folder / "data" / CACHE_FOLDER / f"{cache_key(McpServerSpec.parse(_server(folder)))}.json"
    assert [t["name"] for t in json.loads(ours.read_text())["tools"]] == ["lookup"]


def test_a_command_with_a_cached_server_does_not_import_the_sdk(folder, load):
    load()  # the listing is kept
    code = ("import sys; from core import Settings; from tools import load_tools; "
            f"r, p = load_tools(Settings(data_dir={str(folder / 'data')!r}, mcp_timeout=20, "
            f"mcp=[{_server(folder)!r}])); "
            "print(sorted(r.names()) == ['lookup'], p, 'mcp' in sys.modules)")
    before = _starts(folder)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PLAN_STUDIO_DEMO": "false"})
    assert done.stdout.split() == ["True", "[]", "False"], done.stderr
    assert _starts(folder) == before

"""MCP servers as they are configured: an ``mcpServers`` config file as Claude Desktop and Cursor
write it, per-server environment and folder, one server twice under two prefixes, and bad
config named while the rest loads. Against real npm servers nobody here wrote (installed by
``npm ci --prefix tests/mcp``): ``server-memory`` (its ``MEMORY_FILE_PATH`` honoured),
``server-filesystem`` twice with two roots, and ``server-everything``. One load for the module:
its servers start side by side once."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Iterator

import pytest

from core import Executor, McpServerError, Settings, StepStatus, ToolExecutionError, Validator
from core.formats import plan_from_seed
from tools import McpServerSpec, connection_of, load_tools, read_mcp_config
from tools._mcp_stdio import default_environment

MODULES = Path(__file__).resolve().parents[1] / "mcp" / "node_modules" / "@modelcontextprotocol"
TIMEOUT = 30.0  # the machine is shared; nothing here waits for it unless a server hangs
MEMORY_FOLDER_VARIABLE = "PLAN_STUDIO_TEST_MEMORY_FOLDER"


def _server(name: str) -> str:
    path = MODULES / name / "dist" / "index.js"
    if not path.exists():
        pytest.fail(f"{name} is not installed: run `npm ci --prefix tests/mcp`")
    return str(path)


@pytest.fixture(scope="module")
def configured(tmp_path_factory) -> Iterator[tuple]:
    """A config file as Claude Desktop writes it (plus keys the studio does not use), and one
    ``--mcp`` line with a prefix, loaded once."""
    root = tmp_path_factory.mktemp("mcpconf")
    docs, notes, memory = root / "docs", root / "notes", root / "memory"
    for folder in (docs, notes, memory):
        folder.mkdir()
    (docs / "readme.txt").write_text("the docs root\n")
    (notes / "todo.txt").write_text("the notes root\n")
    config = root / "claude_desktop_config.json"
    config.write_text(json.dumps({
        "globalShortcut": "Ctrl+Space",
        "mcpServers": {
            "memory": {"command": "node", "args": [_server("server-memory")],
                       "env": {"MEMORY_FILE_PATH": f"${{{MEMORY_FOLDER_VARIABLE}}}/graph.jsonl"}},
            "docs": {"command": "node", "args": [_server("server-filesystem"), str(docs)]},
            # A relative root, resolved in the server's own folder: the configured cwd.
            "notes": {"type": "stdio", "command": "node", "args": [_server("server-filesystem"), "."],
                      "cwd": str(notes)},
            "broken": {"command": "no-such-mcp-server-command-here"},
            "keyless": {"command": "node", "args": ["x.js"], "env": {"API_KEY": "${PLAN_STUDIO_TEST_NOT_SET}"}},
            "off": {"command": "no-such-command", "disabled": True},
        }}, indent=2))
    os.environ[MEMORY_FOLDER_VARIABLE] = str(memory)
    os.environ.pop("PLAN_STUDIO_TEST_NOT_SET", None)
    try:
        settings = Settings(data_dir=root / "data", mcp_timeout=TIMEOUT, mcp_config=config,
                            mcp=[f"ev: node {_server('server-everything')} stdio"])
        registry, problems = load_tools(settings)
    finally:
        del os.environ[MEMORY_FOLDER_VARIABLE]
    yield registry, problems, root
    for tool in registry:
        if connection_of(tool) is not None:
            connection_of(tool).close()


def _run(registry, steps):
    executor = Executor(registry)
    plan = plan_from_seed({"steps": steps})
    assert Validator(registry).validate(plan) == []
    run = executor.start(plan)
    list(executor.run_all(run))
    return [run.steps[s.id] for s in plan.steps]


def test_each_server_is_a_group_named_by_its_key_with_its_tools_prefixed(configured):
    registry, _, _ = configured
    groups = {tool.group for tool in registry if tool.kind == "mcp"}
    assert groups == {"memory", "docs", "notes", "ev"}
    for tool in (t for t in registry if t.kind == "mcp"):
        assert tool.name.startswith(f"{tool.group}__")
        # Valid as a function name for every model API (OpenAI, Anthropic: ^[a-zA-Z0-9_-]{1,64}$).
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", tool.name), tool.name
    assert {"docs__read_text_file", "notes__read_text_file", "memory__create_entities", "ev__echo"} <= set(
        registry.names())


def test_a_server_that_cannot_start_and_a_missing_variable_are_named_and_the_rest_loads(configured):
    _, problems, _ = configured
    failures = [p for p in problems if "simulate-research-query" not in p]  # a notice from server-everything
    assert len(failures) == 2, failures
    broken = next(p for p in failures if "broken" in p)
    assert "could not start: command not found: no-such-mcp-server-command-here" in broken
    keyless = next(p for p in failures if "keyless" in p)
    assert "PLAN_STUDIO_TEST_NOT_SET is not set" in keyless and "API_KEY" in keyless
    assert not any("'off'" in p or "no-such-command" in p.replace("no-such-mcp", "") for p in problems)


def test_server_memory_writes_where_its_env_says(configured):
    registry, _, root = configured
    [step] = _run(registry, [{"tool": "memory__create_entities", "params": {"entities": [
        {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]}}])
    assert step.status == StepStatus.succeeded, step.error
    stored = (root / "memory" / "graph.jsonl").read_text()
    assert '"name":"Ada"' in stored.replace(" ", "")
    assert not (MODULES / "server-memory" / "dist" / "memory.jsonl").exists()


def test_the_filesystem_server_twice_with_two_roots(configured):
    registry, _, root = configured
    docs, notes = _run(registry, [
        {"tool": "docs__read_text_file", "params": {"path": str(root / "docs" / "readme.txt")}},
        {"tool": "notes__list_allowed_directories", "params": {}},
    ])
    assert docs.status == notes.status == StepStatus.succeeded
    assert "the docs root" in json.dumps(docs.result)
    assert str(root / "notes") in json.dumps(notes.result)  # "." resolved in the configured cwd
    # Each copy keeps to its own root: the docs server refuses the notes folder.
    with pytest.raises(ToolExecutionError, match="outside allowed directories|Access denied"):
        registry.get("docs__read_text_file").call({"path": str(root / "notes" / "todo.txt")})


def test_server_everything_under_a_prefix_answers_by_its_own_names(configured):
    registry, _, _ = configured
    [add, echo] = _run(registry, [
        {"tool": "ev__get-sum", "params": {"a": 2, "b": 40}},
        {"tool": "ev__echo", "params": {"message": "hi"}},
    ])
    assert "42" in str(add.result)
    assert echo.result == "Echo: hi"
    assert registry.get("ev__echo").source == "MCP server ev"


def test_a_config_file_that_is_not_json_names_its_line_and_the_other_tools_load(tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{\n  "mcpServers": {\n    "a": {"command": "x"},\n  }\n}\n')  # a trailing comma
    registry, problems = load_tools(Settings(data_dir=tmp_path / "data", mcp_config=config, demo=True))
    assert problems == [f"MCP config {config}, line 4 column 3: not valid JSON: Expecting property name "
                        "enclosed in double quotes; none of its servers loaded"]
    assert len(registry) > 0  # the demo tools asked for beside it still load


@pytest.mark.parametrize(("content", "words"), [
    ('{"servers": {}}', 'has no "mcpServers" object'),
    (None, "cannot be read"),
])
def test_a_config_file_that_is_not_a_config_is_named(tmp_path, content, words):
    config = tmp_path / "config.json"
    if content is not None:
        config.write_text(content)
    specs, [problem] = read_mcp_config(config)
    assert specs == [] and problem.startswith(f"MCP config {config}: ") and words in problem


@pytest.mark.parametrize(("entry", "words"), [
    ({"url": "https://h/sse", "type": "sse"}, "SSE transport is not supported"),
    ({"url": "https://h/mcp", "command": "x"}, 'both "url" and "command"'),
    ({"args": ["x"]}, 'needs "command"'),
    ({"command": "x", "args": "not a list"}, '"args" must be a list'),
    ({"command": "x", "env": {"A": {"b": 1}}}, "env 'A' must be a string"),
    ({"url": "ftp://h"}, "must be an http(s) URL"),
    ("npx server", "is not an object"),
])
def test_a_bad_server_entry_is_named_and_the_files_other_servers_are_kept(tmp_path, entry, words):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"mcpServers": {"bad one": entry, "good": {"command": "node", "args": ["s.js"]}}}))
    specs, problems = read_mcp_config(config)
    assert [s.name for s in specs] == ["good"]
    assert len(problems) == 1 and "MCP server 'bad one'" in problems[0] and words in problems[0]


def test_a_claude_desktop_entry_becomes_a_spec_unchanged(tmp_path, monkeypatch):
    monkeypatch.setenv("TEAM_TOKEN", "t0k")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"mcpServers": {
        "my files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~/Desktop"],
                     "env": {"DEBUG": 1, "HOME_DIR": "${HOME:-/nowhere}"}, "cwd": "~"},
        "search": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${env:TEAM_TOKEN}"}}}}))
    [files, search], problems = read_mcp_config(config)
    assert problems == []
    assert files.name == "my_files" and files.label == "my_files"  # a prefix a function name can hold
    assert files.command() == ["npx", "-y", "@modelcontextprotocol/server-filesystem", "~/Desktop"]
    assert files.env == {"DEBUG": "1", "HOME_DIR": os.environ.get("HOME", "/nowhere")}
    assert files.cwd == os.path.expanduser("~")
    assert (search.target, search.headers, search.is_url) == ("https://h/mcp", {"Authorization": "Bearer t0k"}, True)
    assert "t0k" not in search.label


def test_one_line_takes_a_prefix_variables_and_a_folder(monkeypatch):
    monkeypatch.setenv("MEM_DIR", "/data")
    spec = McpServerSpec.parse("mem: MEMORY_FILE_PATH=${MEM_DIR}/m.jsonl X=1 npx -y server-memory | cwd: ${MEM_DIR}")
    assert (spec.name, spec.env, spec.cwd, spec.command()) == (
        "mem", {"MEMORY_FILE_PATH": "/data/m.jsonl", "X": "1"}, "/data", ["npx", "-y", "server-memory"])
    assert spec.label == "mem" and "/data/m.jsonl" not in repr(spec)
    plain = McpServerSpec.parse("node server.js stdio")  # as before: no name, the command line as given
    assert (plain.name, plain.label, plain.command(), plain.env) == ("", "node server.js stdio",
                                                                      ["node", "server.js", "stdio"], {})
    url = McpServerSpec.parse("search: https://h/mcp | Authorization: Bearer x")
    assert (url.name, url.target, url.headers) == ("search", "https://h/mcp", {"Authorization": "Bearer x"})


@pytest.mark.parametrize(("line", "words"), [
    ("K=${PLAN_STUDIO_TEST_NOT_SET} node s.js", "MCP server node s.js: environment variable K uses "
                                                 "${PLAN_STUDIO_TEST_NOT_SET}, but the environment variable "
                                                 "PLAN_STUDIO_TEST_NOT_SET is not set"),
    ("api: https://h/mcp | X-Key: ${PLAN_STUDIO_TEST_NOT_SET}", "MCP server api: header X-Key uses"),
    ("node s.js | X-Key: v", "is not 'cwd: FOLDER'"),
    ("A=1", "command is empty"),
])
def test_bad_lines_are_named(monkeypatch, line, words):
    monkeypatch.delenv("PLAN_STUDIO_TEST_NOT_SET", raising=False)
    with pytest.raises(McpServerError, match=re.escape(words)):
        McpServerSpec.parse(line)


def test_a_stdio_server_gets_the_sdks_default_environment_with_its_own_on_top():
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS, get_default_environment

    if sys.platform != "win32":
        from tools._mcp_stdio import _SDK_INHERITED

        assert list(_SDK_INHERITED) == list(DEFAULT_INHERITED_ENV_VARS)
    assert default_environment() == get_default_environment()


def test_the_cli_takes_mcp_config(tmp_path):
    from studio.cli._cli_args import parser
    from studio.cli._main import _settings

    config = tmp_path / "c.json"
    settings = _settings(parser().parse_args(["--mcp-config", str(config), "plan", "g", "--data-dir", str(tmp_path)]))
    assert settings.mcp_config == config.resolve()

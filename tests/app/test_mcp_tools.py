"""MCP tools: listed, planned with, validated and run through the official SDK's client, against
the npm reference server ``@modelcontextprotocol/server-everything`` (nobody here wrote it; the
README's test command installs it with ``npm ci --prefix tests/mcp``) and against a server the
tests define with the SDK's ``MCPServer`` (tests/mcp_test_server.py), over stdio and HTTP."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from core import Executor, McpServerError, Plan, Settings, StepStatus, Validator
from core.formats import plan_from_seed
from core.planners import LLMPlanner, render_manual
from tools import LoadNotice, McpServerSpec, add_mcp_server, connection_of, load_tools
from tools._mcp import McpConnection

HERE = Path(__file__).resolve().parents[1]
EVERYTHING = HERE / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
TEST_SERVER = HERE / "mcp_test_server.py"
PY = sys.executable
TIMEOUT = 20.0  # generous: the machine is shared; only the hang tests wait for it
TODAY = dt.date(2025, 10, 12)


def _everything() -> str:
    if not EVERYTHING.exists():
        pytest.fail("server-everything is not installed: run `npm ci --prefix tests/mcp` (the "
                    "README's test command does)")
    return f"node {EVERYTHING} stdio"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve_http(argv: list[str], port: int, env: dict[str, str] | None = None) -> subprocess.Popen:
    process = subprocess.Popen(argv, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + TIMEOUT
    while True:  # ready once the port takes connections
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"{argv} did not start listening on {port}")
            time.sleep(0.1)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> Iterator[tuple]:
    """The built-ins plus server-everything and the test server, both over stdio, and one
    server that is not there: loaded once for the module (node and Python start slowly here)."""
    settings = Settings(demo=True, data_dir=tmp_path_factory.mktemp("data"), today=TODAY, mcp_timeout=TIMEOUT,
                        mcp=[_everything(), f"{PY} {TEST_SERVER} stdio", "no-such-mcp-server-command"])
    registry, problems = load_tools(settings)
    yield registry, problems
    for tool in registry:
        if connection_of(tool) is not None:
            connection_of(tool).close()


def test_tools_are_listed_as_the_server_gave_them(loaded):
    registry, _ = loaded
    echo = registry.get("echo")
    connection = connection_of(echo)
    listed = {t.name: t for t in connection.tools}
    # Every tool the server listed is in the registry, with its description and schemas unchanged.
    everything = [t for t in registry if t.group == connection.server_name]
    tasks_only = {n for n, t in listed.items() if t.execution and t.execution.task_support == "required"}
    assert {t.name for t in everything} == set(listed) - tasks_only
    for tool in everything:
        assert tool.description == (listed[tool.name].description or "")
        assert tool.parameters == listed[tool.name].input_schema
        assert tool.returns == (listed[tool.name].output_schema or {})
    assert echo.parameters["properties"]["message"]["type"] == "string"
    assert echo.required == ["message"]
    # The SDK server's schemas keep their titles: nothing is cleaned up the way built-ins are.
    assert registry.get("add").parameters["title"] == "addArguments"
    assert registry.get("add").returns["properties"]["result"]["type"] == "integer"
    assert registry.get("add").source == f"MCP server {PY} {TEST_SERVER} stdio"
    assert "facilities_list" in registry  # the built-ins are still there


def test_a_server_that_does_not_start_is_one_problem_and_the_rest_loads(loaded):
    registry, problems = loaded
    assert problems[-1] == ("MCP server no-such-mcp-server-command: could not start: "
                            "command not found: no-such-mcp-server-command")
    assert "echo" in registry and "add" in registry


def test_a_tool_that_only_runs_as_an_mcp_task_is_skipped_with_a_notice(loaded):
    registry, problems = loaded
    listed = connection_of(registry.get("echo")).tools
    tasks_only = [t.name for t in listed if t.execution and t.execution.task_support == "required"]
    assert tasks_only, "server-everything lists a task-only tool (simulate-research-query)"
    label = connection_of(registry.get("echo")).spec.label
    assert problems[:-1] == [f"MCP server {label}: tool {name!r} skipped: it only runs as an MCP task, "
                             "which Plan Studio does not support; the server's other tools are loaded"
                             for name in tasks_only]
    # A notice, not a failure: the server is usable without that tool.
    assert all(isinstance(p, LoadNotice) for p in problems[:-1])
    assert not isinstance(problems[-1], LoadNotice)  # the server that does not start
    assert not any(name in registry for name in tasks_only)


def test_the_cli_uses_server_everything_and_warns_about_its_task_only_tool(tmp_path, capsys):
    from studio.cli._main import main

    plan = tmp_path / "echo.json"
    plan.write_text(json.dumps({"steps": [{"tool": "echo", "params": {"message": "hi"}, "depends_on": []}]}))
    status = main(["run", str(plan), "--mcp", _everything(), "--data-dir", str(tmp_path / "data"),
                   "--today", TODAY.isoformat()])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "step 0 (echo): succeeded" in out and "run succeeded" in out
    [warning] = err.splitlines()
    assert warning.startswith("plan-studio: warning: MCP server ")
    assert "tool 'simulate-research-query' skipped: it only runs as an MCP task" in warning


def test_the_tools_page_lists_server_everything_and_says_which_tool_it_skipped(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    app_script = Path(__file__).resolve().parents[2] / "studio" / "app.py"
    monkeypatch.setenv("PLAN_STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PLAN_STUDIO_MCP", _everything())
    monkeypatch.setenv("PLAN_STUDIO_MCP_TIMEOUT", str(TIMEOUT))
    at = AppTest.from_file(str(app_script), default_timeout=120).run()
    at.switch_page("../pages/tools.py").run()
    assert not at.exception, [e.value for e in at.exception]
    warnings = [w.value.replace("\\", "") for w in at.warning]
    [line] = [w for w in warnings if "simulate-research-query" in w]
    assert line.startswith("Partly loaded: MCP server node ") and "skipped: it only runs as an MCP task" in line
    at.text_input(key="tools.filter").input("echo").run()  # past the first page of cards
    assert any("**echo** · group" in m.value.replace("\\", "") for m in at.markdown)


def test_an_image_comes_back_as_the_servers_content_blocks(loaded):
    registry, _ = loaded
    [step] = _run(registry, [{"tool": "get-tiny-image", "params": {}}])
    assert step.status == StepStatus.succeeded
    kinds = [block["type"] for block in step.result]
    assert "image" in kinds and "text" in kinds
    image = next(block for block in step.result if block["type"] == "image")
    assert image["mimeType"] == "image/png" and image["data"]


def test_effects_are_read_from_the_servers_annotations(loaded):
    registry, _ = loaded
    from core import READ_ONLY, UNKNOWN
    from core.tooling._definition import effects_from_annotations

    assert registry.get("echo").effects == READ_ONLY  # server-everything: readOnlyHint true
    assert registry.get("add").effects == UNKNOWN  # the tests' server gives no annotations
    assert registry.get("add").effects.may_write
    for listed in connection_of(registry.get("echo")).tools:
        if listed.name in registry:
            said = listed.annotations
            effects = registry.get(listed.name).effects
            assert effects == effects_from_annotations(said)
            if said is not None and said.read_only_hint is not None:
                assert effects.read_only is said.read_only_hint
    assert any(t.effects.known and t.effects.may_write for t in registry if t.kind == "mcp")


def test_the_functions_manual_lists_mcp_tools(loaded):
    registry, _ = loaded
    manual = render_manual(registry)
    echo = registry.get("echo")
    assert f"### echo\n{echo.description}\nGroup: {echo.group}\nEffects: read-only\n" in manual
    assert "  - message: string; required. Message to echo" in manual
    assert "### get-structured-content" in manual and "Return fields:" in manual


@pytest.mark.parametrize(("params", "field", "words"), [
    ({}, "message", "required parameter is missing"),
    ({"message": 5}, "message", "must be text (got 5)"),
    ({"message": "hi", "mesage": "x"}, "mesage", "did you mean 'message'"),
])
def test_arguments_are_validated_with_the_input_schema(loaded, params, field, words):
    registry, _ = loaded
    problems = Validator(registry).validate(plan_from_seed({"steps": [{"tool": "echo", "params": params}]}))
    assert [(p.step_index, p.field) for p in problems] == [(0, f"params.{field}")]
    assert words in problems[0].message


def test_an_enum_and_a_bound_from_a_zod_schema_are_checked(loaded):
    registry, _ = loaded
    plan = plan_from_seed({"steps": [{"tool": "get-structured-content", "params": {"location": "Paris"}},
                                     {"tool": "get-resource-links", "params": {"count": 11}}]})
    problems = Validator(registry).validate(plan)
    assert [(p.step_index, p.field) for p in problems] == [(0, "params.location"), (1, "params.count")]
    assert "'Paris' is not one of" in problems[0].message
    assert "must be at most 10 (got 11)" in problems[1].message


def _run(registry, steps, max_parallel=None):
    executor = Executor(registry, max_parallel=max_parallel)
    plan = steps if isinstance(steps, Plan) else plan_from_seed({"steps": steps})
    run = executor.start(plan)
    list(executor.run_all(run))
    return [run.steps[s.id] for s in plan.steps]


def test_a_plan_runs_as_mcp_tool_calls_structured_or_text(loaded):
    registry, _ = loaded
    steps = _run(registry, [
        {"tool": "add", "params": {"a": 2, "b": 40}},
        {"tool": "echo", "params": {"message": "total ${step[0].result}"}, "depends_on": [0]},
        {"tool": "get-structured-content", "params": {"location": "Chicago"}},
        {"tool": "greet", "params": {"name": "Ada"}},
        {"tool": "get-sum", "params": {"a": 1.5, "b": 2}},
    ])
    assert [s.status for s in steps] == [StepStatus.succeeded] * 5
    assert steps[0].result == {"result": 42}
    assert steps[1].result == "Echo: total 42"  # text content, as the server wrote it
    structured = steps[2].result
    schema = registry.get("get-structured-content").returns
    assert isinstance(structured, dict) and set(schema["required"]) <= set(structured)
    assert steps[3].result == "Hello, Ada!"
    assert "3.5" in steps[4].result


def test_a_50_mb_result_comes_back_in_seconds(loaded):
    # The SDK's stdio reader copied the unfinished line once per 64 KiB read: quadratic, 15 s
    # here for 50 MB and 52 s on a slower machine. Linear now (benchmarks/mcp_tools.py: ~0.5 s).
    registry, _ = loaded
    began = time.monotonic()
    text = registry.get("big_text").call({"megabytes": 50})
    elapsed = time.monotonic() - began
    assert len(text) == 50_000_000 and text.startswith("0123456789abcdef") and text.endswith("cdef")
    assert elapsed < 8, f"a 50 MB result took {elapsed:.1f} s"


def test_an_output_schema_whose_pattern_backtracks_is_checked_in_bounded_time(loaded):
    # The SDK checks a result against the server's outputSchema with Python's re: "a" * 40 + "!"
    # against "^(a+)+$" held the GIL for hours, freezing the studio with the run.
    registry, _ = loaded
    fits, hostile = _run(registry, [{"tool": "code_of", "params": {"text": "aaaa"}},
                                    {"tool": "code_of", "params": {"text": "a" * 40 + "!"}}])
    assert fits.status == StepStatus.succeeded and fits.result == {"code": "aaaa"}
    assert hostile.status == StepStatus.failed
    assert "does not match" in hostile.error and "['code']" in hostile.error


def test_a_tool_error_fails_the_step_with_the_servers_message(loaded):
    registry, _ = loaded
    [failed] = _run(registry, [{"tool": "fail", "params": {"reason": "the disk is full"}}])
    assert failed.status == StepStatus.failed
    assert "the disk is full" in failed.error
    assert "Traceback" not in failed.error


def test_a_server_that_hangs_or_dies_mid_run_fails_its_step_and_nothing_else(tmp_path):
    settings = Settings(demo=True, data_dir=tmp_path, mcp=[f"{PY} {TEST_SERVER} stdio"], mcp_timeout=TIMEOUT)
    registry, problems = load_tools(settings)
    assert problems == []
    connection_of(registry.get("hang")).timeout = 3  # the same setting; started with room to spare
    try:
        hung, after = _run(registry, [{"tool": "hang", "params": {}}, {"tool": "greet", "params": {"name": "Bo"}}])
        assert hung.status == StepStatus.failed and "did not answer within 3 s" in hung.error
        assert after.status == StepStatus.succeeded  # the session still serves other calls
        connection_of(registry.get("hang")).timeout = TIMEOUT  # a restart below needs room to start
        # One step at a time: a call in flight when the server dies (a parallel run's) fails with it.
        died, later, builtin = _run(registry, [
            {"tool": "die", "params": {}},
            {"tool": "greet", "params": {"name": "Bo"}, "depends_on": []},
            {"tool": "facilities_list", "params": {}},
        ], max_parallel=1)
        assert died.status == StepStatus.failed
        assert "the connection closed (the server stopped)" in died.error and f"{TEST_SERVER}" in died.error
        assert builtin.status == StepStatus.succeeded
        # The next call starts the server again: a crash costs the step that saw it, no more.
        assert later.status == StepStatus.succeeded and later.result == "Hello, Bo!"
    finally:
        connection_of(registry.get("greet")).close()


def test_a_server_that_never_answers_at_start_times_out(tmp_path):
    command = f"{PY} -c 'import time; time.sleep(120)'"
    registry, problems = load_tools(Settings(demo=True, data_dir=tmp_path, mcp=[command], mcp_timeout=2))
    assert problems == [f"MCP server {command}: did not start and list its tools within 2 s"]
    assert "facilities_list" in registry


def test_a_server_that_exits_at_start_says_what_it_printed(tmp_path):
    command = f"{PY} -c 'import sys; sys.exit(\"missing API_TOKEN\")'"
    registry, problems = load_tools(Settings(data_dir=tmp_path, mcp=[command], mcp_timeout=TIMEOUT))
    [problem] = problems
    assert problem.startswith(f"MCP server {command}: could not start: ")
    assert problem.endswith("its last output: missing API_TOKEN")


def test_streamable_http_with_headers(tmp_path):
    port = _free_port()
    server = _serve_http([PY, str(TEST_SERVER), "http", str(port), "s3cret-token"], port)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        registry, problems = load_tools(Settings(
            data_dir=tmp_path, mcp=[f"{url} | Authorization: Bearer s3cret-token"], mcp_timeout=TIMEOUT))
        assert problems == []
        assert registry.get("add").source == f"MCP server {url} | Authorization: ***"
        [added, failed] = _run(registry, [{"tool": "add", "params": {"a": 1, "b": 2}},
                                          {"tool": "fail", "params": {"reason": "no quota"}}])
        assert added.result == {"result": 3}
        assert failed.status == StepStatus.failed and "no quota" in failed.error
        connection_of(registry.get("add")).close()
        # A wrong token: one problem naming the server, and the token is not in it.
        registry, problems = load_tools(Settings(
            data_dir=tmp_path, mcp=[f"{url} | Authorization: Bearer wrong-token"], mcp_timeout=TIMEOUT))
        [problem] = problems
        assert problem.startswith(f"MCP server {url} | Authorization: ***: could not start")
        assert "401" in problem and "wrong-token" not in problem
    finally:
        server.kill()
        server.wait()


def test_server_everything_over_streamable_http(tmp_path):
    _everything()
    port = _free_port()
    server = _serve_http(["node", str(EVERYTHING), "streamableHttp"], port, env={"PORT": str(port)})
    try:
        registry, problems = load_tools(Settings(data_dir=tmp_path, mcp=[f"http://127.0.0.1:{port}/mcp"],
                                                 mcp_timeout=TIMEOUT))
        assert all("only runs as an MCP task" in p for p in problems)
        [echo] = _run(registry, [{"tool": "echo", "params": {"message": "over HTTP"}}])
        assert echo.result == "Echo: over HTTP"
        connection_of(registry.get("echo")).close()
    finally:
        server.kill()
        server.wait()


def test_a_tool_name_already_taken_is_refused_not_replaced(tmp_path):
    registry, problems = load_tools(Settings(data_dir=tmp_path, mcp=[f"{PY} {TEST_SERVER} stdio"] * 2,
                                             mcp_timeout=TIMEOUT))
    assert len(problems) == 1 and "'test-kit' is already the name of a tool group" in problems[0]
    assert registry.get("add").kind == "mcp"
    connection_of(registry.get("add")).close()


def test_the_llm_planner_plans_with_mcp_tools(loaded, llm_server, tmp_path):
    registry, _ = loaded
    settings = Settings(data_dir=tmp_path, today=TODAY, planner="llm", model="test-model",
                        max_retries=1, timeout=10)
    # First the model misspells a parameter; the planner feeds the schema's problem back.
    llm_server.reply(json.dumps({"steps": [{"tool": "echo", "params": {"mesage": "hi"}, "depends_on": []}]}))
    llm_server.reply(json.dumps({"steps": [
        {"tool": "add", "params": {"a": 20, "b": 22}, "depends_on": []},
        {"tool": "echo", "params": {"message": "the answer is ${step[0].result}"}, "depends_on": [0]}]}))
    plan = LLMPlanner(registry, settings).plan("Add 20 and 22 and echo the answer", today=TODAY)
    system = llm_server.messages(0)[0]["content"]
    assert "### echo" in system and registry.get("echo").description in system
    feedback = llm_server.messages(1)[-1]["content"]
    assert "mesage" in feedback and "message" in feedback
    assert [s.tool for s in plan.steps] == ["add", "echo"]
    steps = _run(registry, plan)
    assert steps[1].result == "Echo: the answer is 42"


@pytest.mark.parametrize(("text", "target", "headers"), [
    ("npx -y @modelcontextprotocol/server-everything", "npx -y @modelcontextprotocol/server-everything", {}),
    ("https://h/mcp | Authorization: Bearer a b | X-Team: blue", "https://h/mcp",
     {"Authorization": "Bearer a b", "X-Team": "blue"}),
])
def test_server_specs(text, target, headers):
    spec = McpServerSpec.parse(text)
    assert (spec.target, spec.headers) == (target, headers)
    assert "Bearer" not in spec.label


@pytest.mark.parametrize("text", ["", "https://h/mcp | no colon here", "python 'unclosed"])
def test_bad_server_specs_are_named(text):
    with pytest.raises(McpServerError):
        McpServerSpec.parse(text)


def test_a_closed_connection_refuses_calls_at_once(tmp_path):
    connection = McpConnection(McpServerSpec.parse(f"{PY} {TEST_SERVER} stdio"), TIMEOUT).open()
    connection.close()
    with pytest.raises(Exception, match="is not running"):
        connection.call("add", {"a": 1, "b": 1})


def test_env_lists_mcp_servers_one_per_line(monkeypatch):
    monkeypatch.setenv("PLAN_STUDIO_MCP", "node a.js stdio\n\nhttps://h/mcp | X-Key: v\n")
    assert Settings.from_env().mcp == ["node a.js stdio", "https://h/mcp | X-Key: v"]


def test_add_mcp_server_refuses_an_unusable_server(tmp_path):
    registry, _ = load_tools(Settings(data_dir=tmp_path))
    with pytest.raises(McpServerError, match="command not found"):
        add_mcp_server(registry, "no-such-mcp-server-command", TIMEOUT)


def test_a_servers_session_is_held_on_an_anyio_blocking_portal_and_closed_with_it():
    # anyio's portal replaces the hand-made event-loop thread: the session lives in a portal
    # task, calls go through it, and closing ends the task, the process and the portal's thread.
    import threading

    from anyio.from_thread import BlockingPortal

    connection = McpConnection(McpServerSpec.parse(f"{PY} {TEST_SERVER} stdio"), TIMEOUT).open()
    try:
        run = connection._run
        assert isinstance(run.portal, BlockingPortal)
        assert connection.call("add", {"a": 2, "b": 3}) == {"result": 5}
        thread = run.portal.call(threading.current_thread)  # where the portal's event loop runs
        assert thread is not threading.current_thread() and thread.name.startswith("mcp ")
    finally:
        connection.close()
    thread.join(TIMEOUT)
    assert not thread.is_alive() and run.stopped.is_set()
    with pytest.raises(RuntimeError):  # the portal is stopped: nothing more runs on it
        run.portal.start_task_soon(connection._serve, run)

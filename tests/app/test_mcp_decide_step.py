"""Issue 17, item 5 (MCP): ``waiting_steps`` and ``decide_step`` ask the studio over HTTP (a
real uvicorn serving the review API's run routes in this process, where the run waits)."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
import uvicorn
from mcp.server.mcpserver.exceptions import ToolError
from starlette.applications import Starlette

from async_helpers import run_apart
from core import Settings, StepStatus
from studio.mcp._mcp_server import make_mcp_server
from studio.api._run_decisions_api import run_routes
from studio.workbench._services import build_services
from studio.workbench import join_stored_run
from workbench_helpers import TODAY, run_until_a_marked_step_waits


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def port() -> int:
    return _free_port()


@pytest.fixture
def studio(tmp_path: Path, port: int):
    services = build_services(Settings(data_dir=tmp_path / "data", today=TODAY, approve_writes=True))
    bench, marked = run_until_a_marked_step_waits(services)
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=run_routes(lambda: services)), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
        assert thread.is_alive()
    yield make_mcp_server(services, f"http://127.0.0.1:{port}"), bench, marked, services
    server.should_exit = True
    thread.join(10)


def _structured(answer) -> dict:
    """A tool's answer as an MCP client gets it: its structured content, else its JSON text."""
    if getattr(answer, "structured_content", None):
        return answer.structured_content
    return json.loads(answer.content[0].text)


def test_an_agent_sees_the_waiting_step_and_approves_exactly_its_arguments(studio) -> None:
    server, bench, marked, services = studio
    listed = _structured(run_apart(server.call_tool("waiting_steps", {"run_id": bench.run.id})))
    [waiting] = listed["waiting"]
    assert waiting["step_id"] == marked and waiting["arguments"] == bench.run.steps[marked].arguments
    with pytest.raises(ToolError, match="must name what it decides on"):
        run_apart(server.call_tool("decide_step", {"run_id": bench.run.id, "step_id": marked, "approve": True}))
    with pytest.raises(ToolError, match="arguments changed"):
        run_apart(server.call_tool("decide_step", {"run_id": bench.run.id, "step_id": marked, "approve": True,
                                                     "arguments_hash": "0" * 64}))
    decided = _structured(run_apart(server.call_tool(
        "decide_step", {"run_id": bench.run.id, "step_id": marked, "approve": False,
                        "arguments_hash": waiting["arguments_hash"]})))
    assert decided["decided"] is True
    assert bench.run.steps[marked].status == StepStatus.rejected and bench.run.steps[marked].decision.by == "mcp"
    assert join_stored_run(services, bench.run.id, timeout=60)  # nothing else waits: the run went on, and ends
    assert services.store.load_run(bench.run.id).finished


def test_an_agent_approves_its_edit_of_the_arguments_and_sees_who_approved(studio) -> None:
    server, bench, marked, services = studio
    [waiting] = _structured(run_apart(server.call_tool("waiting_steps", {"run_id": bench.run.id})))["waiting"]
    assert waiting["approvals"] == [] and waiting["approvals_needed"] == 1
    edited = {**waiting["arguments"], "facility_id": ["F002"]}  # the approver narrows it
    with pytest.raises(ToolError, match="limit"):
        run_apart(server.call_tool("decide_step", {"run_id": bench.run.id, "step_id": marked, "approve": True,
                                                     "shown_hash": waiting["shown_hash"],
                                                     "arguments": {**edited, "limit": 0}}))
    decided = _structured(run_apart(server.call_tool(
        "decide_step", {"run_id": bench.run.id, "step_id": marked, "approve": True,
                        "shown_hash": waiting["shown_hash"], "arguments": edited})))
    assert decided["decided"] is True and decided["settled"] is True
    [approval] = decided["approvals"]
    assert approval["actor_id"] == "agent:default" and approval["channel"] == "mcp"
    assert approval["edited_arguments"] == edited and approval["original_arguments"] == waiting["arguments"]
    assert join_stored_run(services, bench.run.id, timeout=60)
    stored = services.store.load_run(bench.run.id)
    assert stored.steps[marked].status == StepStatus.succeeded and stored.steps[marked].arguments == edited


def _client_as(services, studio_url: str, token: str, script):
    """Run ``script(session)`` against ``plan-studio mcp-server`` over stdio (the SDK's client),
    holding ``token`` in PLAN_STUDIO_TOKEN, on ``services``' data folder."""
    import os
    import sys

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    root = Path(__file__).resolve().parents[2]
    params = StdioServerParameters(
        command=sys.executable, cwd=str(root),
        env={**os.environ, "PLAN_STUDIO_DATA_DIR": str(services.settings.data_dir), "PLAN_STUDIO_TOKEN": token},
        args=["-m", "studio.cli._main", "mcp-server", "--studio-url", studio_url])

    async def session_run():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await script(session)
    return run_apart(session_run())


def test_an_agent_decides_over_mcp_as_itself_and_a_viewer_is_refused(studio, port: int) -> None:
    """Issue 27: the MCP server sends the agent's own token; a viewer's decision is a tool error
    naming the role it needs, an approver agent's decision names that agent."""
    from core import LOCAL_ACTOR, Role
    from studio.workbench._agent_tokens import create_token

    server, bench, marked, services = studio
    url = f"http://127.0.0.1:{port}"
    _, viewer = create_token(services, "watcher", role=Role.viewer, actor=LOCAL_ACTOR)
    _, approver = create_token(services, "gatekeeper", role=Role.approver, actor=LOCAL_ACTOR)

    async def try_to_approve(session):
        listed = await session.call_tool("waiting_steps", {"run_id": bench.run.id})
        assert not listed.is_error, listed.content
        [waiting] = _structured(listed)["waiting"]
        return await session.call_tool("decide_step", {"run_id": bench.run.id, "step_id": marked, "approve": True,
                                                       "shown_hash": waiting["shown_hash"]})

    refused = _client_as(services, url, viewer, try_to_approve)
    assert refused.is_error and "needs the approver role" in refused.content[0].text
    assert "agent:watcher" in refused.content[0].text
    assert bench.run.steps[marked].status == StepStatus.waiting  # nothing decided

    decided = _client_as(services, url, approver, try_to_approve)
    assert not decided.is_error, decided.content
    [approval] = _structured(decided)["approvals"]
    assert (approval["actor_id"], approval["channel"]) == ("agent:gatekeeper", "mcp")
    assert join_stored_run(services, bench.run.id, timeout=60)
    stored = services.store.load_run(bench.run.id)
    assert stored.steps[marked].status == StepStatus.succeeded
    assert stored.steps[marked].decision.actor_id == "agent:gatekeeper"
    events = [e for e in services.store.audit.query().events if e.action == "step.decided"]
    assert [e.actor_id for e in events] == ["agent:gatekeeper"]

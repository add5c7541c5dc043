"""The studio as an MCP server (``plan-studio mcp-server``, stdio), driven by the official SDK's
client: an agent submits a plan for review and gets the decision made in the studio's store."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from async_helpers import run_apart
from core.storage import PlanStore

ROOT = Path(__file__).resolve().parents[2]
PLAN = {"goal": "list Berlin facilities", "steps": [
    {"id": "fac", "tool": "facilities_list", "params": {"location": "Berlin"}}]}


def _server(data_dir: Path) -> StdioServerParameters:
    env = {**os.environ, "PLAN_STUDIO_DATA_DIR": str(data_dir)}
    return StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=env,
                                 args=["-m", "studio.cli._main", "mcp-server", "--studio-url", "http://studio.example:8501"])


async def _session_run(data_dir: Path, script: Any) -> Any:
    async with stdio_client(_server(data_dir)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)


def test_an_mcp_agent_submits_and_gets_the_decision(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"

    async def script(session: ClientSession) -> dict[str, Any]:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert {"submit_plan_for_review", "get_review"} <= set(tools)
        assert "plan" in tools["submit_plan_for_review"].input_schema["properties"]
        sent = await session.call_tool("submit_plan_for_review", {"plan": PLAN, "agent": "mcp-bot"})
        assert not sent.is_error, sent.content
        created = sent.structured_content
        assert created["status"] == "pending"
        assert created["url"] == f"http://studio.example:8501/reviews?review={created['id']}"

        pending = (await session.call_tool("get_review", {"review_id": created["id"]})).structured_content
        assert pending["status"] == "pending" and pending["problems"] == []

        # A person decides in the studio (here: its store) while the agent waits.
        async def decide() -> None:
            await asyncio.sleep(0.5)
            with PlanStore(data_dir / "studio.sqlite3") as store:
                plan = store.get_review(created["id"]).plan
                edited = plan.model_copy(update={"steps": [plan.steps[0].model_copy(
                    update={"params": {"location": "Hamburg"}})]})
                store.decide_review(created["id"], approve=True, plan=edited, comment="Hamburg")
        waited, _ = await asyncio.gather(
            session.call_tool("get_review", {"review_id": created["id"], "wait_seconds": 30}), decide())
        return waited.structured_content

    decided = run_apart(_session_run(data_dir, script))
    assert (decided["status"], decided["comment"]) == ("approved", "Hamburg")
    assert decided["plan"]["steps"][0]["params"] == {"location": "Hamburg"}
    assert decided["decisions"] == [{"step_id": "fac", "decision": "edited"}]
    with PlanStore(data_dir / "studio.sqlite3") as store:
        assert [r.agent for r in store.list_reviews()] == ["mcp-bot"]


def test_a_bad_submission_is_a_tool_error_naming_the_field(tmp_path: Path) -> None:
    async def script(session: ClientSession) -> list[Any]:
        return [await session.call_tool("submit_plan_for_review", {"plan": PLAN, "format": "yaml"}),
                await session.call_tool("get_review", {"review_id": "nope"})]

    bad_format, missing = run_apart(_session_run(tmp_path / "data", script))
    assert bad_format.is_error and "format: unknown format 'yaml'" in bad_format.content[0].text
    assert missing.is_error and "no review with id 'nope'" in missing.content[0].text


def _nested_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


SUBMISSIONS = [
    {"plan": PLAN, "colour": "red"},
    {"plan": PLAN, "agent": 5},
    {"plan": 5},
    {"agent": "bot"},
    {"plan": PLAN, "tools": "all of them"},
    {"plan": json.dumps(PLAN), "format": "sk"},
    # 50 levels: over the studio's bound, within the 200 JSON levels the SDK's parser takes;
    # 100 levels: past the SDK's parser, which dropped the call unanswered.
    {"plan": PLAN, "tools": [{"name": "deep", "inputSchema": _nested_schema(50)}]},
    {"plan": PLAN, "tools": [{"name": "deep", "inputSchema": _nested_schema(100)}]},
    {"plan": PLAN, "goal": "[1, 2]", "agent": "[3]"},  # text that looks like JSON stays text
]


def test_mcp_and_http_read_a_submission_alike(tmp_path: Path) -> None:
    from conftest import start_studio
    from test_review_api import call

    studios = start_studio(tmp_path)
    served = next(studios)
    try:
        token = (served.data_dir / "api-token").read_text().strip()
        over_http = [call(served, "POST", "/api/reviews", body, token=token) for body in SUBMISSIONS]

        async def script(session: ClientSession) -> list[Any]:
            return [await session.call_tool("submit_plan_for_review", body) for body in SUBMISSIONS]
        over_mcp = run_apart(_session_run(served.data_dir, script))
    finally:
        studios.close()
    for body, (status, answer), result in zip(SUBMISSIONS, over_http, over_mcp):
        if status == 400:
            assert result.is_error and result.content[0].text == answer["error"], body
        else:
            assert status == 201 and not result.is_error, (body, answer, result.content)
    assert [r.is_error for r in over_mcp] == [True] * 8 + [False]
    with PlanStore(served.data_dir / "studio.sqlite3") as store:
        assert {(r.agent, r.goal) for r in store.list_reviews()} == {("[3]", "list Berlin facilities")}


def _agent_token(data_dir: Path, name: str, role: str) -> str:
    """An agent's own token, made as ``plan-studio token create`` makes it (the local admin)."""
    from core import LOCAL_ACTOR, Role, Settings
    from studio.workbench._agent_tokens import create_token
    from studio.workbench._services import build_services

    _, token = create_token(build_services(Settings(data_dir=data_dir)), name, role=Role.parse(role), actor=LOCAL_ACTOR)
    return token


def test_an_agent_submits_over_mcp_as_itself_with_its_own_token(tmp_path: Path) -> None:
    """Issue 27: the MCP server acts as the agent whose token it holds (``--token-file``): the
    review is submitted_by that agent and its audit row names it; a viewer's token (from
    PLAN_STUDIO_TOKEN) may not submit, and the tool error names the role."""
    data_dir = tmp_path / "data"
    token_file = tmp_path / "bot.token"
    token_file.write_text(_agent_token(data_dir, "bot-7", "reviewer") + "\n")
    viewer = _agent_token(data_dir, "watcher", "viewer")

    async def submit(session: ClientSession) -> Any:
        return await session.call_tool("submit_plan_for_review", {"plan": PLAN, "agent": "mcp-bot"})

    server = _server(data_dir)
    with_file = StdioServerParameters(command=server.command, cwd=server.cwd, env=server.env,
                                      args=[*server.args, "--token-file", str(token_file)])

    async def as_file_agent() -> Any:
        async with stdio_client(with_file) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                sent = await submit(session)
                read_back = await session.call_tool("get_review", {"review_id": sent.structured_content["id"]})
                return sent, read_back

    sent, read_back = run_apart(as_file_agent())
    assert not sent.is_error, sent.content
    assert read_back.structured_content["submitted_by"] == "agent:bot-7"
    with PlanStore(data_dir / "studio.sqlite3") as store:
        [review] = store.list_reviews()
        assert store.get_review(review.id).submitted_by == "agent:bot-7"
        [event] = [e for e in store.audit.query().events if e.action == "review.submitted"]
        assert (event.actor_id, event.channel) == ("agent:bot-7", "mcp")

    as_viewer = StdioServerParameters(command=server.command, cwd=server.cwd, args=server.args,
                                      env={**server.env, "PLAN_STUDIO_TOKEN": viewer})

    async def as_viewer_agent() -> Any:
        async with stdio_client(as_viewer) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await submit(session)

    refused = run_apart(as_viewer_agent())
    assert refused.is_error
    assert "agent:watcher" in refused.content[0].text and "needs the reviewer role" in refused.content[0].text
    with PlanStore(data_dir / "studio.sqlite3") as store:
        assert len(store.list_reviews()) == 1  # nothing stored for the refused one


def test_an_unreadable_token_file_is_an_error_naming_it(tmp_path: Path) -> None:
    import subprocess

    missing = tmp_path / "nope.token"
    done = subprocess.run([sys.executable, "-m", "studio.cli._main", "mcp-server", "--token-file", str(missing)],
                          cwd=ROOT, env={**os.environ, "PLAN_STUDIO_DATA_DIR": str(tmp_path / "data")},
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and f"--token-file {missing}" in done.stderr and "Traceback" not in done.stderr


def test_the_mcp_tools_are_annotated_and_name_a_review_as_http_does(tmp_path: Path) -> None:
    async def script(session: ClientSession) -> tuple[dict[str, Any], ...]:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        hints = {name: (t.annotations.read_only_hint, t.annotations.destructive_hint, t.annotations.open_world_hint)
                 for name, t in tools.items()}
        created = (await session.call_tool("submit_plan_for_review", {"plan": PLAN})).structured_content
        by_old_name = (await session.call_tool("get_review", {"id": created["review_id"]})).structured_content
        withdrawn = (await session.call_tool("withdraw_review", {"review_id": created["review_id"],
                                                                 "reason": "changed my mind"})).structured_content
        again = await session.call_tool("withdraw_review", {"review_id": created["review_id"]})
        return hints, created, by_old_name, withdrawn, {"error": again.is_error, "text": again.content[0].text}

    hints, created, by_old_name, withdrawn, again = run_apart(_session_run(tmp_path / "data", script))
    assert hints == {"submit_plan_for_review": (False, False, False), "get_review": (True, None, False),
                     "withdraw_review": (False, True, False), "waiting_steps": (True, None, False),
                     "decide_step": (False, True, False)}
    assert created["review_id"] == created["id"] and by_old_name["review_id"] == created["review_id"]
    assert (withdrawn["status"], withdrawn["comment"]) == ("withdrawn", "changed my mind")
    assert again["error"] and "already withdrawn" in again["text"]

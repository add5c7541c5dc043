"""The studio as an MCP server: an agent in any MCP client asks a person to review its plan.

    plan-studio mcp-server [--studio-url URL] [--token-file FILE]   (stdio; the studio's own store)

The server acts as the agent whose token it is given (``--token-file`` or ``PLAN_STUDIO_TOKEN``,
never on the command line): its submissions are ``submitted_by`` that agent, its decisions and
their audit rows name it, and a token without the role is refused as a tool error naming the
role. Without a token it acts as the local user (an admin), as the command line does.

Also ``waiting_steps`` and ``decide_step`` (``_mcp_run_tools``): a run's steps that wait for a
person, and the decision on one. Two review tools: ``submit_plan_for_review`` stores the plan as a pending review and answers its id and
the link that opens it in the studio; ``get_review`` answers the review (optionally waiting up
to ``wait_seconds`` for the decision): status, the plan as approved with the reviewer's edits,
the comment, a decision per step and the validator's problems; ``withdraw_review`` withdraws a
pending one. Reviews made here are the same as those sent over HTTP: the Reviews page lists both.

Field names are the HTTP API's: a review is named ``review_id`` in answers and arguments (an
older client's ``id`` is still taken as an argument, and still answered). Each tool carries MCP
annotations (``readOnlyHint``, ``destructiveHint``, ...): ``TOOL_ANNOTATIONS``.
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import time
from typing import Any, Callable

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from core import LOCAL_ACTOR, Actor, PlanStudioError

from ._mcp_deep_lines import DeepCallLines
from ._mcp_run_tools import add_run_tools
from ..workbench import (MAX_WAIT_SECONDS, review_link, review_view, submission_answer, submit_review,
                         withdraw_review)
from ..workbench._agent_tokens import actor_for_bearer
from ..workbench._services import Services

__all__ = ["DEFAULT_STUDIO_URL", "TOOL_ANNOTATIONS", "make_mcp_server"]

DEFAULT_STUDIO_URL = "http://127.0.0.1:8501"
_POLL_SECONDS = 0.25
_REVIEW_ID_ALIASES = {"get_review", "withdraw_review"}  # tools taking review_id, also as ``id``


def _hints(title: str, *, read_only: bool, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    # openWorldHint false: every tool acts on this studio's own store, nothing beyond it.
    return ToolAnnotations(title=title, readOnlyHint=read_only, destructiveHint=None if read_only else destructive,
                           idempotentHint=True if read_only else idempotent, openWorldHint=False)


TOOL_ANNOTATIONS: dict[str, ToolAnnotations] = {
    "submit_plan_for_review": _hints("Send a plan for review", read_only=False),
    "get_review": _hints("Read a review", read_only=True),
    "withdraw_review": _hints("Withdraw a review", read_only=False, destructive=True),
    "waiting_steps": _hints("Steps waiting for a person", read_only=True),
    "decide_step": _hints("Approve or reject a waiting step", read_only=False, destructive=True),
}

_INSTRUCTIONS = ("Before acting on a plan of tool calls, send it to a person for review with "
                 "submit_plan_for_review, then call get_review with wait_seconds until its status is "
                 "approved or rejected. Run the plan as get_review returns it: it includes the reviewer's edits.")


class _ReviewServer(MCPServer):
    """An MCP server whose submission tool gets its arguments as the agent sent them.

    The SDK reads a tool's arguments through a model of its signature: it drops names it does
    not know, converts values and parses JSON-looking text. A submission must be read exactly
    as the HTTP API reads a body (same refusals, same messages), so ``submit_plan_for_review``
    hands the raw arguments to ``studio.workbench.submit_review``; its signature only describes them."""

    def __init__(self, submit: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        super().__init__("plan-studio", instructions=_INSTRUCTIONS)
        self._submit = submit
        self._deep_lines: DeepCallLines | None = None

    async def run_stdio_async(self) -> None:
        """The SDK's stdio serving, reading stdin through ``DeepCallLines`` (the SDK's own
        parser drops lines over 200 JSON levels unanswered)."""
        stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
        self._deep_lines = DeepCallLines(stdin)
        async with stdio_server(stdin=self._deep_lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            await self._lowlevel_server.run(read_stream, write_stream,
                                            self._lowlevel_server.create_initialization_options())

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if self._deep_lines is not None:
            arguments = self._deep_lines.arguments_for(arguments)
        if name in _REVIEW_ID_ALIASES and "id" in arguments and "review_id" not in arguments:
            arguments = {("review_id" if key == "id" else key): value for key, value in arguments.items()}
        if name != "submit_plan_for_review":
            return await super().call_tool(name, arguments, context)
        try:
            created = await asyncio.to_thread(self._submit, arguments)
        except PlanStudioError as exc:
            raise ToolError(str(exc)) from None
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(created, indent=2))],
                              structured_content=created)


def make_mcp_server(services: Services, studio_url: str = DEFAULT_STUDIO_URL, *,
                    token: str | None = None) -> MCPServer:
    """The MCP server over ``services``' store; review links point at ``studio_url``. With
    ``token`` (an agent's API token) every tool acts as that agent; without, as the local user."""
    def link(review_id: str) -> str:
        return review_link(studio_url, review_id)

    def actor() -> Actor:
        # Looked up on every call: a token revoked while the server runs stops working at once.
        return LOCAL_ACTOR if token is None else actor_for_bearer(services, f"Bearer {token}")

    def submit(body: dict[str, Any]) -> dict[str, Any]:
        review = submit_review(services, body, actor=actor(), channel="mcp")
        return submission_answer(review, body, link(review.id))

    server = _ReviewServer(submit)

    @server.tool(annotations=TOOL_ANNOTATIONS["submit_plan_for_review"])
    def submit_plan_for_review(plan: dict[str, Any] | str, format: str | None = None, agent: str | None = None,
                               goal: str | None = None, tools: list[dict[str, Any]] | None = None,
                               callback_url: str | None = None, callback_secret: str | None = None) -> dict[str, Any]:
        """Send a plan of tool calls for a person to review before you act on it.

        Args:
            plan: The plan: a JSON object (formats native, seed, teams) or its text (any format).
            format: native, seed, sk, teams or llmcompiler; worked out from the plan when left out.
            agent: Your name, as the reviewer sees it.
            goal: What the plan is for, when the plan itself carries no goal.
            tools: Your own tools' definitions as MCP lists them (name, description, inputSchema,
                outputSchema), so the plan is checked and drawn against them.
            callback_url: An http(s) URL the studio posts to (signed) when the review is decided.
            callback_secret: Your secret for that signature (16-200 characters); made for you when left out.

        Returns:
            The review's review_id (also as id), its status (pending) and the link that opens it
            in the studio; callback_secret when the studio made it.
        """
        # The server calls submit() with the arguments as sent (see _ReviewServer); this body
        # serves a caller that goes through the SDK's own path.
        body = {k: v for k, v in {"plan": plan, "format": format, "agent": agent, "goal": goal, "tools": tools,
                                  "callback_url": callback_url, "callback_secret": callback_secret}.items()
                if v is not None}
        try:
            return submit(body)
        except PlanStudioError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(annotations=TOOL_ANNOTATIONS["get_review"])
    async def get_review(review_id: str, wait_seconds: float = 0.0) -> dict[str, Any]:
        """A review's status and, once decided, the plan as approved (with the reviewer's edits),
        the reviewer's comment and a decision per step.

        Args:
            review_id: The review_id submit_plan_for_review answered (``id`` is taken too).
            wait_seconds: Wait up to this long (at most 600) for a person to decide; 0 answers at once.

        Returns:
            status (pending, approved, rejected or withdrawn), plan, plan_text, comment, decisions, problems.
        """
        deadline = time.monotonic() + min(max(wait_seconds, 0.0), MAX_WAIT_SECONDS)
        try:
            reader = await asyncio.to_thread(actor)
            while (await asyncio.to_thread(services.store.review_status, review_id) == "pending"
                   and time.monotonic() < deadline):
                await asyncio.sleep(min(_POLL_SECONDS, max(deadline - time.monotonic(), 0.0)))
            review = await asyncio.to_thread(services.store.get_review, review_id)
            return review_view(services, review, url=link(review_id), actor=reader)
        except PlanStudioError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(name="withdraw_review", annotations=TOOL_ANNOTATIONS["withdraw_review"])
    async def withdraw_review_tool(review_id: str, reason: str = "") -> dict[str, Any]:
        """Withdraw a review you sent that is still pending: nobody can approve it any more.

        Args:
            review_id: The review_id submit_plan_for_review answered (``id`` is taken too).
            reason: Why, for the reviewers (optional).
        """
        try:
            who = await asyncio.to_thread(actor)
            await asyncio.to_thread(lambda: withdraw_review(services, review_id, actor=who, channel="mcp",
                                                            reason=reason))
            review = await asyncio.to_thread(services.store.get_review, review_id)
            return review_view(services, review, url=link(review_id), actor=who)
        except PlanStudioError as exc:
            raise ToolError(str(exc)) from None

    add_run_tools(server, services, studio_url, token=token, annotations=TOOL_ANNOTATIONS)
    return server

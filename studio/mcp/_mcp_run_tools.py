"""The MCP server's tools for a pause for a person: ``waiting_steps`` and ``decide_step``.

The MCP server is a process of its own (stdio), while a run that waits lives in the studio's
process; so these tools ask the studio over its review API (``_run_decisions_api``) with the
agent's own token as the Bearer token (or, given none, the shared admin token of the data folder,
the local user's): the decision goes through the same ``workbench.decide_step`` as the page's
Approve, names the token's agent, and the studio's origin, token and role rules apply.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from ..workbench._api_token import ensure_token
from ..workbench._services import Services

__all__ = ["add_run_tools"]

_TIMEOUT_SECONDS = 30.0


def add_run_tools(server: MCPServer, services: Services, studio_url: str, *, token: str | None = None,
                  annotations: dict[str, Any] | None = None) -> None:
    base = studio_url.rstrip("/")

    def ask(method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        bearer = token if token is not None else ensure_token(services.settings.data_dir)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{base}{path}", data=data, method=method,
                                         headers={"Authorization": f"Bearer {bearer}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_SECONDS) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            try:
                said = json.loads(exc.read())
            except ValueError:
                said = {}
            notices = "; ".join(n.get("text", "") for n in said.get("notices", []))
            raise ToolError(said.get("error") or notices or f"the studio answered {exc.code}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise ToolError(f"cannot reach the studio at {base}: {exc}") from None

    def quoted(text: str) -> str:
        return urllib.parse.quote(text, safe="")

    hints = annotations or {}

    @server.tool(annotations=hints.get("waiting_steps"))
    async def waiting_steps(run_id: str) -> dict[str, Any]:
        """The steps of a run in the studio that wait for a person's approval, each with its tool,
        effects, resolved arguments, the shown_hash to pass to decide_step, how many approvals it
        needs and who has approved so far.

        Args:
            run_id: The run's id, as the studio shows it.
        """
        return await asyncio.to_thread(ask, "GET", f"/api/runs/{quoted(run_id)}/waiting")

    @server.tool(annotations=hints.get("decide_step"))
    async def decide_step(run_id: str, step_id: str, approve: bool, shown_hash: str = "", arguments_hash: str = "",
                          arguments: dict[str, Any] | None = None, grant: str = "once") -> dict[str, Any]:
        """Approve or reject a step that waits for a person, for exactly what was shown.

        Args:
            run_id: The run's id.
            step_id: The waiting step's id (waiting_steps lists them).
            approve: true runs the step; false rejects it (the steps that depend on it are skipped).
            shown_hash: The shown_hash waiting_steps gave with the step (required: or arguments_hash);
                the decision is refused if what the step would run changed since.
            arguments_hash: The arguments_hash waiting_steps gave, for a client that only has it.
            arguments: The step's arguments as edited by the approver: the step runs with exactly
                these (checked against the tool's schema). Omit to approve them as shown.
            grant: "once" (default), "run" (every later step of this tool in this run passes) or
                "always" (this tool with exactly these arguments, in any run, until it expires).
        """
        seen = shown_hash or arguments_hash
        if not seen:
            raise ToolError("a decision must name what it decides on: pass the shown_hash waiting_steps gave")
        body: dict[str, Any] = {"approve": approve, "shown_hash": seen, "grant": grant, "channel": "mcp"}
        if arguments is not None:
            body["arguments"] = arguments
        return await asyncio.to_thread(ask, "POST", f"/api/runs/{quoted(run_id)}/steps/{quoted(step_id)}/decision", body)
